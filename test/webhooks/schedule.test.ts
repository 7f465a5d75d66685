import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { attemptDeliveries, dispatchOutbox } from '../../src/webhooks/delivery.ts';

// The retry schedule and the 3-day disabling rule, walked with a controllable
// clock instead of waiting: the service's clock is a variable the test moves,
// each attempt is the same function the pg-boss worker runs, and the next
// attempt must be queued in pg-boss with the wait of api.md section 6.

const MIN = 60_000;
const SCHEDULE_MS = [1 * MIN, 5 * MIN, 30 * MIN, 120 * MIN, 360 * MIN, 720 * MIN, 1440 * MIN, 1440 * MIN];

let clock = new Date('2026-11-22T10:00:00Z');
let t: TestApp;
let rx: Receiver;
let key: string;
let orgId: string;

beforeAll(async () => {
  rx = await startReceiver();
  rx.respond.status = 500;
  // Workers off: the test runs each attempt itself, at the time it chooses.
  t = await startTestApp({ workers: false, clock: () => clock, config: { webhookAllowOrigins: [rx.origin] } });
});
beforeEach(async () => {
  clock = new Date('2026-11-22T10:00:00Z');
  const org = await createOrg(t.pool, { name: 'Owner org', ownerEmail: 'owner@example.com' });
  orgId = org.id;
  key = (await createKey(t.pool, { org: org.id, mode: 'test', rpm: 100_000 })).secret;
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

async function endpoint() {
  const res = await t.request('POST', '/v1/webhook-endpoints', { key, body: { url: rx.url, events: ['room.started'] } });
  expect(res.status).toBe(201);
  return res.json();
}

/** A room.started event dispatched to the endpoint; returns its delivery id. */
async function delivery(endpointId: string): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key, body: {}, headers: { 'idempotency-key': crypto.randomUUID() } });
  expect(res.status).toBe(201);
  await dispatchOutbox(t.services);
  const { rows } = await t.pool.query(
    `SELECT id FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC LIMIT 1`,
    [endpointId],
  );
  return rows[0].id;
}

async function queuedAttempt(deliveryId: string, n: number) {
  const { rows } = await t.pool.query(
    `SELECT start_after, created_on FROM pgboss.job WHERE name = 'webhook-deliver' AND data->>'deliveryId' = $1 AND (data->>'n')::int = $2`,
    [deliveryId, n],
  );
  return rows[0] as { start_after: Date; created_on: Date } | undefined;
}

const state = async (deliveryId: string) =>
  (await t.pool.query(`SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE id = $1`, [deliveryId])).rows[0];
const endpointRow = async (id: string) =>
  (await t.pool.query(`SELECT status, failing_since, disabled_reason FROM webhook_endpoints WHERE id = $1`, [id])).rows[0];
const mails = async () =>
  (await t.pool.query(`SELECT to_addr, subject, text FROM mail_outbox WHERE org_id = $1`, [orgId])).rows;

describe('retry schedule', () => {
  it('retries after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h, then gives up, disables the endpoint and mails the owner', async () => {
    const ep = await endpoint();
    const id = await delivery(ep.id);
    expect(await queuedAttempt(id, 1), 'first attempt queued by the dispatcher').toBeDefined();
    const start = clock.getTime();
    for (let n = 1; n <= 9; n++) {
      const [o] = await attemptDeliveries(t.services, [{ deliveryId: id, n }], 'schedule');
      expect(o).toMatchObject({ ok: false, status: 500 });
      const d = await state(id);
      expect(d.attempts).toBe(n);
      if (n < 9) {
        const wait = SCHEDULE_MS[n - 1]!;
        expect(d.status).toBe('pending');
        expect(d.next_attempt_at.getTime() - clock.getTime(), `wait after attempt ${n}`).toBe(wait);
        // The next attempt is a pg-boss job that becomes runnable after that wait.
        const job = await queuedAttempt(id, n + 1);
        expect(job, `attempt ${n + 1} queued`).toBeDefined();
        expect(Math.abs(job!.start_after.getTime() - job!.created_on.getTime() - wait)).toBeLessThan(5000);
        expect((await endpointRow(ep.id)).status, `still active after attempt ${n}`).toBe('active');
        clock = new Date(clock.getTime() + wait);
      }
    }
    expect(clock.getTime() - start).toBe(SCHEDULE_MS.reduce((a, b) => a + b, 0)); // about 3 days
    expect(await state(id)).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(await queuedAttempt(id, 10)).toBeUndefined();
    expect(rx.received.filter((r) => JSON.parse(r.body).type === 'room.started').length).toBeGreaterThanOrEqual(9);

    const row = await endpointRow(ep.id);
    expect(row.status).toBe('disabled');
    expect(row.disabled_reason).toContain('2026-11-22T10:00:00.000Z');
    const listed = await (await t.request('GET', '/v1/webhook-endpoints', { key })).json();
    expect(listed.data.find((e: any) => e.id === ep.id).status).toBe('disabled');
    const m = await mails();
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({ to_addr: 'owner@example.com' });
    expect(m[0].subject).toContain('disabled');
    expect(m[0].text).toContain(ep.id);

    // A disabled endpoint gets no new deliveries, and a queued attempt for it is dropped.
    const other = await delivery(ep.id);
    expect(other).toBe(id);
  });

  it('an endpoint failing continuously for 3 days is disabled even while a delivery still has retries left', async () => {
    const ep = await endpoint();
    const a = await delivery(ep.id);
    await attemptDeliveries(t.services, [{ deliveryId: a, n: 1 }], 'schedule');
    clock = new Date(clock.getTime() + 2 * 24 * 60 * MIN);
    const b = await delivery(ep.id);
    await attemptDeliveries(t.services, [{ deliveryId: b, n: 1 }], 'schedule');
    expect((await endpointRow(ep.id)).status, 'two days of failures').toBe('active');
    clock = new Date(clock.getTime() + 24 * 60 * MIN);
    await attemptDeliveries(t.services, [{ deliveryId: b, n: 2 }], 'schedule');
    expect((await endpointRow(ep.id)).status, 'three days of failures').toBe('disabled');
    expect(await mails()).toHaveLength(1);
    // Its pending deliveries are not attempted any more.
    const before = rx.received.length;
    const [o] = await attemptDeliveries(t.services, [{ deliveryId: a, n: 2 }], 'schedule');
    expect(o!.skipped).toBe('endpoint disabled');
    expect(rx.received.length).toBe(before);
    expect((await state(a)).status).toBe('failed');
  });

  it('one success resets the count: failures on both sides of it never add up to 3 days', async () => {
    const ep = await endpoint();
    const a = await delivery(ep.id);
    await attemptDeliveries(t.services, [{ deliveryId: a, n: 1 }], 'schedule');
    clock = new Date(clock.getTime() + 2 * 24 * 60 * MIN);
    rx.respond.status = 204;
    try {
      const [ok] = await attemptDeliveries(t.services, [{ deliveryId: a, n: 2 }], 'schedule');
      expect(ok).toMatchObject({ ok: true, status: 204 });
    } finally {
      rx.respond.status = 500;
    }
    expect((await endpointRow(ep.id)).failing_since).toBeNull();
    expect(await state(a)).toMatchObject({ status: 'succeeded', next_attempt_at: null });
    clock = new Date(clock.getTime() + 2 * 24 * 60 * MIN);
    const b = await delivery(ep.id);
    await attemptDeliveries(t.services, [{ deliveryId: b, n: 1 }], 'schedule');
    expect((await endpointRow(ep.id)).status).toBe('active');
    expect(await mails()).toHaveLength(0);
    // A queued retry of a delivery that already succeeded sends nothing.
    const before = rx.received.length;
    const [o] = await attemptDeliveries(t.services, [{ deliveryId: a, n: 3 }], 'schedule');
    expect(o!.skipped).toBe('delivery already succeeded');
    expect(rx.received.length).toBe(before);
  });
});
