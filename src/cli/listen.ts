import { createHmac } from 'node:crypto';
import type { Command } from 'commander';
import type { PoolClient } from 'pg';
import type { Pool } from '../db/pool.ts';
import { linkSigningKey } from '../rooms/join-links.ts';
import { OUTBOX_CHANNEL } from '../db/after-commit.ts';
import { fromOutbox } from '../webhooks/envelope.ts';
import { postWebhook } from '../webhooks/outbound.ts';
import { EVENT_TYPES } from '../../machines/event-types.ts';
import { signatureHeaders } from '../webhooks/signing.ts';
import { UsageError } from './admin.ts';

// `tolk listen --org ORG --forward-to URL [--events t1,t2]`: the organization's
// test events, forwarded to a local url while it runs, as `stripe listen
// --forward-to` does. Nothing is registered: it reads the event log (the
// outbox) as events commit, woken by the outbox's notification and polling
// every second besides, and POSTs each event to the url signed exactly as a
// webhook delivery is (webhooks/signing.ts: Service-Signature and the
// Standard Webhooks headers), through the deliveries' own sender
// (webhooks/outbound.ts, with the url's origin allowed as
// TOLK_WEBHOOK_ALLOW_ORIGINS allows it). It forwards events from its start on,
// one at a time in the log's order, each once, and never retries.
//
// Output: one JSON object per line (NDJSON). First {"listening": true,
// "secret": "whsec_…", …}, then one line per event forwarded {"id", "type",
// "status", "latency_ms", "error"}, and on SIGINT or SIGTERM {"listening":
// false, "forwarded": n} before it exits 0.
//
// The secret is the same at every run for an organization on one database
// (derived from the database's own signing key), so a receiver configured
// with it once keeps verifying.

/** How often the log is read when no notification arrives. */
const POLL_MS = 1000;
/**
 * Rows are numbered when inserted, visible when committed: a row can appear
 * after one numbered above it. The log is read again from the lowest number
 * not yet this old, so such a row is still found; a transaction that writes
 * events commits well within it.
 */
const SETTLE_MS = 30_000;
const BATCH = 200;

export type ListenOptions = { org: string; forwardTo: string; events?: string };

/** The secret a listen of org signs with: `whsec_` and 24 bytes, like an endpoint's, stable per organization and database. */
export function listenSecret(signingKey: string, orgId: string): string {
  return `whsec_${createHmac('sha256', signingKey).update(`tolk listen:${orgId}`).digest().subarray(0, 24).toString('base64')}`;
}

/** The --forward-to url: http or https, no credentials. */
export function parseForwardTo(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`--forward-to must be an absolute http or https url, e.g. http://localhost:3000/webhooks (got '${raw.slice(0, 200)}')`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError('--forward-to must be an http or https url, e.g. http://localhost:3000/webhooks');
  if (url.username !== '' || url.password !== '') throw new UsageError('--forward-to must not contain a username or password');
  return url;
}

/** --events: exact types, or families such as `call.*`; null = every event. */
export function parseEvents(raw: string | undefined): ((type: string) => boolean) | null {
  if (raw === undefined) return null;
  const items = raw.split(',').map((x) => x.trim()).filter(Boolean);
  if (items.length === 0) throw new UsageError('--events must list event types, e.g. room.started,call.*');
  const exact = new Set<string>();
  const families: string[] = [];
  for (const item of items) {
    if (item === '*') return null;
    const family = item.endsWith('.*') ? item.slice(0, -2) : null;
    if (family !== null ? !EVENT_TYPES.some((t) => t.startsWith(`${family}.`)) : !(EVENT_TYPES as readonly string[]).includes(item)) {
      throw new UsageError(`--events: unknown event type '${item.slice(0, 60)}'`);
    }
    if (family !== null) families.push(`${family}.`);
    else exact.add(item);
  }
  return (type) => exact.has(type) || families.some((f) => type.startsWith(f));
}

type OutboxRow = { id: string; event_id: string; org_id: string; livemode: boolean; type: string; object_id: string; data: { object?: unknown } | null; created_at: Date };

/**
 * Runs the listen until SIGINT or SIGTERM. `print` writes one line of
 * stdout; `withDb` gives a pool on the configured database for the run.
 */
export async function listen(pool: Pool, o: ListenOptions, print: (x: unknown) => void): Promise<void> {
  const url = parseForwardTo(o.forwardTo);
  const wanted = parseEvents(o.events);
  const org = await pool.query(`SELECT id FROM organizations WHERE id = $1`, [o.org]);
  if (!org.rowCount) throw new UsageError(`--org: no organization ${o.org.slice(0, 64)}`);
  const secret = listenSecret(await linkSigningKey(pool), o.org);
  // From now on: what the log has already is not forwarded.
  const { rows: top } = await pool.query<{ max: string | null }>(`SELECT max(id)::text AS max FROM outbox`);
  let low = BigInt(top[0]?.max ?? '0');
  /** Rows forwarded above `low`, with when they were first read. */
  const seen = new Map<bigint, number>();

  let stopped = false;
  let wake: (() => void) | null = null;
  const nudge = () => { wake?.(); };
  const stop = () => { stopped = true; nudge(); };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  // The outbox's notification wakes the loop at once; polling covers a lost connection.
  let listener: PoolClient | null = null;
  try {
    listener = await pool.connect();
    listener.on('notification', nudge);
    listener.on('error', () => { /* polling goes on */ });
    await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  } catch {
    listener?.release(true);
    listener = null;
  }

  print({ listening: true, secret, forward_to: url.href, org_id: o.org, livemode: false, events: o.events ? o.events.split(',').map((x) => x.trim()).filter(Boolean) : ['*'] });
  let forwarded = 0;
  try {
    while (!stopped) {
      let rows: OutboxRow[] = [];
      try {
        ({ rows } = await pool.query<OutboxRow>(
          `SELECT id::text AS id, event_id, org_id, livemode, type, object_id, data, created_at FROM outbox
            WHERE id > $1 AND org_id = $2 AND livemode = false ORDER BY id LIMIT ${BATCH}`,
          [low.toString(), o.org],
        ));
      } catch (err) {
        process.stderr.write(`tolk listen: reading events failed (${err instanceof Error ? err.message : String(err)}); retrying\n`);
      }
      for (const r of rows) {
        if (stopped) break;
        const id = BigInt(r.id);
        if (seen.has(id)) continue;
        seen.set(id, Date.now());
        if (wanted && !wanted(r.type)) continue;
        const env = fromOutbox(r);
        const body = JSON.stringify(env);
        const t = Math.floor(Date.now() / 1000);
        const res = await postWebhook(url.href, body, signatureHeaders([secret], env.id, t, body), { allowOrigins: [url.origin] });
        forwarded++;
        print({ id: env.id, type: env.type, status: res.status, latency_ms: res.latencyMs, error: res.error });
      }
      // Read again from the first row not yet settled; forget what is below it.
      const settled = Date.now() - SETTLE_MS;
      let next = low;
      for (const [id, at] of [...seen].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
        if (at > settled) break;
        next = id;
      }
      if (next > low) {
        low = next;
        for (const id of seen.keys()) if (id <= low) seen.delete(id);
      }
      // A full batch: more are waiting.
      if (rows.length === BATCH || stopped) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => { clearTimeout(timer); wake = null; resolve(); };
      });
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (listener) {
      await listener.query(`UNLISTEN ${OUTBOX_CHANNEL}`).catch(() => {});
      listener.release();
    }
  }
  print({ listening: false, forwarded });
}

/** The command, registered on the CLI (main.ts). */
export function registerListen(program: Command, run: (o: ListenOptions) => Promise<void>): void {
  program.command('listen')
    .description("forward the organization's test events, signed, to a local url while it runs (NDJSON: one object per line)")
    .requiredOption('--org <id>')
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks')
    .option('--events <list>', 'event types or families to forward, e.g. room.started,call.* (default: all)')
    .action(async (o: ListenOptions) => {
      // Checked before the database is opened: a typo answers at once.
      parseForwardTo(o.forwardTo);
      parseEvents(o.events);
      await run(o);
    });
}
