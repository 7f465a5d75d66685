import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { evenFreePort, finished, flow, once, startSipp, wire, type Sipp } from '../helpers/sipp.ts';
import { sippScenario } from '../helpers/sip-rig.ts';
import { until } from '../helpers/wait.ts';
import { ensureEmbeddedPostgres, freePort, type Embedded } from '../../src/db/embedded.ts';
import { binaries, runAs } from '../../src/db/pg-ctl.ts';
import { runnableBinaries } from '../../src/db/cluster-home.ts';
import { migrate } from '../../src/db/migrate.ts';
import { UNWRITTEN_ANSWER } from '../../src/calls/dialer.ts';

// A call whose far end answers while PostgreSQL is away: the gateway keeps
// what SIP told it (the answer, the far end's BYE) with the moments they
// happened, and writes them in order once the database is back, so the call
// is answered, completed and billed for the seconds it was really connected.
// The per-call limit hangs the line up on time whatever the database does.
// PostgreSQL here is a cluster of this file's own, really stopped (pg_ctl
// stop) and started again; SIPp is the callee.

vi.setConfig({ testTimeout: 120_000 });

// A Wednesday, 17:00 UTC, at real speed: US calling hours are open.
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let cluster: Embedded;
let port: number;
let folder = '';
const cleanups: Array<() => Promise<void>> = [];

/** pg_ctl on the file's cluster, with the programs it runs from (a copy under /var/lib/tolk when `postgres` cannot reach node_modules). */
async function pgCtl(...args: string[]) {
  const found = await binaries();
  const who = runAs();
  const bin = runnableBinaries(found, who, found.version, () => {});
  const r = spawnSync(bin.pg_ctl, [...args, '-D', cluster.dir], { uid: who.uid, gid: who.gid, detached: true, stdio: 'ignore' } as never);
  expect(r.status).toBe(0);
}
let stopped = false;
const stopPostgres = async () => {
  stopped = true;
  await pgCtl('stop', '-w', '-m', 'fast');
};
const startPostgres = async () => {
  await pgCtl('start', '-w', '-l', path.join(cluster.dir, 'postgresql.log'), '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`);
  stopped = false;
};

beforeAll(async () => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-outage-'));
  fs.chmodSync(folder, 0o755);
  port = await freePort();
  cluster = await ensureEmbeddedPostgres(folder, port, () => {}, { restart: false });
  await migrate(cluster.url);
}, 120_000);
afterEach(async () => {
  // A test that failed while PostgreSQL was stopped leaves it running for the next.
  if (stopped) await startPostgres();
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await cluster?.stop();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

/** SIPp on `scenario`, and an app on the file's cluster whose test calls go to it. */
async function rig(scenario: string, extraArgs?: string[]): Promise<{ sipp: Sipp; t: TestApp }> {
  const sipp = await startSipp({ scenario: sippScenario(scenario), extraArgs });
  cleanups.push(() => sipp.stop());
  const t = await startTestApp({ db: { name: 'tolk', url: cluster.url, drop: async () => {} }, workers: true, clock, config: { simSipPeer: `sip:${sipp.address}` } });
  cleanups.push(() => t.close());
  return { sipp, t };
}

async function place(t: TestApp, key: string) {
  const res = await t.request('POST', '/v1/calls', {
    key, headers: { 'idempotency-key': crypto.randomUUID() },
    body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, remote_lang: 'es' },
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

const statusOf = async (t: TestApp, id: string) => (await t.pool.query(`SELECT status FROM calls WHERE id = $1`, [id])).rows[0]?.status;

/** The call as the API shows it, once it has ended (the database may take a moment to answer again). */
async function endedCall(t: TestApp, id: string, key: string) {
  let last: any;
  return until('the call ended', async () => {
    const res = await t.request('GET', `/v1/calls/${id}`, { key });
    if (res.status !== 200) return null;
    last = await res.json();
    return ['completed', 'no_answer', 'failed'].includes(last.status) ? last : null;
  }, { timeoutMs: 30_000, detail: () => JSON.stringify(last) });
}

async function outbox(t: TestApp, id: string): Promise<string[]> {
  const { rows } = await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [id]);
  return rows.map((r) => r.type);
}

/** Whether the call's answer was written after PostgreSQL last started (the outage, not before it). */
async function answerWrittenAfterRestart(t: TestApp, id: string): Promise<boolean> {
  const { rows } = await t.pool.query(
    `SELECT created_at >= pg_postmaster_start_time() AS after FROM outbox WHERE object_id = $1 AND type = 'call.answered'`, [id]);
  return rows[0]?.after === true;
}

async function ledger(t: TestApp, id: string): Promise<number[]> {
  const { rows } = await t.pool.query(`SELECT seconds FROM usage_ledger WHERE ref = $1`, [id]);
  return rows.map((r) => Number(r.seconds));
}

describe('a call while PostgreSQL is away', () => {
  it('answered and hung up by the far end during a 15 s outage: answered, completed and billed for its real seconds once the database is back', async () => {
    const { sipp, t } = await rig('ring-answer-late-then-bye');
    const { secret: key } = await t.key({ rpm: 100_000 });
    const c = await place(t, key);
    await until('the call rings', async () => (await statusOf(t, c.id)) === 'ringing', 10_000);
    // The far end answers 2 s after its 180, and hangs up 5 s later: both while PostgreSQL is stopped.
    const down = clock();
    await stopPostgres();
    const r = await finished(sipp, 20_000);
    expect(r.code, r.errors).toBe(0);
    expect(flow(once(wire(r.trace)))).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< BYE', '> 200 OK']);
    const hungUp = clock();
    // The API answers 503 meanwhile (the client retries).
    expect((await t.request('GET', `/v1/calls/${c.id}`, { key })).status).toBe(503);
    await new Promise((ok) => setTimeout(ok, Math.max(0, 15_000 - (hungUp.getTime() - down.getTime()))));
    const up = clock();
    await startPostgres();

    const ended = await endedCall(t, c.id, key);
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'remote_hangup' });
    // The moments SIP reported, not those of the writes: answered and ended while the database was down.
    const answeredAt = Date.parse(ended.answered_at);
    const endedAt = Date.parse(ended.ended_at);
    expect(answeredAt).toBeGreaterThan(down.getTime());
    expect(endedAt).toBeLessThanOrEqual(hungUp.getTime());
    expect(endedAt).toBeLessThan(up.getTime());
    // 5 s on the line: each second begun is billed, times the US factor of 1.
    expect(endedAt - answeredAt).toBeGreaterThanOrEqual(5_000);
    expect(endedAt - answeredAt).toBeLessThan(6_000);
    expect(ended.billed_seconds).toBe(Math.ceil((endedAt - answeredAt) / 1000));
    expect(await ledger(t, c.id)).toEqual([ended.billed_seconds]);
    expect(await answerWrittenAfterRestart(t, c.id)).toBe(true);
    expect(await outbox(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
  });

  it('answered during an outage longer than its per-call limit: the gateway hangs up at the limit while the database is down, and it is written once it is back', async () => {
    const { sipp, t } = await rig('ring-answer-late-wait-bye');
    // 3 s at the US minute factor of 1.
    const { secret: key } = await t.key({ rpm: 100_000, perCall: 0.05 });
    const c = await place(t, key);
    await until('the call rings', async () => (await statusOf(t, c.id)) === 'ringing', 10_000);
    const down = clock();
    await stopPostgres();
    // Answered 2 s after its 180; our BYE comes at the limit, with PostgreSQL still stopped.
    const r = await finished(sipp, 20_000);
    expect(r.code, r.errors).toBe(0);
    expect(flow(once(wire(r.trace)))).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const hungUp = clock();
    expect((await t.request('GET', `/v1/calls/${c.id}`, { key })).status).toBe(503);
    await new Promise((ok) => setTimeout(ok, 3_000));
    await startPostgres();

    const ended = await endedCall(t, c.id, key);
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'max_duration' });
    const answeredAt = Date.parse(ended.answered_at);
    const endedAt = Date.parse(ended.ended_at);
    expect(answeredAt).toBeGreaterThan(down.getTime());
    expect(endedAt).toBeLessThanOrEqual(hungUp.getTime());
    // Billed the limit, not a second more.
    expect(ended.billed_seconds).toBe(3);
    expect(await ledger(t, c.id)).toEqual([3]);
    expect(await answerWrittenAfterRestart(t, c.id)).toBe(true);
    expect(await outbox(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
  });

  it('digits pressed while the database is away reach the session once it is back, after the answer and before the hangup', async () => {
    const mediaPort = await evenFreePort();
    const { sipp, t } = await rig('ring-answer-late-dtmf-bye', ['-mp', String(mediaPort)]);
    const { secret: key } = await t.key({ rpm: 100_000 });
    const c = await place(t, key);
    await until('the call rings', async () => (await statusOf(t, c.id)) === 'ringing', 10_000);
    await stopPostgres();
    // Answered 2 s after its 180; 1 and 5 pressed 1.5 s and 2.5 s later; the far end's BYE 1.5 s after that.
    const r = await finished(sipp, 20_000);
    expect(r.code, r.errors).toBe(0);
    expect(flow(once(wire(r.trace)))).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< BYE', '> 200 OK']);
    await new Promise((ok) => setTimeout(ok, 3_000));
    await startPostgres();

    const ended = await endedCall(t, c.id, key);
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'remote_hangup' });
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(4);
    // The call's log: the disclosure (written with the answer), then the digits, written before the
    // hangup ended the call's session (the session's events are closed to readers once it has ended).
    const { rows: log } = await t.pool.query(
      `SELECT g.kind, g.text, g.created_at <= (SELECT created_at FROM outbox WHERE object_id = $1 AND type = 'call.completed') AS before_end
         FROM room_segments g WHERE g.room_id = $1 ORDER BY g.seq`, [c.id]);
    expect(log.map((g) => [g.kind, g.kind === 'dtmf' ? g.text : null, g.before_end])).toEqual([
      ['disclosure', null, true], ['dtmf', '1', true], ['dtmf', '5', true],
    ]);
    expect(await answerWrittenAfterRestart(t, c.id)).toBe(true);
    expect(await outbox(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
  });

  it('answered with no per-call limit while the database stays away: hung up once its answer has waited the bound, failed/gateway_lost, billed to that moment', async () => {
    // Ten minutes in service; 3 s here (the gateway runs in this process).
    const kept = UNWRITTEN_ANSWER.seconds;
    UNWRITTEN_ANSWER.seconds = 3;
    cleanups.push(async () => { UNWRITTEN_ANSWER.seconds = kept; });
    const { sipp, t } = await rig('ring-answer-late-wait-bye');
    const { secret: key } = await t.key({ rpm: 100_000 });
    const c = await place(t, key);
    await until('the call rings', async () => (await statusOf(t, c.id)) === 'ringing', 10_000);
    await stopPostgres();
    const r = await finished(sipp, 20_000);
    expect(r.code, r.errors).toBe(0);
    expect(flow(once(wire(r.trace)))).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const hungUp = clock();
    await new Promise((ok) => setTimeout(ok, 2_000));
    await startPostgres();

    const ended = await endedCall(t, c.id, key);
    expect(ended).toMatchObject({ status: 'failed', end_reason: 'gateway_lost', billed_seconds: 3 });
    expect(Date.parse(ended.ended_at)).toBeLessThanOrEqual(hungUp.getTime());
    expect(await ledger(t, c.id)).toEqual([3]);
    expect(await answerWrittenAfterRestart(t, c.id)).toBe(true);
    expect(await outbox(t, c.id)).toEqual(['call.ringing', 'call.answered', 'call.failed', 'call.ended']);
  });
});
