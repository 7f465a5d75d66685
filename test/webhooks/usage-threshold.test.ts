import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withTx } from '../../src/db/pool.ts';
import { recordUsage } from '../../src/billing/ledger.ts';

// usage.threshold (api.md section 6): a key reaching 80% and 100% of its daily
// or monthly spending limit is told once per threshold and period, through the
// outbox, so it appears in the event log and goes to webhooks like any event.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

async function spend(k: { orgId: string; keyId: string }, minutes: number, livemode = false) {
  return withTx(t.pool, (tx) =>
    recordUsage(tx, { orgId: k.orgId, credentialId: k.keyId, livemode, kind: 'say', seconds: minutes * 60 }),
  );
}

async function thresholdEvents(secret: string) {
  const res = await t.request('GET', '/v1/events?type=usage.threshold', { key: secret });
  expect(res.status).toBe(200);
  return (await res.json()).data as Array<{ livemode: boolean; data: { object: Record<string, unknown> } }>;
}

describe('usage.threshold', () => {
  it('80% and 100% of the daily limit, each once; the monthly limit counts separately', async () => {
    const k = await t.key({ spendDay: 10, spendMonth: 40 });
    expect(await spend(k, 7)).toEqual([]);
    expect(await spend(k, 1)).toEqual([{ period: 'day', threshold: 80, limitMinutes: 10, spentMinutes: 8 }]);
    expect(await spend(k, 1)).toEqual([]);
    expect(await spend(k, 2)).toEqual([{ period: 'day', threshold: 100, limitMinutes: 10, spentMinutes: 11 }]);
    expect(await spend(k, 5)).toEqual([]);
    // 16 of 40 monthly minutes so far; 32 is 80%.
    const month = await spend(k, 16);
    expect(month).toEqual([{ period: 'month', threshold: 80, limitMinutes: 40, spentMinutes: 32 }]);

    const events = await thresholdEvents(k.secret);
    expect(events.map((e) => [e.data.object.period, e.data.object.threshold_percent])).toEqual([
      ['month', 80],
      ['day', 100],
      ['day', 80],
    ]);
    expect(events[2]!.data.object).toMatchObject({ id: k.keyId, credential_id: k.keyId, limit_minutes: 10, spent_minutes: 8 });
    expect(events.every((e) => e.livemode === false)).toBe(true);
  });

  it('twenty spends racing across the thresholds emit each threshold exactly once', async () => {
    const k = await t.key({ spendDay: 10 });
    const results = await Promise.all(Array.from({ length: 20 }, () => spend(k, 1)));
    const all = results.flat();
    expect(all.filter((r) => r.threshold === 80)).toHaveLength(1);
    expect(all.filter((r) => r.threshold === 100)).toHaveLength(1);
    expect(await thresholdEvents(k.secret)).toHaveLength(2);
  });

  it('a key without limits never emits; a live key emits live events', async () => {
    const free = await t.key();
    expect(await spend(free, 1000)).toEqual([]);
    const live = await t.key({ mode: 'live', spendMonth: 1 });
    expect(await spend(live, 1, true)).toHaveLength(2);
    const events = await thresholdEvents(live.secret);
    expect(events).toHaveLength(2);
    expect(events.every((e) => e.livemode === true)).toBe(true);
  });
});
