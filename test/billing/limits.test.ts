import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withTx } from '../../src/db/pool.ts';
import { assertCanSpend, exceeds, lockSpending, spendVerdicts, type SpendCheck } from '../../src/billing/limits.ts';
import { recordUsage } from '../../src/billing/ledger.ts';
import type { UsageEntry } from '../../src/billing/usage.ts';
import { findCredentialByHash, hashSecret, type Credential } from '../../src/credentials.ts';
import { ApiError } from '../../src/errors.ts';

// Spending limits (api.md section 5 and 8; src/billing/limits.ts) under the
// one rule: an action is refused when usage plus its own cost would pass the
// limit; every action costs at least a microsecond, so at a limit reached
// exactly everything metered is refused (a read, whose cost is 0, too).
// Amounts compare in whole microseconds, so inexact floating-point minutes
// and fractional listening charges land exactly on the limit.
//
// Over HTTP the says run on a test key (agent sessions are test-only). The
// app has no workers (startTestApp defaults to workers: false, and only
// startWorkers starts the simulator of src/sim/engine.ts), so the robots never
// speak and no listening charge lands on a session between two says; joins
// use announce: false so no announcement is heard either. Each 150-character
// say is 10 s spoken, heard in the room's two robot languages: 20 s charged.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ config: { maxSessions: 50 } });
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const TEXT = 'a'.repeat(150);
const CHARGE = 20;

type Key = { orgId: string; keyId: string; secret: string };

async function newKey(o: Parameters<TestApp['key']>[0] = {}): Promise<Key> {
  return t.key({ rpm: 100_000, ...o });
}

async function room(k: Key, langs: string[] = ['en', 'es']): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key: k.secret, body: { title: 'Billing', langs }, headers: idem() });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).id;
}

async function join(k: Key, roomId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, {
    key: k.secret, body: { speak_lang: 'en', hear_lang: 'en', announce: false, ...body }, headers: idem(),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  const s = await res.json();
  expect(s.billed_seconds).toBe(0);
  return s.id;
}

async function session(k: Key): Promise<{ roomId: string; sessionId: string }> {
  const roomId = await room(k);
  return { roomId, sessionId: await join(k, roomId) };
}

const say = (k: Key, sessionId: string, text = TEXT) => t.request('POST', `/v1/sessions/${sessionId}/say`, { key: k.secret, body: { text } });

async function expect202(res: Awaited<ReturnType<typeof say>>, charged = CHARGE) {
  expect(res.status, await res.clone().text()).toBe(202);
  expect((await res.json()).charged_seconds).toBe(charged);
}

async function expect402(res: Awaited<ReturnType<typeof say>>, what: RegExp) {
  expect(res.status, await res.clone().text()).toBe(402);
  const body = await res.json();
  expect(body.code).toBe('spend_limit_reached');
  expect(body.message).toMatch(what);
}

async function ledger(keyId: string): Promise<{ seconds: number; rows: number }> {
  const { rows } = await t.pool.query(
    `SELECT coalesce(sum(seconds), 0)::float AS seconds, count(*)::int AS rows FROM usage_ledger WHERE credential_id = $1`,
    [keyId],
  );
  return rows[0];
}

async function billed(k: Key, sessionId: string): Promise<number> {
  const res = await t.request('GET', `/v1/sessions/${sessionId}`, { key: k.secret });
  expect(res.status).toBe(200);
  return (await res.json()).billed_seconds;
}

/** Reads the session's events from the start (no wait): the speakers heard. */
async function heard(k: Key, sessionId: string): Promise<Array<string | null>> {
  const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0&wait=0`, { key: k.secret });
  expect(res.status).toBe(200);
  return (await res.json()).events.map((e: { speaker: string | null }) => e.speaker);
}

/** No robot said anything in the room: the exact charges above depend on it (workers off). */
async function expectRobotsSilent(roomId: string) {
  expect(t.workers).toBeNull();
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM room_segments WHERE room_id = $1 AND kind = 'robot'`, [roomId]);
  expect(rows[0].n).toBe(0);
}

async function credential(secret: string): Promise<Credential> {
  const cred = await findCredentialByHash(t.pool, hashSecret(secret));
  expect(cred).not.toBeNull();
  return cred!;
}

async function record(entries: UsageEntry | UsageEntry[], at?: Date) {
  return withTx(t.pool, (tx) => recordUsage(tx, entries, at));
}

const entry = (k: Key, seconds: number, livemode = false, kind = 'say'): UsageEntry => ({
  orgId: k.orgId, credentialId: k.keyId, livemode, kind, seconds,
});

async function verdicts(checks: SpendCheck[], at?: Date): Promise<Array<string | null>> {
  return (await spendVerdicts(t.pool, checks, at)).map((e) => {
    if (e === null) return null;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('spend_limit_reached');
    expect(e.status).toBe(402);
    return e.message;
  });
}

async function orgBalance(orgId: string): Promise<number> {
  const { rows } = await t.pool.query(`SELECT balance_seconds FROM organizations WHERE id = $1`, [orgId]);
  return Number(rows[0].balance_seconds);
}

describe('exceeds: the boundaries of the one rule', () => {
  it('usage plus cost landing exactly on the limit is allowed; one microsecond more is refused', () => {
    expect(exceeds(40, 20, 20)).toBe(false);
    expect(exceeds(40, 20, 20.000001)).toBe(true);
    expect(exceeds(40, 20.000001, 20)).toBe(true);
    expect(exceeds(40, 0, 40)).toBe(false);
    expect(exceeds(40, 0, 40.000001)).toBe(true);
    // Less than half a microsecond is no amount at all.
    expect(exceeds(40, 20, 20.0000004)).toBe(false);
  });

  it('at a limit reached exactly even a 0-cost action (reading events) is refused; a microsecond below it, allowed', () => {
    expect(exceeds(40, 40, 0)).toBe(true);
    expect(exceeds(40, 39.999999, 0)).toBe(false);
    expect(exceeds(40, 39.999999, 0.000001)).toBe(false);
    expect(exceeds(40, 39.999999, 0.000002)).toBe(true);
    // A limit of 0 refuses everything metered, from the start.
    expect(exceeds(0, 0, 0)).toBe(true);
    // Past the limit (usage recorded before the limit was lowered) stays refused.
    expect(exceeds(40, 41, 0)).toBe(true);
  });

  it('minute limits that are inexact in floating point compare exactly', () => {
    // 0.05 min = 3 s; 0.1 min = 6 s.
    expect(exceeds(0.05 * 60, 2, 1)).toBe(false);
    expect(exceeds(0.05 * 60, 3, 0)).toBe(true);
    expect(exceeds(0.1 * 60, 5.9, 0.1)).toBe(false);
    expect(exceeds(0.1 * 60, 6, 0)).toBe(true);
    // 0.015 min * 60 is 0.8999999999999999 in floating point, yet it is 0.9 s:
    // 0.5 s used and 0.4 s more reach it exactly (0.5 + 0.4 = 0.9 > 0.8999999999999999 naively).
    expect(0.015 * 60).not.toBe(0.9);
    expect(exceeds(0.015 * 60, 0.5, 0.4)).toBe(false);
    expect(exceeds(0.015 * 60, 0.9, 0)).toBe(true);
    // 0.1 + 0.2 s of listening is 0.30000000000000004 in floating point: it reaches a 0.3 s limit, not passes it.
    expect(exceeds(0.4, 0.1 + 0.2, 0.1)).toBe(false);
    expect(exceeds(0.3, 0.1 + 0.2, 0)).toBe(true);
    expect(exceeds(0.3, 0.1, 0.2)).toBe(false);
    // Thirty listening charges of 0.1 s add up to 3.0000000000000013 naively: exactly the 0.05 min limit.
    let used = 0;
    for (let i = 0; i < 29; i++) used += 0.1;
    expect(exceeds(0.05 * 60, used, 0.1)).toBe(false);
    expect(exceeds(0.05 * 60, used + 0.1, 0)).toBe(true);
  });

  it('costs of a third of a second add up to the limit exactly', () => {
    const third = 1 / 3;
    expect(exceeds(1, 0, third)).toBe(false);
    expect(exceeds(1, third, third)).toBe(false);
    expect(exceeds(1, third + third, third)).toBe(false); // 666667 + 333333 µs = 1 s
    expect(exceeds(1, third + third + third, 0)).toBe(true);
    expect(exceeds(1, third + third, third + 0.000001)).toBe(true);
    // A limit of 1/3 min (20 s) takes exactly 60 costs of a third of a second.
    let spent = 0;
    for (let i = 0; i < 60; i++) {
      expect(exceeds((1 / 3) * 60, spent, third), `third #${i + 1}`).toBe(false);
      spent += third;
    }
    expect(exceeds((1 / 3) * 60, spent, 0)).toBe(true);
  });

  it('agrees with integer microsecond arithmetic for any amounts', () => {
    const micros = fc.integer({ min: 0, max: 10_000_000_000 }); // up to ~2.8 hours
    fc.assert(
      fc.property(micros, micros, micros, (limit, used, cost) => {
        const expected = used + Math.max(1, cost) > limit;
        expect(exceeds(limit / 1e6, used / 1e6, cost / 1e6)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('limits over HTTP: says on a test key', () => {
  it('daily limit: two says land exactly on it (202, 202), the third is 402, and reading events is refused at the limit', async () => {
    const k = await newKey({ spendDay: 40 / 60 }); // 40 s, stored as 0.6666666666666666 min
    const { roomId, sessionId } = await session(k);
    await expect202(await say(k, sessionId));
    await expect202(await say(k, sessionId));
    await expect402(await say(k, sessionId), /daily limit/);
    // A shorter say is refused too: the limit is reached, every metered action is.
    await expect402(await say(k, sessionId, 'hi'), /daily limit/);
    expect(await ledger(k.keyId)).toEqual({ seconds: 2 * CHARGE, rows: 2 });
    expect(await billed(k, sessionId)).toBe(2 * CHARGE);
    const me = await (await t.request('GET', '/v1/me', { key: k.secret })).json();
    expect(me.limits.spent_today_minutes).toBe(0.667);
    expect(me.limits.spent_month_minutes).toBe(0.667);
    // Reading costs 0 but is refused once the usage has reached the limit.
    const read = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0&wait=0`, { key: k.secret });
    await expect402(read, /daily limit/);
    // Unmetered requests still answer.
    expect((await t.request('GET', `/v1/sessions/${sessionId}`, { key: k.secret })).status).toBe(200);
    await expectRobotsSilent(roomId);
  });

  it('daily limit one second short: the second say is 402 and nothing of it is charged', async () => {
    const k = await newKey({ spendDay: 39 / 60 });
    const { roomId, sessionId } = await session(k);
    await expect202(await say(k, sessionId));
    await expect402(await say(k, sessionId), /daily limit of 0\.65 minutes/);
    expect(await ledger(k.keyId)).toEqual({ seconds: CHARGE, rows: 1 });
    expect(await billed(k, sessionId)).toBe(CHARGE);
    // The refused say was not spoken: the room heard one utterance.
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM room_segments WHERE room_id = $1 AND kind = 'agent'`, [roomId]);
    expect(rows[0].n).toBe(1);
    // Below the limit, reading is allowed.
    expect((await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0&wait=0`, { key: k.secret })).status).toBe(200);
    await expectRobotsSilent(roomId);
  });

  it('a daily limit of 0 refuses the first say', async () => {
    const k = await newKey({ spendDay: 0 });
    const { sessionId } = await session(k);
    await expect402(await say(k, sessionId, 'x'), /daily limit of 0 minutes/);
    expect(await ledger(k.keyId)).toEqual({ seconds: 0, rows: 0 });
  });

  it('monthly limit: two says land exactly on it, the third is 402; one second less refuses the second', async () => {
    const k = await newKey({ spendMonth: 40 / 60 });
    const { roomId, sessionId } = await session(k);
    await expect202(await say(k, sessionId));
    await expect202(await say(k, sessionId));
    await expect402(await say(k, sessionId), /monthly limit/);
    await expect402(await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0`, { key: k.secret }), /monthly limit/);
    expect(await ledger(k.keyId)).toEqual({ seconds: 2 * CHARGE, rows: 2 });
    await expectRobotsSilent(roomId);

    const short = await newKey({ spendMonth: 39 / 60 });
    const s2 = await session(short);
    await expect202(await say(short, s2.sessionId));
    await expect402(await say(short, s2.sessionId), /monthly limit/);
    expect(await ledger(short.keyId)).toEqual({ seconds: CHARGE, rows: 1 });
  });

  it('per-call limit: the session\'s billed total counts; two says fit exactly, a new session starts again from 0', async () => {
    const k = await newKey({ perCall: 40 / 60 });
    const { roomId, sessionId } = await session(k);
    await expect202(await say(k, sessionId));
    await expect202(await say(k, sessionId));
    await expect402(await say(k, sessionId), /per-call limit/);
    expect(await billed(k, sessionId)).toBe(2 * CHARGE);
    await expect402(await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0`, { key: k.secret }), /per-call limit/);
    // The limit is per call: another session of the same key may spend it again.
    const other = await join(k, await room(k));
    await expect202(await say(k, other));
    await expect202(await say(k, other));
    await expect402(await say(k, other), /per-call limit/);
    expect(await ledger(k.keyId)).toEqual({ seconds: 4 * CHARGE, rows: 4 });
    await expectRobotsSilent(roomId);

    const short = await newKey({ perCall: 39 / 60 });
    const s2 = await session(short);
    await expect202(await say(short, s2.sessionId));
    await expect402(await say(short, s2.sessionId), /per-call limit/);
    expect(await billed(short, s2.sessionId)).toBe(CHARGE);
  });

  it('per-call limit: what the session heard counts with what it said', async () => {
    // A (limited) hears in en, B (another key, no limits) in es: both robot
    // languages, so every say here is still heard in 2 languages (20 s).
    // A hears B's 10 s say and pays a tenth of it when it reads it: 1 s of listening.
    for (const [limit, second] of [[41, 202], [40, 402]] as const) {
      const a = await newKey({ perCall: limit / 60 });
      const b = await newKey({ org: a.orgId });
      const roomId = await room(a);
      const sa = await join(a, roomId, { name: 'A', hear_lang: 'en' });
      const sb = await join(b, roomId, { name: 'B', speak_lang: 'es', hear_lang: 'es' });
      await expect202(await say(b, sb));
      // Listening is billed as it is delivered, once: nothing before A reads, 1 s after, nothing more on a re-read.
      expect(await billed(a, sa)).toBe(0);
      expect(await heard(a, sa)).toEqual(['B']);
      expect(await billed(a, sa)).toBe(1);
      expect(await heard(a, sa)).toEqual(['B']);
      expect(await billed(a, sa)).toBe(1);
      await expect202(await say(a, sa));
      expect(await billed(a, sa)).toBe(21);
      if (second === 202) {
        await expect202(await say(a, sa)); // 21 + 20 = 41: exactly the limit
        expect(await billed(a, sa)).toBe(41);
        await expect402(await say(a, sa, 'x'), /per-call limit of 0\.68/);
      } else {
        await expect402(await say(a, sa), /per-call limit/); // 21 + 20 = 41 > 40
        expect(await billed(a, sa)).toBe(21);
      }
      expect(await ledger(a.keyId)).toEqual({ seconds: second === 202 ? 41 : 21, rows: second === 202 ? 3 : 2 });
      await expectRobotsSilent(roomId);
    }
  });

  it('a test key charges nothing: an organization with no minutes left can still say, and no balance moves', async () => {
    const k = await newKey({ minutes: 0 });
    const { sessionId } = await session(k);
    await expect202(await say(k, sessionId));
    expect(await orgBalance(k.orgId)).toBe(0);
    const { rows } = await t.pool.query(`SELECT livemode FROM usage_ledger WHERE credential_id = $1`, [k.keyId]);
    expect(rows).toEqual([{ livemode: false }]);
  });
});

describe('limits checked directly: spendVerdicts and assertCanSpend', () => {
  it('live balance: a cost equal to the balance is allowed, a microsecond more is refused, a 0-cost read at balance 0 is refused', async () => {
    const live = await newKey({ mode: 'live', minutes: 1 });
    const cred = await credential(live.secret);
    expect(cred.livemode).toBe(true);
    expect(await orgBalance(live.orgId)).toBe(60);
    const balanceMsg = /minutes left on the balance/;

    expect(await verdicts([{ cred, seconds: 60 }])).toEqual([null]);
    const [over] = await verdicts([{ cred, seconds: 60.000001 }]);
    expect(over).toMatch(balanceMsg);
    expect(await verdicts([{ cred, seconds: 0 }])).toEqual([null]);

    // assertCanSpend, as the spenders call it: under the key's lock, in the spend's transaction.
    await withTx(t.pool, async (tx) => {
      await lockSpending(tx, cred);
      await assertCanSpend(tx, { cred, seconds: 60 });
    });
    await expect(
      withTx(t.pool, async (tx) => {
        await lockSpending(tx, cred);
        await assertCanSpend(tx, { cred, seconds: 60.000001 });
      }),
    ).rejects.toMatchObject({ code: 'spend_limit_reached', status: 402, message: expect.stringMatching(balanceMsg) });

    // A fractional balance compares exactly: 0.3 s left pays 0.1 + 0.2 s.
    await t.pool.query(`UPDATE organizations SET balance_seconds = 0.3 WHERE id = $1`, [live.orgId]);
    expect(await verdicts([{ cred, seconds: 0.1 + 0.2 }, { cred, seconds: 0.300001 }])).toEqual([null, expect.stringMatching(balanceMsg)]);

    await t.pool.query(`UPDATE organizations SET balance_seconds = 0 WHERE id = $1`, [live.orgId]);
    const [read] = await verdicts([{ cred, seconds: 0 }]);
    expect(read).toMatch(balanceMsg);
    await expect(
      withTx(t.pool, async (tx) => {
        await lockSpending(tx, cred);
        await assertCanSpend(tx, { cred, seconds: 0 });
      }),
    ).rejects.toMatchObject({ code: 'spend_limit_reached' });

    // Overdrawn (a spend raced past 0 elsewhere): still refused.
    await t.pool.query(`UPDATE organizations SET balance_seconds = -5 WHERE id = $1`, [live.orgId]);
    expect((await verdicts([{ cred, seconds: 0 }]))[0]).toMatch(balanceMsg);
  });

  it('verdicts come back in the order of the checks; test keys have no balance to check', async () => {
    const live = await newKey({ mode: 'live', minutes: 1 });
    const test = await newKey({ org: live.orgId });
    const [lc, tc] = [await credential(live.secret), await credential(test.secret)];
    expect(tc.livemode).toBe(false);
    expect(await verdicts([
      { cred: lc, seconds: 61 },
      { cred: tc, seconds: 1_000_000 },
      { cred: lc, seconds: 59 },
      { cred: lc, seconds: 60.0000006 },
    ])).toEqual([expect.stringMatching(/balance/), null, null, expect.stringMatching(/balance/)]);
  });

  it('recordUsage: a live entry debits the balance by exactly its seconds, a test entry moves none', async () => {
    const live = await newKey({ mode: 'live', minutes: 1 });
    const test = await newKey({ org: live.orgId });
    const cred = await credential(live.secret);

    await record(entry(live, 12.5, true));
    expect(await orgBalance(live.orgId)).toBe(47.5);
    await record(entry(test, 30));
    expect(await orgBalance(live.orgId)).toBe(47.5);
    // Several entries in one call, fractional listening among them; a 0-second entry writes nothing.
    // (Amounts exact in binary here: inexact ones in one call are the bug below.)
    await record([entry(live, 0.25, true, 'listen'), entry(live, 0.5, true, 'listen'), entry(test, 5), entry(live, 0, true)]);
    expect(await orgBalance(live.orgId)).toBe(46.75);
    expect(await ledger(live.keyId)).toEqual({ seconds: 13.25, rows: 3 });
    expect(await ledger(test.keyId)).toEqual({ seconds: 35, rows: 2 });
    const { rows } = await t.pool.query(
      `SELECT credential_id, livemode, count(*)::int AS n FROM usage_ledger WHERE org_id = $1 GROUP BY 1, 2 ORDER BY 2`,
      [live.orgId],
    );
    expect(rows).toEqual([
      { credential_id: test.keyId, livemode: false, n: 2 },
      { credential_id: live.keyId, livemode: true, n: 3 },
    ]);

    // GET /v1/balance shows whole seconds left; spending the rest exactly leaves nothing for a read.
    const bal = await (await t.request('GET', '/v1/balance', { key: live.secret })).json();
    expect(bal).toMatchObject({ seconds_left: 46, minutes_left: 0.767, source: 'organization', livemode: true });
    expect(await verdicts([{ cred, seconds: 46.75 }])).toEqual([null]);
    expect((await verdicts([{ cred, seconds: 46.750001 }]))[0]).toMatch(/balance/);
    await record(entry(live, 46.75, true));
    expect(await orgBalance(live.orgId)).toBe(0);
    expect((await verdicts([{ cred, seconds: 0 }]))[0]).toMatch(/balance/);
  });

  /** The balance plus the organization's live ledger, in the database's exact numbers (text). */
  async function books(orgId: string): Promise<string> {
    const { rows } = await t.pool.query(
      `SELECT (o.balance_seconds + coalesce((SELECT sum(seconds) FROM usage_ledger WHERE org_id = o.id AND livemode), 0))::text AS total
         FROM organizations o WHERE o.id = $1`,
      [orgId],
    );
    return rows[0].total;
  }

  it('the books balance exactly when each call of recordUsage debits one live entry', async () => {
    const live = await newKey({ mode: 'live', minutes: 1 });
    for (const seconds of [0.1, 0.2, 1 / 3, 12.5]) await record(entry(live, seconds, true, 'listen'));
    expect(await books(live.orgId)).toMatch(/^60(\.0+)?$/);
  });

  // Several live entries of one organization in one call (publishSegment
  // sends such calls: one entry per listening key) are debited as their exact
  // sum: summed in JavaScript, 0.1 + 0.2 = 0.30000000000000004 would drop the
  // balance by 4e-17 s more than the ledger says, and an operator's
  // reconciliation (balance + ledger = minutes bought) would never balance.
  it('the books balance exactly when one call of recordUsage debits several live entries of one organization', async () => {
    const live = await newKey({ mode: 'live', minutes: 1 });
    const other = await newKey({ mode: 'live', org: live.orgId });
    await record([entry(live, 0.1, true, 'listen'), entry(other, 0.2, true, 'listen')]);
    expect(await books(live.orgId)).toMatch(/^60(\.0+)?$/);
  });

  it('key limits read the ledger by UTC day and month as of the time given', async () => {
    const k = await newKey({ spendDay: 1, spendMonth: 2 });
    const cred = await credential(k.secret);
    const at = new Date('2031-03-20T12:00:00Z');
    // Earlier this month, and the last microsecond-ish of yesterday: month only.
    await record(entry(k, 30), new Date('2031-03-02T08:00:00Z'));
    await record(entry(k, 30), new Date('2031-03-19T23:59:59.999Z'));
    // Last month: neither.
    await record(entry(k, 500), new Date('2031-02-28T23:59:59.999Z'));
    // Today: 59 s of the 60.
    await record(entry(k, 59), new Date('2031-03-20T00:00:00Z'));
    expect(await verdicts([{ cred, seconds: 1 }], at)).toEqual([null]);
    expect((await verdicts([{ cred, seconds: 1.000001 }], at))[0]).toMatch(/daily limit of 1 minutes/);
    // The next day the daily limit is free again; the month has 119 of 120 s.
    const tomorrow = new Date('2031-03-21T00:00:00Z');
    expect(await verdicts([{ cred, seconds: 1 }], tomorrow)).toEqual([null]);
    expect((await verdicts([{ cred, seconds: 1.5 }], tomorrow))[0]).toMatch(/monthly limit of 2 minutes/);
    // The next month starts from 0.
    expect(await verdicts([{ cred, seconds: 60 }], new Date('2031-04-01T00:00:00Z'))).toEqual([null]);
  });

  it('a limit of inexact minutes (0.015 min = 0.9 s) is reached exactly by fractional usage in the ledger', async () => {
    const k = await newKey({ spendDay: 0.015 });
    const cred = await credential(k.secret);
    const at = new Date('2031-05-10T10:00:00Z');
    for (let i = 0; i < 5; i++) await record(entry(k, 0.1, false, 'listen'), at);
    expect(await verdicts([{ cred, seconds: 0.4 }], at)).toEqual([null]);
    expect((await verdicts([{ cred, seconds: 0.400001 }], at))[0]).toMatch(/daily limit/);
    for (let i = 0; i < 4; i++) await record(entry(k, 0.1, false, 'listen'), at);
    expect((await verdicts([{ cred, seconds: 0 }], at))[0]).toMatch(/daily limit/);
  });

  it('per-call: callSeconds is checked against the key\'s per-call limit, exactly', async () => {
    const k = await newKey({ perCall: 0.05 });
    const cred = await credential(k.secret);
    expect(await verdicts([{ cred, seconds: 1 / 3, callSeconds: 2 + 2 / 3 }])).toEqual([null]);
    expect((await verdicts([{ cred, seconds: 0, callSeconds: 3 }]))[0]).toMatch(/per-call limit of 0\.05 minutes/);
    expect(await verdicts([{ cred, seconds: 0, callSeconds: 2.999999 }])).toEqual([null]);
    // Without callSeconds the call has spent nothing yet.
    expect(await verdicts([{ cred, seconds: 3 }])).toEqual([null]);
  });
});

describe('concurrency', () => {
  it('10 parallel says on one key whose daily limit fits exactly 3: three 202, seven 402, and the ledger holds 3 charges', async () => {
    const k = await newKey({ spendDay: 1 }); // 60 s = 3 × 20 s
    // One session per room, so nothing but the key's spending lock orders the says.
    const sessions = await Promise.all(Array.from({ length: 10 }, () => session(k)));
    const results = await Promise.all(sessions.map((s) => say(k, s.sessionId)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(3);
    expect(statuses.filter((s) => s === 402)).toHaveLength(7);
    for (const r of results) {
      const body = await r.json();
      if (r.status === 202) expect(body.charged_seconds).toBe(CHARGE);
      else expect(body.code).toBe('spend_limit_reached');
    }
    expect(await ledger(k.keyId)).toEqual({ seconds: 3 * CHARGE, rows: 3 });
    const me = await (await t.request('GET', '/v1/me', { key: k.secret })).json();
    expect(me.limits.spent_today_minutes).toBe(1);
    // The limit was reached once: one 80% and one 100% usage.threshold.
    const th = await (await t.request('GET', '/v1/events?type=usage.threshold', { key: k.secret })).json();
    expect(th.data.map((e: any) => e.data.object.threshold_percent).sort()).toEqual([100, 80]);
    for (const s of sessions) await expectRobotsSilent(s.roomId);
  });
});
