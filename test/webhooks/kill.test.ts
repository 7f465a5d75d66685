import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import Stripe from 'stripe';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';

// A server process killed (SIGKILL) with webhook deliveries in flight, queued
// and not yet dispatched; a new process on the same database delivers every
// event. Duplicates are allowed (api.md: deduplicate by id) and carry the same
// event id and body.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

let db: TestDb;
let pool: pg.Pool;
let rx: Receiver;
const servers: ServerProcess[] = [];
const stripe = new Stripe('sk_test_verifier_only');

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 3);
  rx = await startReceiver();
});
afterAll(async () => {
  for (const s of servers) await s.kill();
  await pool?.end();
  await rx?.close();
  await db?.drop();
});

describe('deliveries survive a killed process', () => {
  it('every event is delivered after SIGKILL and a restart', async () => {
    const org = await createOrg(pool, { name: 'Kill' });
    const key = await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 });
    // Heartbeats of dead workers are looked for every 2 s instead of 30 s, so the test is short.
    const env = { TOLK_WEBHOOK_ALLOW_ORIGINS: rx.origin, TOLK_JOB_MONITOR_SECONDS: '2' };
    const first = await startServerProcess(db.url, env);
    servers.push(first);
    const call = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });

    const epRes = await call(first.base, 'POST', '/v1/webhook-endpoints', { url: rx.url, events: ['room.started'] });
    expect(epRes.status).toBe(201);
    const ep = (await epRes.json()) as { id: string; secret: string };

    // The receiver holds its answers: attempts are in flight when the process dies.
    rx.respond.delayMs = 3000;
    const N = 40;
    const created = await Promise.all(
      Array.from({ length: N }, async () => {
        const res = await call(first.base, 'POST', '/v1/rooms', {}, { 'idempotency-key': crypto.randomUUID() });
        expect(res.status).toBe(201);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    await rx.waitFor(5, 20_000);
    await first.kill();
    const { rows: states } = await pool.query(
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE status = 'succeeded') AS succeeded,
              (SELECT count(*)::int FROM outbox_queue) AS undispatched`,
    );
    // Nothing was acknowledged before the kill: every delivery is still owed.
    expect(states[0].succeeded).toBe(0);

    rx.respond.delayMs = 0;
    const second = await startServerProcess(db.url, env);
    servers.push(second);

    const { rows: events } = await pool.query<{ event_id: string; object_id: string }>(
      `SELECT event_id, object_id FROM outbox WHERE org_id = $1 AND type = 'room.started'`,
      [org.id],
    );
    expect(events.map((e) => e.object_id).sort()).toEqual([...created].sort());
    await until('every delivery to succeed', async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [ep.id]);
      return rows[0].n === N;
    }, 90_000);

    // The receiver got every event, verified with the endpoint's secret, answered 2xx at least once.
    const byId = new Map<string, string[]>();
    for (const r of rx.received) {
      const event = stripe.webhooks.constructEvent(r.body, String(r.headers['service-signature']), ep.secret) as unknown as { id: string };
      if (r.answered >= 200 && r.answered < 300) byId.set(event.id, [...(byId.get(event.id) ?? []), r.body]);
    }
    for (const e of events) {
      const bodies = byId.get(e.event_id);
      expect(bodies, `event ${e.event_id} delivered`).toBeDefined();
      // A duplicate is the same event: same id, same body.
      expect(new Set(bodies).size).toBe(1);
    }
  });
});
