import { Writes } from '../db/writes.ts';
import { prepared, type Client } from '../db/pool.ts';
import type { Services } from '../services.ts';

// The robots' side of a room in test mode (operator.md, Test-mode simulator):
// their languages and pace in sim_rooms, the replies they owe in sim_replies.
// Only this file and engine.ts write those tables; they run as reactions
// (src/reactions.ts) when an agent joins, a phrase is said, a session leaves
// or a room ends, so sessions know nothing of robots. A call's line (its log,
// keyed by the call's id) has one speaker instead: the simulated callee
// (startCallee), who talks in the call's remote language.

/** Seconds between two robot phrases: 2 to 4 at TOLK_SIM_SPEED=1. */
export function robotPauseSeconds(s: Services): number {
  return (2 + Math.random() * 2) / s.config.simSpeed;
}

/** The room's robots start talking (or keep on): Robot A speaks the room's first language (else en), Robot B its second (else es). */
export async function startRobots(s: Services, tx: Client, roomId: string, roomLangs: string[]): Promise<void> {
  await tx.query(
    `INSERT INTO sim_rooms (room_id, robot_a_lang, robot_b_lang, next_phrase_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4)) ON CONFLICT (room_id) DO NOTHING`,
    [roomId, roomLangs[0] ?? 'en', roomLangs[1] ?? 'es', robotPauseSeconds(s)],
  );
}

/** The callee of a call's line starts talking (once answered): one speaker, `name`, in `lang`. */
export async function startCallee(s: Services, tx: Client, logId: string, name: string, lang: string): Promise<void> {
  await tx.query(
    `INSERT INTO sim_rooms (room_id, robot_a_lang, robot_b_lang, robot_a_name, next_phrase_at)
     VALUES ($1, $2, NULL, $3, now() + make_interval(secs => $4)) ON CONFLICT (room_id) DO NOTHING`,
    [logId, lang, name, robotPauseSeconds(s)],
  );
}

/** The languages the room's robots hear in (none when they are not talking). */
export async function robotLangs(tx: Client, roomId: string): Promise<string[]> {
  const { rows } = await tx.query<{ a: string; b: string | null }>(`SELECT robot_a_lang AS a, robot_b_lang AS b FROM sim_rooms WHERE room_id = $1`, [roomId]);
  return rows.flatMap((r) => (r.b === null ? [r.a] : [r.a, r.b]));
}

/** A robot answers what was said in `lang` within 3 seconds (scaled): the one not speaking lang, else Robot B (a call's callee answers alone). */
export async function scheduleReply(s: Services, tx: Client, roomId: string, lang: string): Promise<void> {
  await tx.query(
    `INSERT INTO sim_replies (room_id, robot, reply_n, due_at)
     SELECT room_id, CASE WHEN robot_b_lang IS NULL OR (robot_b_lang = $2 AND robot_a_lang <> $2) THEN 'a' ELSE 'b' END,
            floor(random() * 1000)::int, now() + make_interval(secs => $3)
       FROM sim_rooms WHERE room_id = $1`,
    [roomId, lang, (0.5 + Math.random() * 2) / s.config.simSpeed],
  );
}

/**
 * Locks the robots' row of a room. The engine takes it before publishing to
 * the room's log; whoever ends sessions takes it before the sessions' rows
 * (reactions.ts sessionLeaving, roomEnded), so two ends never deadlock and the
 * last to leave sees the others gone.
 */
export async function lockRobots(tx: Client, roomId: string): Promise<void> {
  await tx.query(prepared(`SELECT 1 FROM sim_rooms WHERE room_id = $1 FOR UPDATE`, [roomId]));
}

/** The robots stop: nobody is left to listen, or the room ended. */
export async function stopRobots(tx: Client, roomId: string): Promise<void> {
  const w = new Writes();
  planStopRobots(w, roomId);
  await w.run(tx);
}

/** stopRobots as a part of w. */
export function planStopRobots(w: Writes, roomId: string): void {
  const room = w.p(roomId, '::text');
  w.with(w.name('robots'), `DELETE FROM sim_rooms WHERE room_id = ${room}`);
  w.with(w.name('replies'), `DELETE FROM sim_replies WHERE room_id = ${room}`);
}
