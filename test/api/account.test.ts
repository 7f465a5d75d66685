import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, setOrg } from '../../src/cli/admin.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const today = () => new Date().toISOString().slice(0, 10);

/** Spending arrives with later features; they write to this ledger. */
async function spend(orgId: string, credentialId: string, livemode: boolean, seconds: number, at = new Date()) {
  await t.pool.query(
    `INSERT INTO usage_ledger (org_id, credential_id, livemode, kind, seconds, created_at) VALUES ($1, $2, $3, 'say', $4, $5)`,
    [orgId, credentialId, livemode, seconds, at],
  );
}

describe('GET /v1/me', () => {
  it('describes the key, its organization, permissions, limits and spending', async () => {
    const { secret, keyId, orgId } = await t.key({ name: 'CI key', permissions: 'rooms:read,usage:read', spendDay: 30, perCall: 5, rpm: 120 });
    await spend(orgId, keyId, false, 90);
    await spend(orgId, keyId, false, 60, new Date(Date.now() - 86_400_000 * 40)); // outside this month
    const me = await (await t.request('GET', '/v1/me', { key: secret })).json();
    expect(me.credential).toEqual({ kind: 'key', id: keyId, name: 'CI key', mode: 'test', needs_review: false });
    expect(me.organization).toEqual({ id: orgId, name: 'Test org' });
    expect(me.user).toBeNull();
    expect(me.permissions).toEqual(['rooms:read', 'usage:read']);
    expect(me.limits).toMatchObject({ spend_day_minutes: 30, spend_month_minutes: null, per_call_minutes: 5, requests_per_minute: 120, spent_today_minutes: 1.5 });
    expect(me.limits.spent_month_minutes).toBeGreaterThanOrEqual(1.5);
    expect(typeof me.pricing.api_minute_factor).toBe('number');
    expect(typeof me.pricing.listen_text_factor).toBe('number');
  });
});

describe('GET /v1/balance', () => {
  it('reports the organization balance for live keys and source test for test keys', async () => {
    const live = await t.key({ mode: 'live', minutes: 45 });
    const b = await (await t.request('GET', '/v1/balance', { key: live.secret })).json();
    expect(b).toEqual({ minutes_left: 45, seconds_left: 2700, low: false, source: 'organization', livemode: true });
    await setOrg(t.pool, live.orgId, { minutes: 5 });
    const low = await (await t.request('GET', '/v1/balance', { key: live.secret })).json();
    expect(low).toMatchObject({ minutes_left: 5, seconds_left: 300, low: true });
    const test = await createKey(t.pool, { org: live.orgId, mode: 'test' });
    const tb = await (await t.request('GET', '/v1/balance', { key: test.secret })).json();
    expect(tb).toMatchObject({ source: 'test', livemode: false });
  });
});

describe('GET /v1/usage', () => {
  it('groups minutes, requests and errors by day and by credential, per environment', async () => {
    const a = await t.key({ name: 'A' });
    const b = await createKey(t.pool, { org: a.orgId, mode: 'test', name: 'B' });
    const live = await createKey(t.pool, { org: a.orgId, mode: 'live', name: 'L' });
    await spend(a.orgId, a.keyId, false, 120);
    await spend(a.orgId, b.id, false, 30);
    await spend(a.orgId, live.id, true, 600); // live usage never shows to test keys
    await t.request('GET', '/v1/rooms', { key: a.secret });
    await t.request('GET', '/v1/rooms/room_nope', { key: a.secret }); // an error (404)

    const byDay = await (await t.request('GET', '/v1/usage', { key: a.secret })).json();
    expect(byDay.total_minutes).toBe(2.5);
    expect(byDay.to).toBe(today());
    const todayRow = byDay.data.find((d: { day: string }) => d.day === today());
    expect(todayRow.minutes).toBe(2.5);
    expect(byDay.requests).toBeGreaterThanOrEqual(2);
    expect(byDay.errors).toBeGreaterThanOrEqual(1);

    const byCred = await (await t.request('GET', `/v1/usage?group_by=credential&from=${today()}&to=${today()}`, { key: a.secret })).json();
    const rows = Object.fromEntries(byCred.data.map((d: { name: string; minutes: number }) => [d.name, d.minutes]));
    expect(rows).toMatchObject({ A: 2, B: 0.5 });
    expect(rows.L).toBeUndefined();

    const liveUsage = await (await t.request('GET', '/v1/usage', { key: live.secret })).json();
    expect(liveUsage.total_minutes).toBe(10);
  });

  it('rejects bad ranges naming the parameter', async () => {
    const { secret } = await t.key();
    for (const [q, field] of [['from=yesterday', 'from'], ['from=2026-05-02&to=2026-05-01', 'from'], ['from=2020-01-01&to=2026-01-01', 'from'], ['group_by=week', 'group_by'], ['to=2026-13-45', 'to']]) {
      const res = await t.request('GET', `/v1/usage?${q}`, { key: secret });
      expect(res.status, q).toBe(400);
      const p = await res.json();
      expect(p.code).toBe('invalid_request');
      expect(p.message.startsWith(`${field}:`), p.message).toBe(true);
    }
  });
});

describe('catalogs and numbers', () => {
  it("lists the organization's numbers first and the shared number last", async () => {
    const { secret, orgId } = await t.key();
    const { addNumber } = await import('../../src/cli/admin.ts');
    const first = await (await t.request('GET', '/v1/numbers', { key: secret })).json();
    expect(first.data).toEqual([expect.objectContaining({ shared: true, default: true, status: 'active' })]);
    const n = await addNumber(t.pool, { org: orgId, e164: '+5511999990000', label: 'SP', default: true });
    const after = await (await t.request('GET', '/v1/numbers', { key: secret })).json();
    expect(after.data.map((x: { id: string; default: boolean; shared: boolean }) => [x.id === n.id, x.default, x.shared])).toEqual([[true, true, false], [false, false, true]]);
  });
});
