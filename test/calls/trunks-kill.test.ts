import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { startSipp, type Sipp } from '../helpers/sipp.ts';
import { startCarrier, type Carrier } from '../helpers/carrier.ts';
import { quietFor, until } from '../helpers/wait.ts';
import { apertiumUrl } from '../helpers/apertium.ts';
import { addNumber, createKey, createOrg } from '../../src/cli/admin.ts';
import { addTrunk } from '../../src/cli/trunk.ts';
import { freeUdpPort } from '../../gateway/sip-stack.ts';

// A server process killed (SIGKILL) with a live call up on its gateway: the
// call goes out through the carrier (Kamailio) to the phone (SIPp); once the
// process is gone, another process's sweep ends it failed/gateway_lost, and
// the organization's live balance pays the answered time once, up to the
// dead gateway's last heartbeat. Nothing stays answered.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 90_000 });

const KEY = randomBytes(32);
const NUMBER = '+12125550121';

let db: TestDb;
let pool: pg.Pool;
let carrier: Carrier;
let sipp: Sipp;
let secret = '';
const servers: ServerProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  const sippAddress = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
  carrier = await startCarrier({ next: sippAddress, username: 'u', password: 'p4ss', realm: 'carrier.test', numbers: [{ e164: NUMBER, header: 'from' }] });
  sipp = await startSipp({ scenario: new URL('../../gateway/sipp/proxied-answer-wait-bye.xml', import.meta.url).pathname, listen: sippAddress });
  const org = await createOrg(pool, { name: 'Live kill', minutes: 10 });
  ({ secret } = await createKey(pool, { org: org.id, mode: 'live', rpm: 100_000 }));
  const trunk = await addTrunk(pool, KEY, { org: org.id, uri: `sip:${carrier.address}`, username: 'u', password: 'p4ss' });
  await addNumber(pool, { org: org.id, e164: NUMBER, default: true, trunk: trunk.id });
  const env = {
    TOLK_SECRET_KEY: KEY.toString('hex'), TOLK_TRANSLATE: `apertium=${apertiumUrl()}`, TOLK_RECOGNIZE: 'pocketsphinx',
    TOLK_GATEWAY_LOST_SECONDS: '2', TOLK_SIP_LISTEN: '127.0.0.1:0', TOLK_JOB_MONITOR_SECONDS: '2', TOLK_TRUNK_PING_SECONDS: '1',
  };
  servers.push(await startServerProcess(db.url, env));
  servers.push(await startServerProcess(db.url, env));
});

afterAll(async () => {
  for (const s of servers) await s.kill();
  await sipp?.stop();
  await carrier?.stop();
  await pool?.end();
  await db?.drop();
});

const api = (s: ServerProcess, method: string, path: string, body?: unknown) => fetch(`${s.base}${path}`, {
  method,
  headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() }) },
  body: body === undefined ? undefined : JSON.stringify(body),
}).then((r) => r.json() as Promise<any>);

describe('a gateway killed with a live call up', () => {
  it('the call ends failed/gateway_lost through another process, billed once from the live balance', async () => {
    const [A, B] = servers as [ServerProcess, ServerProcess];
    const before = await api(B, 'GET', '/v1/balance');
    const c = await api(A, 'POST', '/v1/calls', { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, agent_lang: 'es', remote_lang: 'en' });
    expect(c, JSON.stringify(c)).toMatchObject({ status: 'queued', livemode: true });
    const answered = await until('answered', async () => { const x = await api(B, 'GET', `/v1/calls/${c.id}`); return x.status === 'answered' ? x : null; }, { timeoutMs: 20_000, intervalMs: 100 });
    // A beats every 0.5 s: killed once its last beat is a second past the answer (a billed second at least).
    await until('A\'s beat a second past the answer', async () => {
      const { rows: [gw] } = await pool.query<{ heartbeat_at: Date }>(`SELECT g.heartbeat_at FROM gateways g JOIN calls c ON c.gateway_id = g.id WHERE c.id = $1`, [c.id]);
      return gw !== undefined && gw.heartbeat_at.getTime() >= Date.parse(answered.answered_at) + 1000;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    await A.kill();
    const ended = await until('ended', async () => { const x = await api(B, 'GET', `/v1/calls/${c.id}`); return x.status !== 'answered' ? x : null; }, { timeoutMs: 20_000, intervalMs: 200 });
    expect(ended).toMatchObject({ status: 'failed', end_reason: 'gateway_lost', answered_at: answered.answered_at, sip_code: 200 });
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(1);
    const { rows } = await pool.query<{ seconds: string; livemode: boolean }>(`SELECT seconds, livemode FROM usage_ledger WHERE ref = $1`, [c.id]);
    expect(rows.map((r) => ({ seconds: Number(r.seconds), livemode: r.livemode }))).toEqual([{ seconds: ended.billed_seconds, livemode: true }]);
    const after = await api(B, 'GET', '/v1/balance');
    expect(before.seconds_left - after.seconds_left).toBeGreaterThanOrEqual(Math.floor(ended.billed_seconds));
    expect(before.seconds_left - after.seconds_left).toBeLessThanOrEqual(Math.ceil(ended.billed_seconds));
    const { rows: events } = await pool.query<{ type: string }>(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [c.id]);
    expect(events.map((e) => e.type)).toEqual(['call.ringing', 'call.answered', 'call.failed', 'call.ended']);
    // Later sweeps leave it as it is: billed once (B sweeps every 0.5 s: four sweeps).
    await quietFor(2000);
    expect(await api(B, 'GET', `/v1/calls/${c.id}`)).toEqual(ended);
    expect((await pool.query(`SELECT count(*)::int AS n FROM usage_ledger WHERE ref = $1`, [c.id])).rows[0].n).toBe(1);
  });
});
