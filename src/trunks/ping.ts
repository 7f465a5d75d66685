import { lookup } from 'node:dns/promises';
import net from 'node:net';
import type { Pool, Queryable } from '../db/pool.ts';
import type { SipSignaling } from '../../gateway/signaling.ts';
import { parseTrunkUri } from './trunks.ts';

// The trunks' health (operator.md: OPTIONS pings) and where they call from.
//
// Every gateway process runs the loop, and every TOLK_TRUNK_PING_SECONDS
// each trunk is pinged by one of them: the one that claims it (pinged_at,
// FOR UPDATE SKIP LOCKED), so more gateways do not ping a carrier more. Any
// SIP answer but 408/503 marks it up; two misses in a row mark it down, with
// why. A down trunk's calls fail at once (trunk_down, dial.ts)
// instead of waiting out a ring timeout each; its next answer brings it back.
//
// TrunkSources is what the SIP stack asks of an INVITE from outside our
// dialogs: whether its source is one of our trunks (480: we take no calls
// yet) or anyone else (403). A cache refreshed on the same loop: losing it
// only makes a trunk's INVITE a 403 until the next refresh.

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/** Misses in a row after which a trunk is down. */
export const DOWN_AFTER_MISSES = 2;

export class TrunkSources {
  private addresses = new Set<string>();
  has(address: string): boolean {
    return this.addresses.has(address.replace(/^::ffff:/, ''));
  }
  /** Every trunk's (and proxy's) host, resolved: the addresses trunks send from. */
  async refresh(pool: Pool): Promise<void> {
    const { rows } = await pool.query<{ uri: string; proxy: string | null }>(`SELECT uri, proxy FROM trunks`);
    const hosts = new Set<string>();
    for (const r of rows) {
      for (const u of [r.uri, r.proxy]) {
        const a = u ? parseTrunkUri(u) : undefined;
        if (a) hosts.add(a.host);
      }
    }
    const next = new Set<string>();
    await Promise.all([...hosts].map(async (h) => {
      if (net.isIP(h)) return void next.add(h);
      try {
        for (const a of await lookup(h, { all: true })) next.add(a.address);
      } catch {
        // Unresolvable now: its INVITEs are strangers' until it resolves.
      }
    }));
    this.addresses = next;
  }
}

/**
 * Whether an INVITE from `address` comes from trunk `trunkId` (its host's or its proxy's address,
 * resolved): an inbound number's calls come from its own trunk only (operator.md).
 */
export async function trunkSendsFrom(db: Queryable, trunkId: string, address: string): Promise<boolean> {
  const { rows } = await db.query<{ uri: string; proxy: string | null }>(`SELECT uri, proxy FROM trunks WHERE id = $1`, [trunkId]);
  const from = address.replace(/^::ffff:/, '');
  for (const u of [rows[0]?.uri, rows[0]?.proxy]) {
    const host = u ? parseTrunkUri(u)?.host : undefined;
    if (!host) continue;
    if (net.isIP(host)) {
      if (host === from) return true;
      continue;
    }
    const found = await lookup(host, { all: true }).catch(() => []);
    if (found.some((a) => a.address === from)) return true;
  }
  return false;
}

type Due = { id: string; uri: string; proxy: string | null; state: string; misses: number };

/**
 * Pings the trunks due (claimed by this process) and records what each
 * answered; returns how many it pinged. One pass; startTrunkHealth repeats it.
 */
export async function pingDueTrunks(pool: Pool, sip: SipSignaling, everySeconds: number, log: Log): Promise<number> {
  if (!sip.ping) return 0;
  const { rows } = await pool.query<Due>(
    `UPDATE trunks SET pinged_at = now()
      WHERE id IN (SELECT id FROM trunks WHERE pinged_at IS NULL OR pinged_at <= now() - make_interval(secs => $1)
                    ORDER BY pinged_at NULLS FIRST LIMIT 100 FOR UPDATE SKIP LOCKED)
      RETURNING id, uri, proxy, state, misses`,
    [everySeconds * 0.9],
  );
  // A ping waits at most the interval (between 1 and 5 s): a dead trunk is down within two intervals of that.
  const timeoutMs = Math.min(5000, Math.max(1000, everySeconds * 1000));
  await Promise.all(rows.map(async (t) => {
    const r = await sip.ping!(t.uri, { ...(t.proxy ? { proxy: t.proxy } : {}), timeoutMs });
    if (r.ok) {
      const { rows: changed } = await pool.query<{ was: string }>(
        `UPDATE trunks SET misses = 0, state = 'up', state_reason = $2,
                state_since = CASE WHEN state = 'up' THEN state_since ELSE now() END
          WHERE id = $1 RETURNING (SELECT state FROM trunks WHERE id = $1) AS was`,
        [t.id, `answered OPTIONS ${r.status}`],
      );
      if (changed[0] && changed[0].was !== 'up') log.info({ trunk: t.id, status: r.status }, 'trunk up: it answers OPTIONS');
      return;
    }
    const { rows: changed } = await pool.query<{ state: string; was: string }>(
      `UPDATE trunks SET misses = misses + 1,
              state = CASE WHEN misses + 1 >= $3 THEN 'down' ELSE state END,
              state_reason = CASE WHEN misses + 1 >= $3 THEN $2 ELSE state_reason END,
              state_since = CASE WHEN misses + 1 >= $3 AND state <> 'down' THEN now() ELSE state_since END
        WHERE id = $1 RETURNING state, (SELECT state FROM trunks WHERE id = $1) AS was`,
      [t.id, r.reason, DOWN_AFTER_MISSES],
    );
    if (changed[0]?.state === 'down' && changed[0].was !== 'down') log.warn({ trunk: t.id, reason: r.reason }, 'trunk down: its calls fail until it answers OPTIONS again');
  }));
  return rows.length;
}

/** The loop of one gateway process: pings and the sources' refresh, every TOLK_TRUNK_PING_SECONDS / 4 (each trunk is due once an interval). */
export function startTrunkHealth(pool: Pool, sip: SipSignaling, sources: TrunkSources, everySeconds: number, log: Log): { stop: () => Promise<void> } {
  let running: Promise<unknown> | null = null;
  const pass = () => {
    running ??= Promise.all([
      pingDueTrunks(pool, sip, everySeconds, log),
      sources.refresh(pool),
    ]).catch((err) => log.error({ err }, 'trunk health check failed'))
      .finally(() => { running = null; });
  };
  pass();
  const timer = setInterval(pass, Math.max(100, (everySeconds * 1000) / 4));
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
