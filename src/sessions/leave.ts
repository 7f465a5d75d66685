import { withTx, type Client } from '../db/pool.ts';
import { Sql, Writes } from '../db/writes.ts';
import { ID_PATTERN } from '../ids.ts';
import { lockObjects, planTransition, type Locked } from '../actors/store.ts';
import { LOG_CHANNEL, type Caller, type Services } from '../services.ts';
import { planTranscript } from './transcript.ts';
import type { Session } from './schemas.ts';
import { COLUMNS, unlessUnavailable, loadSession, sessionEnded, toSession, type SessionRow } from './sessions.ts';

/**
 * POST /v1/sessions/{id}/leave: the session ends and its conversation becomes
 * a transcript; an ended session answers 409. Leaving a call's session hangs
 * the call up (the session ends with it).
 */
export async function leave(s: Services, cred: Caller, id: string): Promise<Session> {
  return unlessUnavailable(s, cred, withTx(s.pool, async (tx) => {
    // What reacts to the session's end locks its rows before the session's (reactions.ts sessionLeaving).
    if (ID_PATTERN.test(id)) {
      const { rows } = await tx.query<{ log_id: string; call_id: string | null }>(`SELECT log_id, call_id FROM agent_sessions WHERE id = $1`, [id]);
      if (rows[0]?.call_id) {
        const session = await loadSession(tx, cred, id);
        if (session.status === 'ended') throw sessionEnded(id);
        await s.reactions.callSessionLeft(s, tx, rows[0].call_id);
        return toSession(await loadSession(tx, cred, id));
      }
      if (rows[0]) await s.reactions.sessionLeaving(s, tx, rows[0].log_id);
    }
    // endSession locks the session's row (after those, above).
    const session = await loadSession(tx, cred, id);
    const ended = await endSession(tx, session, 'LEAVE');
    if (!ended) throw sessionEnded(id);
    // Whether anyone is left to listen (the test mode's robots stop when nobody is).
    const { rows } = await tx.query(`SELECT 1 FROM agent_sessions WHERE log_id = $1 AND status <> 'ended' LIMIT 1`, [session.log_id]);
    await s.reactions.sessionLeft(s, tx, { logId: session.log_id, lastListener: rows.length === 0 });
    return ended;
  }));
}

/**
 * Ends every open session of a room (the room was deleted or expired), in the
 * room's transaction (reactions.ts roomEnded, which locks the robots' row first).
 */
export async function endRoomSessions(tx: Client, roomId: string): Promise<void> {
  const { rows } = await tx.query<SessionRow>(
    `SELECT ${COLUMNS} FROM agent_sessions WHERE log_id = $1 AND status <> 'ended' ORDER BY id FOR UPDATE`,
    [roomId],
  );
  for (const r of rows) await endSession(tx, r, 'ROOM_ENDED');
}

/**
 * Sends the session its end (it left, its room ended, or its call ended) and
 * writes its transcript; null when it had ended already (the machine refused).
 */
export async function endSession(
  tx: Client, session: Pick<SessionRow, 'id' | 'log_id'>, event: SessionEnd,
): Promise<Session | null> {
  const { first } = await lockObjects<SessionRow>(tx, { machine: 'session', id: session.id, returning: COLUMNS });
  if (!first) return null;
  const w = new Writes();
  const ended = planSessionEnd(w, first, event);
  if (ended) await w.run(tx);
  return ended;
}

export type SessionEnd = 'LEAVE' | 'ROOM_ENDED' | 'CALL_ENDED';

/** endSession's writes as parts of w, for the session locked by lockObjects (one statement with the caller's own). */
export function planSessionEnd(w: Writes, locked: Locked<SessionRow>, event: SessionEnd): Session | null {
  const seq = w.name('seq');
  // Placeholders are made only once the machine has accepted the event: a
  // refused one adds nothing to w (a parameter the text does not use is an error).
  let log = '';
  const toSeq = new Sql(`(SELECT to_seq FROM ${seq})`);
  const t = planTransition<SessionRow>(w, locked, { type: event }, {
    objectFor: toSession,
    // It heard its log up to the last number committed now (a phrase still
    // being published comes after it left).
    set: () => {
      log = w.p(locked.row.log_id, '::text');
      w.with(seq, `SELECT greatest(${w.p(locked.row.from_seq)}::bigint, coalesce((SELECT seq FROM room_logs WHERE room_id = ${log}), 0)) AS to_seq`);
      return { to_seq: toSeq };
    },
  });
  if (!t.changed) return null;
  // Whoever listens on the log wakes up (NOTIFY, on commit) to see it ended.
  w.out(`pg_notify(${w.p(LOG_CHANNEL)}, ${log})`, 'notify');
  planTranscript(w, { ...t.row, to_seq: toSeq });
  return toSession(t.row);
}
