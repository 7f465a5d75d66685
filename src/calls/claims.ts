import { prepared, withTx } from '../db/pool.ts';
import { now, type Services } from '../services.ts';
import { endCall } from './events.ts';

// Which gateway dials which call (calls.gateway_id), and the calls of
// gateways that stopped beating (sweep.ts). Each claim is one statement: a
// call is claimed by one gateway only.

/** How long after it was placed an unclaimed call is dialed by any gateway's sweep (its own process normally dials it at once). */
export const DIAL_FALLBACK_SECONDS = 3;

/** A call claimed for dialing, with what dialing it needs. */
export type Claimed = {
  id: string; to_e164: string; from_e164: string; remote_lang: string; trunk_id: string | null; livemode: boolean; voice_id: string | null; org_id: string;
  /** The per-call limit (NUMERIC: a number, or the string a CallRow keeps), null when none. */
  max_answered_seconds: number | string | null;
  /** The room its callee joins once answered, or null. */
  room_id: string | null;
};
const CLAIMED = 'id, to_e164, from_e164, remote_lang, trunk_id, livemode, voice_id, org_id, max_answered_seconds, room_id';

/** Claims the given calls no gateway has dialed yet (one statement for many: the dial jobs come in batches). */
export async function claimCalls(s: Services, gatewayId: string, callIds: string[]): Promise<Claimed[]> {
  const { rows } = await s.pool.query<Claimed>(prepared(
    `UPDATE calls SET gateway_id = $2 WHERE id = ANY($1) AND gateway_id IS NULL AND status = 'queued' RETURNING ${CLAIMED}`,
    [callIds, gatewayId],
  ));
  return rows;
}

/**
 * The fallback: calls placed DIAL_FALLBACK_SECONDS ago or more that no
 * gateway claimed (their process died between its commit and its dial),
 * oldest first, claimed by one gateway (SKIP LOCKED). Found through
 * calls_open, whose unclaimed entries are the calls being placed right now.
 * The service clock's time: created_at is written with it.
 */
export async function claimUnclaimed(s: Services, gatewayId: string): Promise<Claimed[]> {
  const { rows } = await s.pool.query<Claimed>(prepared(
    `UPDATE calls SET gateway_id = $1
      WHERE id IN (SELECT id FROM calls WHERE status = 'queued' AND gateway_id IS NULL AND created_at < $2
                    ORDER BY created_at LIMIT 100 FOR UPDATE SKIP LOCKED)
        AND gateway_id IS NULL
      RETURNING ${CLAIMED}`,
    [gatewayId, new Date(now(s).getTime() - DIAL_FALLBACK_SECONDS * 1000)],
  ));
  return rows;
}

/**
 * Calls still queued whose gateway was lost: accepted by a process that
 * died before its INVITE got an answer, most often before it was sent at
 * all (it is sent right after the commit). Claimed by one gateway (SKIP
 * LOCKED) to be dialed again; should the lost one's INVITE have gone out,
 * the far end may be rung twice, which beats a call accepted and never made.
 */
export async function claimOrphans(s: Services, gatewayId: string): Promise<Claimed[]> {
  const { rows } = await s.pool.query<Claimed>(prepared(
    `UPDATE calls SET gateway_id = $1
      WHERE id IN (SELECT c.id FROM calls c LEFT JOIN gateways g ON g.id = c.gateway_id
                    WHERE c.status = 'queued' AND c.gateway_id IS NOT NULL AND c.gateway_id <> $1
                      AND (g.id IS NULL OR g.heartbeat_at < now() - make_interval(secs => $2))
                    ORDER BY c.created_at LIMIT 100 FOR UPDATE OF c SKIP LOCKED)
        AND status = 'queued'
      RETURNING ${CLAIMED}`,
    [gatewayId, s.config.gatewayLostSeconds],
  ));
  return rows;
}

/**
 * Ends the ringing and answered calls of gateways that stopped beating
 * (failed/gateway_lost): a call is never left ringing or answered by a
 * process that died. Returns how many.
 */
export async function endCallsOfLostGateways(s: Services, gatewayId: string): Promise<number> {
  // silent_s: how long ago the lost gateway last beat (null: its row is gone).
  const { rows } = await s.pool.query<{ id: string; silent_s: number | null }>(
    `SELECT c.id, extract(epoch FROM now() - g.heartbeat_at)::float8 AS silent_s
       FROM calls c LEFT JOIN gateways g ON g.id = c.gateway_id
      WHERE c.status IN ('ringing', 'answered') AND c.gateway_id IS NOT NULL AND c.gateway_id <> $1
        AND (g.id IS NULL OR g.heartbeat_at < now() - make_interval(secs => $2))
      ORDER BY c.created_at LIMIT 100`,
    [gatewayId, s.config.gatewayLostSeconds],
  );
  for (const r of rows) {
    // The line is billed up to the gateway's last sign of life, not the
    // seconds it took to notice it was gone. endCall also tells the gateway,
    // should it only have been late, to hang up.
    const endedAt = r.silent_s === null ? undefined : new Date(now(s).getTime() - r.silent_s * 1000);
    await withTx(s.pool, (tx) => endCall(s, tx, r.id, { type: 'FAILED', reason: 'gateway_lost' }, { endedAt }));
  }
  return rows.length;
}
