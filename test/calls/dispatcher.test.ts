import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSocket } from 'node:dgram';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { jsonOf, requestTo, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { evenFreePort, finished, startSipp, wire, type Sipp, type WireMessage } from '../helpers/sipp.ts';
import { calleeScenario, gatewayPort, startDispatcher, startRtpSink, type Dispatcher, type RtpSink } from '../helpers/dispatcher.ts';
import { until } from '../helpers/wait.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';

// Several gateways behind one SIP address (ops/kamailio/kamailio.cfg, run as
// written): two server processes (`node src/server.ts`), each with its
// gateway, on one database; Kamailio's dispatcher in front of them; a SIPp
// callee behind Kamailio that holds each call HOLD_MS and hangs up.
//
// Calls placed on both processes go out through both gateways and reach the
// callee from Kamailio alone; a say taken by the process that does not hold
// the call is spoken on its line; one process killed (SIGKILL) with calls up:
// its calls end failed/gateway_lost, billed up to its last heartbeat, and the
// callee's BYE for them is answered by Kamailio (whose probes took the dead
// gateway out); the survivor's calls end with the callee's BYE through
// Kamailio, billed for the time they were connected; new calls all go through
// the survivor. Nobody else starts a call through Kamailio.

vi.setConfig({ testTimeout: 180_000, hookTimeout: 90_000 });

/** How long the callee holds each answered call: the disclosure and a say fit in it, the kill comes well within it. */
const HOLD_MS = 14_000;
const CALLS = 6;
const LOST_S = 2;

let db: TestDb;
let pool: pg.Pool;
let secret: string;
let kamailio: Dispatcher;
let sipp: Sipp;
let sink: RtpSink;
let removeScenario: () => Promise<void>;
let A: ServerProcess;
let B: ServerProcess;
/** Each process's SIP address (TOLK_SIP_LISTEN) and the gateway row it wrote. */
const sipOf = new Map<ServerProcess, string>();
const gatewayOf = new Map<ServerProcess, string>();

async function start(sip: string): Promise<ServerProcess> {
  const known = new Set([...gatewayOf.values()]);
  const s = await startServerProcess(db.url, {
    TOLK_SIP_LISTEN: sip,
    TOLK_SIM_SIP_PEER: `sip:${kamailio.address}`,
    TOLK_GATEWAY_LOST_SECONDS: String(LOST_S),
    TOLK_JOB_MONITOR_SECONDS: '2',
  });
  const { rows } = await pool.query<{ id: string }>(`SELECT id FROM gateways`);
  const fresh = rows.map((r) => r.id).filter((id) => !known.has(id));
  expect(fresh, 'the new process registered one gateway').toHaveLength(1);
  sipOf.set(s, sip);
  gatewayOf.set(s, fresh[0]!);
  return s;
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  const org = await createOrg(pool, { name: 'Dispatched calls' });
  ({ secret } = await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 }));
  sink = await startRtpSink();
  const scenario = await calleeScenario({ holdMs: HOLD_MS, mediaPort: sink.port });
  removeScenario = scenario.remove;
  sipp = await startSipp({ scenario: scenario.path, extraArgs: ['-m', String(CALLS), '-mp', String(await evenFreePort()), '-timeout', '170s', '-timeout_error'] });
  const sips: string[] = [];
  while (sips.length < 2) {
    const sip = `127.0.0.1:${await gatewayPort()}`;
    if (!sips.includes(sip)) sips.push(sip);
  }
  // Probed every second, out after one unanswered probe (1 s): the test's pace, not production's (ops/kamailio's defaults).
  kamailio = await startDispatcher({ gateways: sips, carrier: sipp.address, pingSeconds: 1, probingThreshold: 1, frTimerMs: 1000 });
  // One at a time: each start migrates, and the new gateways row names the process.
  A = await start(sips[0]!);
  B = await start(sips[1]!);
});
afterAll(async () => {
  await A?.kill();
  await B?.kill();
  await sipp?.stop();
  await kamailio?.stop();
  await sink?.close();
  await removeScenario?.();
  await pool?.end();
  await db?.drop();
});

const api = (s: ServerProcess, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  requestTo(s, secret, method, path, body, headers);
const json = jsonOf;

// US support calls with prior express consent are callable at any hour; each call its own number.
async function place(s: ServerProcess, last4: string) {
  const to = `+1415555${last4}`;
  const res = await api(s, 'POST', '/v1/calls', { to, purpose: 'support', consent: { kind: 'prior_express' }, agent_lang: 'en', remote_lang: 'en' }, { 'idempotency-key': crypto.randomUUID() });
  const c = await json(res);
  expect(res.status, JSON.stringify(c)).toBe(201);
  return c as { id: string; session_id: string; to: string };
}

type Row = { status: string; end_reason: string | null; gateway_id: string | null; answered_at: Date | null; ended_at: Date | null; billed_seconds: number };
/** Read from the database (a test key has 1,000 requests a day: the waits poll rows, not the API). */
async function row(id: string): Promise<Row> {
  const { rows } = await pool.query<Row>(`SELECT status, end_reason, gateway_id, answered_at, ended_at, billed_seconds FROM calls WHERE id = $1`, [id]);
  return rows[0]!;
}
const ENDED = ['completed', 'failed', 'busy', 'no_answer', 'voicemail'];
async function untilStatus(id: string, statuses: string[], ms: number) {
  let last: Row | undefined;
  return until(`call ${id} in ${statuses.join('/')}`, async () => {
    last = await row(id);
    return statuses.includes(last.status) ? last : null;
  }, { timeoutMs: ms, intervalMs: 100, detail: () => `last seen: ${JSON.stringify(last)}` });
}

async function ledger(callId: string) {
  const { rows } = await pool.query<{ kind: string; seconds: number }>(`SELECT kind, seconds FROM usage_ledger WHERE ref = $1`, [callId]);
  return rows.map((r) => ({ kind: r.kind, seconds: Number(r.seconds) }));
}

/** The Via headers of a message, top first. */
const vias = (m: WireMessage) => m.text.split(/\r?\n/).filter((l) => /^(via|v):/i.test(l)).flatMap((l) => l.replace(/^[^:]+:\s*/, '').split(','));

/** Sends one out-of-dialog request to Kamailio from a socket of our own (not a gateway's) and returns the status line of its answer. */
async function ask(method: 'INVITE' | 'OPTIONS'): Promise<string> {
  const socket = createSocket('udp4');
  await new Promise<void>((ok) => socket.bind(0, '127.0.0.1', () => ok()));
  const port = socket.address().port;
  const [host, kport] = kamailio.address.split(':') as [string, string];
  const answer = new Promise<string>((ok) => socket.on('message', (m) => {
    const line = m.toString().split('\r\n')[0]!;
    if (!/^SIP\/2.0 1\d\d/.test(line)) ok(line);
  }));
  const id = crypto.randomUUID();
  socket.send([
    `${method} sip:+14155550299@${kamailio.address} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${port};branch=z9hG4bK${id.slice(0, 8)};rport`,
    'Max-Forwards: 70',
    `From: <sip:stranger@127.0.0.1:${port}>;tag=${id.slice(9, 13)}`,
    `To: <sip:+14155550299@${kamailio.address}>`,
    `Call-ID: ${id}`,
    `CSeq: 1 ${method}`,
    `Contact: <sip:stranger@127.0.0.1:${port}>`,
    'Content-Length: 0', '', '',
  ].join('\r\n'), Number(kport), host);
  try {
    return await until(`Kamailio's answer to the ${method}`, async () => Promise.race([answer, new Promise<null>((r) => setTimeout(() => r(null), 200))]), 5_000);
  } finally {
    socket.close();
  }
}

describe('two gateways behind Kamailio\'s dispatcher', () => {
  it('nobody but the gateways starts a call through Kamailio; its address answers OPTIONS itself', async () => {
    expect(await ask('INVITE')).toBe('SIP/2.0 403 Forbidden');
    expect(await ask('OPTIONS')).toBe('SIP/2.0 200 OK');
    expect(kamailio.calls()).toEqual([]);
  });

  it('calls spread, a say crosses processes, a killed gateway\'s calls end gateway_lost, the survivor\'s complete, new calls go through the survivor', async () => {
    // Kamailio's probes found both gateways answering (each was out until its process started).
    const stateOf = (sip: string) => kamailio.probes().filter((p) => p.gateway === sip).at(-1)?.state;
    // A gateway is in when Kamailio took it out and back in, or never took it out (its process answered
    // the first probes that reached it); both processes answer by now, so two rounds of probes (one a
    // second) tell a gateway still out from one that is in.
    const since = Date.now();
    await until('both gateways in', async () => Date.now() - since > 2_500 && [A, B].every((s) => stateOf(sipOf.get(s)!) !== 'down'), {
      timeoutMs: 30_000, detail: () => kamailio.log().slice(-4000),
    });
    // Two calls placed on each process: each dials its own through its gateway.
    const a1 = await place(A, '0201');
    const b1 = await place(B, '0202');
    const a2 = await place(A, '0203');
    const b2 = await place(B, '0204');
    const before = [a1, a2, b1, b2];
    const answered = new Map<string, Row>();
    for (const c of before) answered.set(c.id, await untilStatus(c.id, ['answered'], 20_000));
    expect(before.map((c) => answered.get(c.id)!.gateway_id)).toEqual([gatewayOf.get(A), gatewayOf.get(A), gatewayOf.get(B), gatewayOf.get(B)]);
    // Kamailio relayed each from the gateway that holds it.
    const relayed = new Map(kamailio.calls().map((d) => [d.to, d.gateway]));
    expect(before.map((c) => relayed.get(c.to))).toEqual([sipOf.get(A), sipOf.get(A), sipOf.get(B), sipOf.get(B)]);

    // A say for b1 taken by A, which does not hold it: B speaks it on b1's line.
    const said = await api(A, 'POST', `/v1/sessions/${b1.session_id}/say`, { text: 'Your order will arrive on Tuesday morning, between nine and eleven.', lang: 'en' });
    expect(said.status, await said.clone().text()).toBe(202);

    // A killed once each of its calls has been connected a second by its last heartbeat.
    const lastAnswer = Math.max(answered.get(a1.id)!.answered_at!.getTime(), answered.get(a2.id)!.answered_at!.getTime());
    await until('A\'s heartbeat a second past its calls\' answers', async () => {
      const { rows } = await pool.query<{ heartbeat_at: Date }>(`SELECT heartbeat_at FROM gateways WHERE id = $1`, [gatewayOf.get(A)]);
      return rows[0]!.heartbeat_at.getTime() >= lastAnswer + 1000;
    }, 10_000);
    const probed = kamailio.probes().length;
    await A.kill();
    const { rows: [beat] } = await pool.query<{ heartbeat_at: Date }>(`SELECT heartbeat_at FROM gateways WHERE id = $1`, [gatewayOf.get(A)]);

    // A's calls: failed/gateway_lost through B's sweep, ended at A's last sign of life, that time billed once.
    for (const c of [a1, a2]) {
      const ended = await untilStatus(c.id, ENDED, 15_000);
      expect(ended).toMatchObject({ status: 'failed', end_reason: 'gateway_lost' });
      expect(ended.answered_at).toEqual(answered.get(c.id)!.answered_at);
      expect(Math.abs(ended.ended_at!.getTime() - beat!.heartbeat_at.getTime())).toBeLessThan(LOST_S * 1000 / 2);
      const connected = ended.ended_at!.getTime() - ended.answered_at!.getTime();
      expect(Number(ended.billed_seconds)).toBe(Math.ceil(connected / 1000));
      expect(await ledger(c.id)).toEqual([{ kind: 'call', seconds: Number(ended.billed_seconds) }]);
    }
    // Kamailio's probes took A's gateway out (and only it).
    await until('Kamailio to take A\'s gateway out', async () => stateOf(sipOf.get(A)!) === 'down', 10_000);
    expect(kamailio.probes().slice(probed)).toEqual([{ state: 'down', gateway: sipOf.get(A) }]);

    // New calls after the kill, on the one process left: all through the survivor's gateway.
    const n1 = await place(B, '0205');
    const n2 = await place(B, '0206');
    for (const c of [n1, n2]) answered.set(c.id, await untilStatus(c.id, ['answered'], 20_000));
    const after = new Map(kamailio.calls().map((d) => [d.to, d.gateway]));
    expect([n1, n2].map((c) => after.get(c.to))).toEqual([sipOf.get(B), sipOf.get(B)]);

    // The survivor's calls end when the callee hangs up (its BYE through Kamailio to B): completed, billed for the time connected.
    for (const c of [b1, b2, n1, n2]) {
      const ended = await untilStatus(c.id, ENDED, HOLD_MS + 15_000);
      expect(ended).toMatchObject({ status: 'completed', end_reason: 'remote_hangup', gateway_id: gatewayOf.get(B) });
      expect(stateOf(sipOf.get(B)!), 'the survivor stayed in').toBe('up');
      const connected = ended.ended_at!.getTime() - ended.answered_at!.getTime();
      expect(connected).toBeGreaterThanOrEqual(HOLD_MS - 1000);
      expect(connected).toBeLessThan(HOLD_MS + 5000);
      expect(Number(ended.billed_seconds)).toBe(Math.ceil(connected / 1000));
      expect(await ledger(c.id)).toEqual([{ kind: 'call', seconds: Number(ended.billed_seconds) }]);
      // What the API answers agrees.
      expect(await json(await api(B, 'GET', `/v1/calls/${c.id}`))).toMatchObject({ status: 'completed', end_reason: 'remote_hangup', billed_seconds: Number(ended.billed_seconds) });
    }

    // The callee's side: every call came from the one address, Kamailio's, record-routed through it.
    const r = await finished(sipp, HOLD_MS + 20_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    const ofCall = (to: string) => {
      const invite = msgs.find((m) => m.startLine.startsWith('INVITE ') && m.startLine.includes(to))!;
      expect(invite, `the INVITE to ${to}`).toBeDefined();
      const callId = invite.header('Call-ID');
      return { invite, all: msgs.filter((m) => m.header('Call-ID') === callId) };
    };
    const all = [...before, n1, n2];
    for (const c of all) {
      const { invite, all: dialog } = ofCall(c.to);
      expect(vias(invite)[0]).toContain(kamailio.address);
      expect(invite.header('Record-Route')).toContain(kamailio.address);
      const bye = dialog.find((m) => m.startLine.startsWith('BYE '))!;
      expect(bye.header('Route')).toContain(kamailio.address);
      // The BYE's answer: the survivor's 200; for the dead gateway's calls, Kamailio's 481 (no process holds them).
      const answer = dialog.filter((m) => m.by === 'gateway' && /^SIP\/2.0 \d+/.test(m.startLine) && m.header('CSeq')?.endsWith('BYE')).map((m) => m.startLine);
      expect(answer, c.to).toEqual([[a1, a2].includes(c) ? 'SIP/2.0 481 Call/Transaction Does Not Exist' : 'SIP/2.0 200 OK']);
    }

    // The say was spoken on b1's line: b1 carried the disclosure and the say, b2 (the same disclosure) less by the say.
    const sender = (c: { to: string }) => {
      const m = /^m=audio (\d+) /m.exec(ofCall(c.to).invite.body)!;
      return `127.0.0.1:${m[1]}`;
    };
    const withSay = sink.voiced(sender(b1));
    const without = sink.voiced(sender(b2));
    expect(without, 'the disclosure heard on b2').toBeGreaterThan(100);
    // The say is some 4 s of speech: 200 packets of 20 ms; half of them with speech in them at least.
    expect(withSay - without, `voiced packets: b1 ${withSay}, b2 ${without}`).toBeGreaterThan(100);
  });
});
