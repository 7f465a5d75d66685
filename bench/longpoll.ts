import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, withTx, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs/boss.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { publishSegment } from '../src/sessions/publish.ts';
import { until } from '../test/helpers/wait.ts';

// The `longpoll` target of npm run bench (bench/run.ts): BENCH_LONGPOLL_N
// (default 5000) agent sessions long-poll GET /v1/sessions/{id}/events with
// wait=25 on one server process (this one, the production app from buildApp);
// once all of them are waiting, one phrase is published in their room and the
// time until each listener has received it is measured (p50, p99, max, from
// the start of the publishing transaction to the client reading the answer).
// The clients run in a child process (this file with --client) over one
// http.Agent, so their work is not billed to the server. Memory per waiting
// listener: the server's heap and RSS with every listener waiting minus
// before any, after a full GC, divided by N.

export const LONGPOLL_TARGETS = { p99_ms: 200, bytes_per_listener: 20 * 1024 } as const;

export type LongpollResult = {
  listeners: number;
  received: number;
  publish_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  heap_bytes_per_listener: number;
  rss_bytes_per_listener: number;
  met: { p99: boolean; memory: boolean };
};

type ClientMsg = { type: 'sent' } | { type: 'done'; at: number[]; failures: number; sample: string };

/** The child: N long-polls, then the receive time of each answer. */
async function client(): Promise<void> {
  const { base, keys, ids } = JSON.parse(process.argv[3]!) as { base: string; keys: string[]; ids: string[] };
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const at: number[] = [];
  let failures = 0;
  let sample = '';
  // Test keys allow 1,000 requests a day each (api.md), so the listeners share several keys.
  const get = (id: string, key: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get(`${base}/v1/sessions/${id}/events?cursor=0&wait=25`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d) => { body += d; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
  const polls = ids.map(async (id, i) => {
    try {
      const res = await get(id, keys[i % keys.length]!);
      const now = Date.now();
      const events = (JSON.parse(res.body) as { events?: unknown[] }).events;
      if (res.status === 200 && events && events.length > 0) at.push(now);
      else {
        failures++;
        sample ||= `${res.status} ${res.body.slice(0, 200)}`;
      }
    } catch (err) {
      failures++;
      sample ||= String(err);
    }
  });
  process.send!({ type: 'sent' } satisfies ClientMsg);
  await Promise.all(polls);
  process.send!({ type: 'done', at, failures, sample } satisfies ClientMsg);
  agent.destroy();
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export async function runLongpollBench(databaseUrl: string, log: (m: string) => void): Promise<LongpollResult> {
  const n = Number(process.env.BENCH_LONGPOLL_N ?? 5000);
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false, maxSessions: n + 10 });
  const pool: Pool = createPool(databaseUrl, 20);
  const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
  let app: FastifyInstance | null = null;
  try {
    app = await buildApp({ config, pool, boss, databaseUrl });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const org = await createOrg(pool, { name: 'Long-poll bench' });
    const keys = [];
    for (let i = 0; i < Math.ceil(n / 900); i++) keys.push(await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 }));
    const key = keys[0]!;
    const room = await fetch(`${base}/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'idempotency-key': crypto.randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify({ langs: ['en', 'es'] }),
    });
    const roomId = ((await room.json()) as { id: string }).id;
    // N sessions in the room, written in one statement (joining them one by
    // one through the API would announce each to all the others: N² events).
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO agent_sessions (id, org_id, livemode, credential_id, room_id, name, speak_lang, hear_lang, status)
       SELECT 'ses_bench' || lpad(g::text, 8, '0'), $1, false, $2, $3, 'Listener ' || g, 'en', (ARRAY['es', 'fr', 'de', 'pt'])[1 + g % 4], 'active'
         FROM generate_series(1, $4) AS g RETURNING id`,
      [org.id, key.id, roomId, n],
    );
    const ids = rows.map((r) => r.id);

    gc();
    const before = process.memoryUsage();
    const child = fork(fileURLToPath(import.meta.url), ['--client', JSON.stringify({ base, keys: keys.map((k) => k.secret), ids })], { stdio: 'inherit' });
    const messages: ClientMsg[] = [];
    let wake: () => void = () => {};
    child.on('message', (m: ClientMsg) => { messages.push(m); wake(); });
    const next = (type: ClientMsg['type']) =>
      new Promise<ClientMsg>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`long-poll client: no '${type}' in 120 s`)), 120_000);
        const check = () => {
          const m = messages.find((x) => x.type === type);
          if (m) { clearTimeout(timer); resolve(m); } else wake = check;
        };
        check();
      });
    await next('sent');
    const bus = app.sessionBus;
    await until(`${n} listeners waiting`, async () => bus.size >= n, { timeoutMs: 60_000, intervalMs: 50, detail: () => `only ${bus.size} waiting` });
    log(`longpoll: ${n} listeners waiting`);
    await new Promise((r) => setTimeout(r, 500));
    gc();
    const waiting = process.memoryUsage();

    const t0 = Date.now();
    await withTx(pool, (tx) =>
      publishSegment({ config, pool, boss }, tx, { roomId, kind: 'robot', speaker: 'Robot A', participantId: 'robot_a', srcLang: 'en', text: 'Good morning, everyone.' }),
    );
    const publishMs = Date.now() - t0;
    const done = (await next('done')) as Extract<ClientMsg, { type: 'done' }>;
    child.kill();
    if (done.failures > 0) log(`longpoll: ${done.failures} listeners failed, e.g. ${done.sample}`);
    const lat = done.at.map((x) => x - t0).sort((a, b) => a - b);
    const heap = Math.round((waiting.heapUsed + waiting.external - before.heapUsed - before.external) / n);
    const rss = Math.round((waiting.rss - before.rss) / n);
    const p99 = pct(lat, 99);
    return {
      listeners: n,
      received: done.at.length,
      publish_ms: publishMs,
      p50_ms: pct(lat, 50),
      p99_ms: p99,
      max_ms: lat.at(-1) ?? NaN,
      heap_bytes_per_listener: heap,
      rss_bytes_per_listener: rss,
      met: { p99: done.at.length === n && p99 < LONGPOLL_TARGETS.p99_ms, memory: Math.max(heap, rss) < LONGPOLL_TARGETS.bytes_per_listener },
    };
  } finally {
    await app?.close().catch(() => {});
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
  }
}

export function printLongpollReport(r: LongpollResult): void {
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`\nLong-poll fan-out: ${r.listeners} listeners waiting on one process, one phrase published`);
  console.table({
    longpoll: {
      listeners: r.listeners, received: r.received, 'publish tx ms': r.publish_ms, 'p50 ms': r.p50_ms, 'p99 ms': r.p99_ms, 'max ms': r.max_ms,
      'heap B/listener': r.heap_bytes_per_listener, 'rss B/listener': r.rss_bytes_per_listener,
    },
  });
  console.log(`p99 until every listener has it: ${r.p99_ms} ms (target < ${LONGPOLL_TARGETS.p99_ms} ms) ${mark(r.met.p99)}`);
  console.log(`memory per waiting listener: heap ${r.heap_bytes_per_listener} B, rss ${r.rss_bytes_per_listener} B (target < ${LONGPOLL_TARGETS.bytes_per_listener} B) ${mark(r.met.memory)}`);
}

if (process.argv[2] === '--client') await client();
