import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { jsonOf, requestTo, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { CALL_AGENT_NAME } from '../../src/calls/calls.ts';

// Server processes killed (SIGKILL) with calls up: the call gateway of a
// process that died stops beating in `gateways`; a surviving process's sweep
// ends its calls failed/gateway_lost (call.failed, call.ended once), with the
// call's agent session ended, its transcript written (room_id null) and the
// answered time billed once. A call accepted by a process that dies before it
// dials is dialed by another process's gateway (its sweep of the lost
// gateway's calls still queued).
//
// Every process: the simulated callee 10× faster (answers after 0.1 s) unless
// said otherwise, a gateway lost after 2 s without a heartbeat (beats every
// 0.5 s), SIP on a free port, dead job workers looked for every 2 s.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const ENV = {
  TOLK_SIM_SPEED: '10',
  TOLK_GATEWAY_LOST_SECONDS: '2',
  TOLK_SIP_LISTEN: '127.0.0.1:0',
  TOLK_JOB_MONITOR_SECONDS: '2',
};
const LOST_MS = 2000;

// US support calls with prior express consent have no calling window
// (policies/countries/US.ts: only marketing does): callable at any hour.
// The quote is asked first, so a change of the table fails with a reason.
const US = (last4: string) => `+1415555${last4}`;
const SUPPORT = { purpose: 'support', consent: { kind: 'prior_express' } };

let db: TestDb;
let pool: pg.Pool;
let secret: string;
const servers: ServerProcess[] = [];
/** The gateway (gateways.id) of each server process. */
const gatewayOf = new Map<ServerProcess, string>();
let A: ServerProcess;
let B: ServerProcess;
let C: ServerProcess;

/** A server process and the gateway it registered (the one row that was not there before). */
async function start(env: Record<string, string>): Promise<ServerProcess> {
  const known = new Set([...gatewayOf.values()]);
  const s = await startServerProcess(db.url, env);
  servers.push(s);
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM gateways`);
  const fresh = rows.map((r) => r.id).filter((id) => !known.has(id));
  expect(fresh, 'the new process registered one gateway').toHaveLength(1);
  gatewayOf.set(s, fresh[0]!);
  return s;
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  const org = await createOrg(pool, { name: 'Kill calls' });
  ({ secret } = await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 }));
  // One at a time: each start migrates, and the new gateways row names the process.
  A = await start(ENV);
  B = await start(ENV);
  // C's callee keeps real time (a `0101` call rings 5 s before its 480).
  C = await start({ ...ENV, TOLK_SIM_SPEED: '1' });
});
afterAll(async () => {
  for (const s of servers) await s.kill();
  await pool?.end();
  await db?.drop();
});

const api = (s: ServerProcess, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  requestTo(s, secret, method, path, body, headers);
const json = jsonOf;

async function quote(s: ServerProcess, to: string) {
  const res = await api(s, 'GET', `/v1/calls/quote?to=${encodeURIComponent(to)}&purpose=support&consent=prior_express`);
  expect(res.status).toBe(200);
  return json(res);
}

async function place(s: ServerProcess, to: string) {
  const res = await api(s, 'POST', '/v1/calls', { to, ...SUPPORT }, { 'idempotency-key': crypto.randomUUID() });
  const c = await json(res);
  expect(res.status, JSON.stringify(c)).toBe(201);
  expect(c.status).toBe('queued');
  return c;
}

async function getCall(s: ServerProcess, id: string) {
  const res = await api(s, 'GET', `/v1/calls/${id}`);
  expect(res.status).toBe(200);
  return json(res);
}

/**
 * Polls the call through `s` until its status is one of `statuses`; every
 * 100 ms, not faster: a test key has 1,000 requests a day (test_daily_limit).
 */
async function untilStatus(s: ServerProcess, id: string, statuses: string[], ms: number, intervalMs = 100) {
  let last: any;
  return until(`call ${id} in ${statuses.join('/')}`, async () => {
    last = await getCall(s, id);
    return statuses.includes(last.status) ? last : null;
  }, { timeoutMs: ms, intervalMs, detail: () => `last seen: ${JSON.stringify(last)}` });
}

async function gatewayIdOf(callId: string): Promise<string | null> {
  const { rows } = await pool.query<{ gateway_id: string | null }>(`SELECT gateway_id FROM calls WHERE id = $1`, [callId]);
  return rows[0]!.gateway_id;
}

/** The call's domain events, in order. */
async function outbox(callId: string): Promise<string[]> {
  const { rows } = await pool.query<{ type: string }>(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [callId]);
  return rows.map((r) => r.type);
}

async function ledger(callId: string) {
  const { rows } = await pool.query<{ kind: string; seconds: number }>(`SELECT kind, seconds FROM usage_ledger WHERE ref = $1`, [callId]);
  return rows.map((r) => ({ kind: r.kind, seconds: Number(r.seconds) }));
}

/** The transcript of the session, read back through the API. */
async function transcriptOf(s: ServerProcess, sessionId: string) {
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM transcripts WHERE session_id = $1`, [sessionId]);
  expect(rows, `one transcript for ${sessionId}`).toHaveLength(1);
  const res = await api(s, 'GET', `/v1/transcripts/${rows[0]!.id}`);
  expect(res.status).toBe(200);
  return json(res);
}

/** `check` keeps passing for `ms` (an absence can only be watched for a while). */
async function holds(ms: number, check: () => Promise<void>) {
  const end = Date.now() + ms;
  do {
    await check();
    await new Promise((r) => setTimeout(r, 250));
  } while (Date.now() < end);
}

describe('a gateway killed with its calls up', () => {
  it('an answered call ends failed/gateway_lost through another process: session ended, transcript kept, billed once', async () => {
    const to = US('0142');
    expect(await quote(B, to), 'a destination callable at any hour').toMatchObject({ allowed: true, simulator: 'answered' });
    const c = await place(A, to);
    const answered = await untilStatus(B, c.id, ['answered'], 15_000);
    expect(answered.answered_at).not.toBeNull();
    expect(await gatewayIdOf(c.id), 'dialed by the process that accepted it').toBe(gatewayOf.get(A));
    const live = await json(await api(B, 'GET', `/v1/sessions/${c.session_id}`));
    expect(live).toMatchObject({ status: 'active', room_id: null });

    // A beats every 0.5 s: killed once its last beat is a second past the answer.
    await until('A\'s beat a second past the answer', async () => {
      const { rows: [gw] } = await pool.query<{ heartbeat_at: Date }>(`SELECT heartbeat_at FROM gateways WHERE id = $1`, [gatewayOf.get(A)]);
      return gw!.heartbeat_at.getTime() >= Date.parse(answered.answered_at) + 1000;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    await A.kill();

    // B and C both sweep every 0.5 s; A's heartbeat is old after 2 s.
    const ended = await untilStatus(B, c.id, ['failed', 'completed', 'busy', 'voicemail', 'no_answer'], 15_000);
    expect(ended).toMatchObject({ status: 'failed', end_reason: 'gateway_lost', answered_at: answered.answered_at });
    expect(ended.ended_at).not.toBeNull();
    // The call ended at A's last sign of life, not when the loss was noticed
    // (TOLK_GATEWAY_LOST_SECONDS later): the dead line is not billed.
    // (heartbeat_at is PostgreSQL's clock, ended_at the sweeper's: a little slack.)
    const { rows: [gw] } = await pool.query<{ heartbeat_at: Date }>(`SELECT heartbeat_at FROM gateways WHERE id = $1`, [gatewayOf.get(A)]);
    expect(Math.abs(Date.parse(ended.ended_at) - gw!.heartbeat_at.getTime())).toBeLessThan(LOST_MS / 2);

    // The answered time until then, each second begun counted (minute factor 1), billed once.
    const answeredMs = Date.parse(ended.ended_at) - Date.parse(answered.answered_at);
    expect(Number.isInteger(ended.billed_seconds)).toBe(true);
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(1);
    expect(ended.billed_seconds).toBeLessThanOrEqual(Math.ceil(answeredMs / 1000));
    const bill = await ledger(c.id);
    expect(bill.length).toBeLessThanOrEqual(1);
    expect(bill).toEqual([{ kind: 'call', seconds: ended.billed_seconds }]);

    // Two surviving sweepers, one end: call.failed and call.ended once each.
    expect(await outbox(c.id)).toEqual(['call.ringing', 'call.answered', 'call.failed', 'call.ended']);

    // The session ended with it; what was said on the line (the disclosure first) is a transcript with no room.
    const ses = await json(await api(B, 'GET', `/v1/sessions/${c.session_id}`));
    expect(ses.status).toBe('ended');
    const tr = await transcriptOf(B, c.session_id);
    expect(tr.room_id).toBeNull();
    expect(tr.segments[0]).toMatchObject({ untrusted_content: { text: disclosure(CALL_AGENT_NAME, c.remote_lang) } });

    // Final: later sweeps (and the other survivor) leave it as it is.
    await holds(3000, async () => {
      expect(await getCall(B, c.id)).toEqual(ended);
      expect(await getCall(C, c.id)).toEqual(ended);
    });
    expect(await outbox(c.id)).toEqual(['call.ringing', 'call.answered', 'call.failed', 'call.ended']);
    expect(await ledger(c.id)).toEqual(bill);
  });

  it('a ringing call ends failed/gateway_lost: ringing, failed, ended; nothing billed', async () => {
    const to = US('0101');
    expect(await quote(B, to)).toMatchObject({ allowed: true, simulator: 'no_answer' });
    const c = await place(C, to);
    // C's callee rings 5 s before its 480: C dies while it rings.
    const ringing = await untilStatus(B, c.id, ['ringing'], 4000);
    expect(ringing.answered_at).toBeNull();
    expect(await gatewayIdOf(c.id)).toBe(gatewayOf.get(C));

    await C.kill();

    const ended = await untilStatus(B, c.id, ['failed', 'completed', 'busy', 'voicemail', 'no_answer'], 15_000);
    expect(ended).toMatchObject({ status: 'failed', end_reason: 'gateway_lost', answered_at: null, billed_seconds: 0 });
    expect(ended.ended_at).not.toBeNull();
    expect(await outbox(c.id)).toEqual(['call.ringing', 'call.failed', 'call.ended']);
    expect(await ledger(c.id)).toEqual([]);
    expect((await json(await api(B, 'GET', `/v1/sessions/${c.session_id}`))).status).toBe('ended');
    expect((await transcriptOf(B, c.session_id)).room_id).toBeNull();

    // Past the moment the callee would have given up (5 s after the INVITE): still failed, once.
    await holds(3000, async () => {
      expect(await getCall(B, c.id)).toEqual(ended);
    });
    expect(await outbox(c.id)).toEqual(['call.ringing', 'call.failed', 'call.ended']);
  });
});

describe('a process killed before it dials', () => {
  it('the call it accepted is dialed by another process (its sweep of the lost gateway\'s queued calls), and answers there', async () => {
    const D = await start(ENV);
    const to = US('0147');
    expect(await quote(B, to)).toMatchObject({ allowed: true, simulator: 'answered' });
    // Hold D between its commit and its dial: D's transaction waits to save
    // its idempotent response (its last statement, sent with its COMMIT) on a
    // lock held here; D is frozen (SIGSTOP) while it waits, then the lock is
    // released: PostgreSQL commits D's call without D, which never runs again.
    const jobs = await pool.connect();
    try {
      await jobs.query('BEGIN');
      await jobs.query(`LOCK TABLE idempotency_keys IN SHARE MODE`);
      const posting = api(D, 'POST', '/v1/calls', { to, ...SUPPORT }, { 'idempotency-key': crypto.randomUUID() });
      posting.catch(() => {});
      await until('D\'s transaction to wait for its response\'s row, the call written', async () => {
        const { rows } = await pool.query(
          `SELECT a.pid FROM pg_stat_activity a
            WHERE a.datname = current_database() AND a.wait_event_type = 'Lock'
              AND EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.granted
                            AND l.relation = 'calls'::regclass AND l.mode = 'RowExclusiveLock')`);
        return rows.length === 1;
      }, 10_000);
      D.child.kill('SIGSTOP');
      await jobs.query('COMMIT');
      const c = await until('D\'s call committed', async () => {
        const { rows } = await pool.query<{ id: string; status: string; gateway_id: string | null; session_id: string }>(
          `SELECT id, status, gateway_id, session_id FROM calls WHERE to_e164 = $1`, [to]);
        return rows[0];
      }, 10_000);
      expect(c.status, 'committed, not dialed').toBe('queued');
      expect(c.gateway_id, 'the accepting process\'s gateway is the call\'s').toBe(gatewayOf.get(D));
      await D.kill();

      // Once D's gateway is found lost, B, the one gateway left, claims the queued call and dials it.
      const answered = await untilStatus(B, c.id, ['answered', 'failed', 'completed', 'busy', 'voicemail', 'no_answer'], 30_000, 250);
      expect(answered.status).toBe('answered');
      expect(await gatewayIdOf(c.id)).toBe(gatewayOf.get(B));
      await until('one answered second', async () => Date.now() >= Date.parse(answered.answered_at) + 1000);
      const hung = await json(await api(B, 'POST', `/v1/calls/${c.id}/hangup`));
      expect(hung).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
      expect(hung.billed_seconds).toBeGreaterThanOrEqual(1);
      expect(await outbox(c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
      expect(await ledger(c.id)).toEqual([{ kind: 'call', seconds: hung.billed_seconds }]);
      expect((await json(await api(B, 'GET', `/v1/sessions/${c.session_id}`))).status).toBe('ended');
    } finally {
      await jobs.query('ROLLBACK').catch(() => {});
      jobs.release();
    }
  });
});
