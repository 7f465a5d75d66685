import { withTx, type Client } from '../db/pool.ts';
import type { Services } from '../services.ts';
import { robotPauseSeconds } from './robots.ts';
import { robotPhrase, robotReply } from './translator.ts';

// The test-mode robots (operator.md, Test-mode simulator): in every room with
// an open agent session, Robot A (the room's first language, else en) and
// Robot B (its second, else es) take turns saying a phrase every 2 to 4
// seconds, and one of them answers each `say` within 3 seconds, all divided by
// TOLK_SIM_SPEED. The pace lives in sim_rooms and sim_replies, not in this
// process: every worker process runs this loop and takes due rows with SKIP
// LOCKED, so robots keep talking whichever processes are alive. (pg-boss jobs
// poll no faster than every 0.5 s, too slow for TOLK_SIM_SPEED=10.)

export type Simulator = { stop: () => Promise<void>; /** One pass now (tests). */ tick: () => Promise<number> };

const BATCH = 50;

export function startSimulator(s: Services, log: { error: (o: object, m: string) => void }): Simulator {
  let stopped = false;
  let running: Promise<number> | null = null;
  const period = Math.max(20, Math.min(250, 250 / s.config.simSpeed));

  const tick = (): Promise<number> => {
    running ??= pass(s).finally(() => { running = null; });
    return running;
  };
  const loop = async () => {
    while (!stopped) {
      try {
        await tick();
      } catch (err) {
        if (!stopped) log.error({ err }, 'simulator pass failed');
      }
      await new Promise((r) => setTimeout(r, period).unref());
    }
  };
  void loop();
  return {
    tick,
    stop: async () => {
      stopped = true;
      await running?.catch(() => 0);
    },
  };
}

/** Robots whose turn has come speak; due replies are said. Returns how many phrases were said. */
export async function pass(s: Services): Promise<number> {
  return withTx(s.pool, async (tx) => {
    let said = 0;
    const { rows: rooms } = await tx.query<{ room_id: string; robot_a_lang: string; robot_b_lang: string | null; robot_a_name: string; phrase_n: number }>(
      `SELECT room_id, robot_a_lang, robot_b_lang, robot_a_name, phrase_n FROM sim_rooms
        WHERE next_phrase_at <= now() ORDER BY next_phrase_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [BATCH],
    );
    for (const r of rooms) {
      // A call's line has one speaker (robot_b_lang null); a room's two take turns.
      const robot = r.phrase_n % 2 === 0 || r.robot_b_lang === null ? 'a' : 'b';
      const lang = robot === 'a' ? r.robot_a_lang : r.robot_b_lang!;
      await say(s, tx, r.room_id, robot, robot === 'a' ? r.robot_a_name : 'Robot B', r.robot_b_lang === null, lang, robotPhrase(r.phrase_n, lang).text);
      await tx.query(
        `UPDATE sim_rooms SET phrase_n = phrase_n + 1, next_phrase_at = now() + make_interval(secs => $2) WHERE room_id = $1`,
        [r.room_id, robotPauseSeconds(s)],
      );
      said++;
    }
    const { rows: replies } = await tx.query<{ room_id: string; robot: 'a' | 'b'; reply_n: number; robot_a_lang: string; robot_b_lang: string | null; robot_a_name: string }>(
      `DELETE FROM sim_replies r USING sim_rooms m
        WHERE r.id IN (SELECT id FROM sim_replies WHERE due_at <= now() ORDER BY due_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          AND m.room_id = r.room_id
       RETURNING r.room_id, r.robot, r.reply_n, m.robot_a_lang, m.robot_b_lang, m.robot_a_name`,
      [BATCH],
    );
    for (const r of replies) {
      const lang = r.robot === 'a' || r.robot_b_lang === null ? r.robot_a_lang : r.robot_b_lang;
      await say(s, tx, r.room_id, r.robot, r.robot === 'a' ? r.robot_a_name : 'Robot B', r.robot_b_lang === null, lang, robotReply(r.reply_n, lang).text);
      said++;
    }
    return said;
  });
}

/**
 * A robot's phrase in the room; `onCall`: the callee of a call's line (one
 * speaker), who says it out loud. Where it goes is the reactions' (the room's
 * log, or the gateway holding the call: reactions.ts robotSaid).
 */
function say(s: Services, tx: Client, logId: string, robot: 'a' | 'b', speaker: string, onCall: boolean, lang: string, text: string) {
  return s.reactions.robotSaid(s, tx, { logId, robot, speaker, onCall, lang, text });
}
