import type { Pool } from '../db/pool.ts';
import type { TrunkRoute } from '../../gateway/signaling.ts';
import type { TrunkDial, TrunkDialer as Dialer } from '../services.ts';
import { dialedNumber, dialView, loadTrunk, parseTrunkUri, type DialTrunk } from './trunks.ts';

// How a live call goes out through its trunk (operator.md, SIP trunks and
// live mode), decided by the gateway that dials it:
//   - the trunk as it is now (state, address, credentials), read through a
//     cache of a few seconds (safe to lose: it is read again);
//   - a trunk that is down (its OPTIONS unanswered, ping.ts)
//     fails the call at once: `trunk_down`;
//   - the trunk's calls-per-second limit, shared by every gateway: each
//     INVITE takes the next free slot (next_invite_at moves 1/max_cps ahead
//     in one statement, so two processes never take the same one) and waits
//     for it; a call that would wait more than PACING_LIMIT_SECONDS is not
//     queued at all: `trunk_busy`, as a carrier's own 503 would end it;
//   - the Request-URI: the number (in the trunk's format) at the trunk's
//     host, port and transport; the route (proxy, caller id header,
//     credentials) for the SIP stack.
// The calls' gateway (calls/dialer.ts) holds one of these through the
// reactions' trunkDialer port: what it reads of a trunk stays the trunks'.

/** Longest wait for a calls-per-second slot before a call fails `trunk_busy` (our choice: about a ring's length). */
export const PACING_LIMIT_SECONDS = 30;

const CACHE_MS = 3000;

export class TrunkDialer implements Dialer {
  private readonly cache = new Map<string, { t: DialTrunk; at: number }>();
  private readonly pool: Pool;
  private readonly secretKey: Buffer | undefined;

  constructor(pool: Pool, secretKey: Buffer | undefined) {
    this.pool = pool;
    this.secretKey = secretKey;
  }

  private async trunk(id: string): Promise<DialTrunk | undefined> {
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < CACHE_MS) return hit.t;
    const row = await loadTrunk(this.pool, id);
    if (!row) {
      this.cache.delete(id);
      return undefined;
    }
    // A wrong TOLK_SECRET_KEY throws SecretKeyError here (the start check makes it rare): the caller fails the call with it.
    const t = dialView(row, this.secretKey);
    this.cache.set(id, { t, at: Date.now() });
    return t;
  }

  /** Where and how the call to `e164` goes out through trunk `id`, after its slot; or why it does not. */
  async prepare(id: string, e164: string): Promise<TrunkDial> {
    const t = await this.trunk(id);
    const addr = t ? parseTrunkUri(t.uri) : undefined;
    if (!t || !addr) return { ok: false, reason: 'trunk_missing', detail: `trunk ${id} was removed` };
    if (t.state === 'down') return { ok: false, reason: 'trunk_down', detail: `trunk ${id} is down: ${t.state_reason ?? 'no answer to OPTIONS'}` };
    let waitMs = 0;
    if (t.max_cps !== null) {
      const { rows } = await this.pool.query<{ wait_s: number }>(
        `UPDATE trunks SET next_invite_at = greatest(next_invite_at, now()) + make_interval(secs => 1.0 / max_cps)
          WHERE id = $1 AND max_cps IS NOT NULL
            AND coalesce(next_invite_at, now()) <= now() + make_interval(secs => $2)
          RETURNING extract(epoch FROM next_invite_at - now())::float8 - 1.0 / max_cps AS wait_s`,
        [id, PACING_LIMIT_SECONDS],
      );
      if (!rows[0]) return { ok: false, reason: 'trunk_busy', detail: `trunk ${id} has more calls waiting than ${t.max_cps} calls per second clears in ${PACING_LIMIT_SECONDS} s` };
      waitMs = Math.max(0, Math.round(rows[0].wait_s * 1000));
    }
    const host = addr.host.includes(':') ? `[${addr.host}]` : addr.host;
    const target = `sip:${dialedNumber(t, e164)}@${host}:${addr.port}${addr.transport === 'tcp' ? ';transport=tcp' : ''}`;
    const route: TrunkRoute = {
      id: t.id,
      ...(t.proxy ? { proxy: t.proxy } : {}),
      domain: t.from_domain ?? addr.host,
      callerId: t.caller_id,
      privacy: t.privacy,
      ...(t.username ? { username: t.username } : {}),
      ...(t.username && t.password !== null ? { credentials: { username: t.username, password: t.password, ...(t.realm ? { realm: t.realm } : {}) } } : {}),
    };
    return { ok: true, target, route, waitMs };
  }
}
