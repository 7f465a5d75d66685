import { fork } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { until } from '../test/helpers/wait.ts';
import { startFloor, type Floor } from './longpoll-floor.ts';

// The `longpoll` target of npm run bench (bench/run.ts): BENCH_LONGPOLL_N
// (default 900) long-polls of GET /v1/sessions/{id}/events with wait=25 on
// one server process (this one, the production app from buildApp), twice:
// all N polls of one agent session, then one poll each of N sessions. Once
// all of them are waiting, an agent in their room says one phrase
// (POST /v1/sessions/{id}/say) and the time until each poll has received it
// is measured: p50, p99 and max from the say's answer, and the p99 from the
// moment the say was sent. Each fan-out is followed by the same client
// against its floor (bench/longpoll-floor.ts): a bare Fastify + pg process
// that parks the N polls, writes one row and answers them all, in
// BENCH_LONGPOLL_RUNS (default 3) alternating runs whose medians are held
// against each other (one run of this busy machine says little).
// The clients run in a child process (this file with --client, raw sockets,
// keep-alive), so their work is not billed to the server. Memory per waiting
// listener (N sessions), after a full GC: what the second half of the
// listeners adds to the server's heap and RSS, divided by their number (the
// target's measure: the cost of one more listener), and the average over all
// N since before any (which also holds the process's one-time growth under
// the first burst).
// BENCH_LONGPOLL_PROF=FILE writes a CPU profile of this process from the
// phrase's say to the last answer, of each run (FILE.tolk-one.cpuprofile,
// FILE.tolk.cpuprofile).

// The p99 is held against the floor measured beside it in the same run
// (sockets, HTTP, Fastify, one row and the client on this machine), not a fixed figure.
export const LONGPOLL_TARGETS = { p99_x_bare: 1.5, bytes_per_listener: 20 * 1024 } as const;

export type LongpollResult = {
  listeners: number;
  failures: number;
  /** N polls of one agent session. */
  one_session: Fanout;
  /** N polls of N sessions. */
  sessions: Fanout;
  /** What one more waiting listener costs (the second half's growth per listener, N sessions). */
  heap_bytes_per_listener: number;
  rss_bytes_per_listener: number;
  /** Growth since before any listener, over all of them. */
  heap_bytes_average: number;
  rss_bytes_average: number;
  met: { p99: boolean; memory: boolean };
};

type ClientMsg = { type: 'sent'; opened: number } | { type: 'done'; at: number[]; failures: number; sample: string };
/** Parent to client: the setup (each listener's path), then `open` messages, each opening the listeners up to `upto`. */
type ParentMsg = { base: string; keys: string[]; paths: string[] } | { open: number };

/**
 * The child: N long-polls, opened in waves on the parent's command, then the
 * receive time of each answer. A lean HTTP/1.1 client on raw sockets, one
 * keep-alive connection per listener as a polling client keeps it (closed
 * only once every answer is in): it notes the time the moment an answer's
 * last byte arrives, so the figures are the server's and not a
 * general-purpose client's (node:http's client spent ~100 µs per answer
 * here, more than the bare server it measured).
 */
async function client(): Promise<void> {
  // The paths come over IPC: 10,000 of them do not fit in a command line.
  const { base, keys, paths } = await new Promise<{ base: string; keys: string[]; paths: string[] }>((resolve) => process.once('message', resolve));
  const sockets: net.Socket[] = [];
  const { hostname, port } = new URL(base);
  const at: number[] = [];
  let failures = 0;
  let sample = '';
  const fail = (why: string) => {
    failures++;
    sample ||= why;
  };
  // Test keys allow 1,000 requests a day each (api.md), so the listeners share several keys.
  const get = (path: string, key: string) =>
    new Promise<void>((resolve) => {
      const socket = net.connect({ host: hostname, port: Number(port) });
      sockets.push(socket);
      let buf: Buffer = Buffer.alloc(0);
      let settled = false;
      const settle = (why: string | null) => {
        if (settled) return;
        settled = true;
        if (why) {
          fail(why);
          socket.destroy();
        }
        resolve();
      };
      socket.once('connect', () => {
        socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      });
      socket.on('data', (chunk: Buffer) => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const header = buf.subarray(0, head).toString('latin1');
        const length = /\r\ncontent-length: *(\d+)/i.exec(header);
        if (!length) return settle(`no Content-Length: ${header.slice(0, 200)}`);
        if (buf.length < head + 4 + Number(length[1])) return;
        const now = Date.now();
        const body = buf.subarray(head + 4, head + 4 + Number(length[1])).toString('utf8');
        const events = header.startsWith('HTTP/1.1 200 ') ? (JSON.parse(body) as { events?: unknown[] }).events : undefined;
        if (events && events.length > 0) at.push(now);
        else return settle(`${header.slice(0, 12)} ${body.slice(0, 200)}`);
        settle(null);
      });
      socket.on('error', (err) => settle(String(err)));
      socket.on('close', () => settle('closed before a whole answer'));
    });
  const polls: Array<Promise<void>> = [];
  process.on('message', (m: ParentMsg) => {
    if (!('open' in m)) return;
    for (let i = polls.length; i < m.open; i++) polls.push(get(paths[i]!, keys[i % keys.length]!));
    process.send!({ type: 'sent', opened: polls.length } satisfies ClientMsg);
    if (polls.length === paths.length) {
      void Promise.all(polls).then(() => {
        process.send!({ type: 'done', at, failures, sample } satisfies ClientMsg);
        for (const socket of sockets) socket.destroy();
      });
    }
  });
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

type Measured = {
  received: number; failures: number; p50_ms: number; p99_ms: number; max_ms: number; p99_from_sent_ms: number; trigger_ms: number;
  heap_bytes_per_listener: number; rss_bytes_per_listener: number; heap_bytes_average: number; rss_bytes_average: number;
};

/**
 * One measurement: the client child opens a long-poll per id against base;
 * once `waiting()` counts them all, the memory per waiting listener is taken
 * and `trigger` makes the phrase arrive (resolving when it has been said, or
 * with the moment it counts as said); latencies are from that moment to each
 * client holding its answer.
 */
async function measure(
  base: string, keys: string[], paths: string[], waiting: () => number | Promise<number>, trigger: () => Promise<number | void>, log: (m: string) => void, label: string,
): Promise<Measured> {
  const n = paths.length;
  gc();
  const before = process.memoryUsage();
  if (process.env.BENCH_HEAPSNAP) v8.writeHeapSnapshot(`${process.env.BENCH_HEAPSNAP}.${label}.before`);
  const child = fork(fileURLToPath(import.meta.url), ['--client'], { stdio: 'inherit' });
  child.send({ base, keys, paths } satisfies ParentMsg);
  try {
    const messages: ClientMsg[] = [];
    let wake: () => void = () => {};
    child.on('message', (m: ClientMsg) => { messages.push(m); wake(); });
    const next = (type: ClientMsg['type'], opened?: number) =>
      new Promise<ClientMsg>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`long-poll client: no '${type}' in 120 s`)), 120_000);
        const check = () => {
          const m = messages.find((x) => x.type === type && (opened === undefined || (x.type === 'sent' && x.opened === opened)));
          if (m) { clearTimeout(timer); resolve(m); } else wake = check;
        };
        check();
      });
    // Two waves: half the listeners, then all of them. What the second half
    // adds, per listener, is the cost of one more waiting listener; the
    // process's one-time growth under the first burst (V8 enlarging its young
    // generation, pools, caches) is not a listener's. Both figures are reported.
    const half = Math.floor(n / 2);
    const wave = async (upto: number) => {
      child.send({ open: upto } satisfies ParentMsg);
      await next('sent', upto);
      let seen = 0;
      await until(`${upto} listeners waiting`, async () => (seen = await waiting()) >= upto, { timeoutMs: 60_000, intervalMs: 50, detail: () => `only ${seen} waiting` });
      await new Promise((r) => setTimeout(r, 500));
      gc();
      return process.memoryUsage();
    };
    const mid = await wave(half);
    const held = await wave(n);
    log(`longpoll ${label}: ${n} listeners waiting`);
    if (process.env.BENCH_MEMDEBUG) for (const sp of v8.getHeapSpaceStatistics()) log(`space ${label} ${sp.space_name}: size ${Math.round(sp.space_size / 1e6)} MB used ${Math.round(sp.space_used_size / 1e6)} MB`);
    if (process.env.BENCH_HEAPSNAP) v8.writeHeapSnapshot(`${process.env.BENCH_HEAPSNAP}.${label}`);
    const profFile = process.env.BENCH_LONGPOLL_PROF;
    const prof = profFile ? new Session() : null;
    if (prof) {
      prof.connect();
      await prof.post('Profiler.enable');
      await prof.post('Profiler.setSamplingInterval', { interval: 100 });
      await prof.post('Profiler.start');
    }
    const sent = Date.now();
    // From the moment the trigger says the phrase counts as said, else from its return.
    const t0 = (await trigger()) ?? Date.now();
    const done = (await next('done')) as Extract<ClientMsg, { type: 'done' }>;
    if (prof) {
      const { profile } = await prof.post('Profiler.stop');
      fs.writeFileSync(`${profFile}.${label}.cpuprofile`, JSON.stringify(profile));
      prof.disconnect();
    }
    if (done.failures > 0) log(`longpoll ${label}: ${done.failures} listeners failed, e.g. ${done.sample}`);
    // Received before the trigger's answer arrived: 0 ms after it.
    const lat = done.at.map((x) => Math.max(0, x - t0)).sort((a, b) => a - b);
    const fromSent = done.at.map((x) => x - sent).sort((a, b) => a - b);
    return {
      received: done.at.length,
      failures: done.failures,
      trigger_ms: t0 - sent,
      p50_ms: pct(lat, 50),
      p99_ms: pct(lat, 99),
      max_ms: lat.at(-1) ?? NaN,
      p99_from_sent_ms: pct(fromSent, 99),
      heap_bytes_per_listener: Math.round((held.heapUsed + held.external - mid.heapUsed - mid.external) / (n - half)),
      rss_bytes_per_listener: Math.round((held.rss - mid.rss) / (n - half)),
      heap_bytes_average: Math.round((held.heapUsed + held.external - before.heapUsed - before.external) / n),
      rss_bytes_average: Math.round((held.rss - before.rss) / n),
    };
  } finally {
    child.kill();
  }
}

/** One fan-out of the platform, and the floor's beside it (the same client, the same number of polls). */
type Fanout = {
  received: number;
  failures: number;
  say_ms: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  p99_from_sent_ms: number;
  /** The floor (bench/longpoll-floor.ts): a bare Fastify + pg process that parks the polls, writes one row and answers them all. */
  floor: { p50_ms: number; p99_ms: number; max_ms: number; failures: number };
  /** Each run's p99, the platform's and the floor's: the figures above are the runs' medians. */
  runs: Array<{ p99_ms: number; floor_p99_ms: number }>;
  met: boolean;
};

/** The runs' medians (each figure on its own), every run's p99, and whether every poll of every run had its answer. */
function fanout(tolks: Measured[], floors: Measured[], n: number): Fanout {
  const median = (ms: Measured[], f: (m: Measured) => number) => {
    const v = ms.map(f).sort((a, b) => a - b);
    return v[(v.length - 1) >> 1]!;
  };
  const t = (f: (m: Measured) => number) => median(tolks, f);
  const b = (f: (m: Measured) => number) => median(floors, f);
  const p99 = t((m) => m.p99_ms);
  const floorP99 = b((m) => m.p99_ms);
  const received = Math.min(...tolks.map((m) => m.received));
  return {
    received, failures: tolks.reduce((a, m) => a + m.failures, 0), say_ms: t((m) => m.trigger_ms), p50_ms: t((m) => m.p50_ms), p99_ms: p99,
    max_ms: t((m) => m.max_ms), p99_from_sent_ms: t((m) => m.p99_from_sent_ms),
    floor: { p50_ms: b((m) => m.p50_ms), p99_ms: floorP99, max_ms: b((m) => m.max_ms), failures: floors.reduce((a, m) => a + m.failures, 0) },
    runs: tolks.map((m, i) => ({ p99_ms: m.p99_ms, floor_p99_ms: floors[i]!.p99_ms })),
    met: received === n && p99 <= LONGPOLL_TARGETS.p99_x_bare * floorP99,
  };
}

/** The floor's fan-out: its process parks the polls; the wake writes its row, answers, then answers them all. */
async function floorFanout(floor: Floor, n: number, log: (m: string) => void, label: string): Promise<Measured> {
  return measure(floor.url, ['bare'], new Array<string>(n).fill('/bare/poll'), floor.parked, async () => {
    const woke = await fetch(`${floor.url}/bare/wake`, { method: 'POST' });
    if (woke.status !== 202) throw new Error(`the floor's wake answered ${woke.status}`);
    await woke.arrayBuffer();
  }, log, label);
}

export async function runLongpollBench(databaseUrl: string, log: (m: string) => void): Promise<LongpollResult> {
  const n = Number(process.env.BENCH_LONGPOLL_N ?? 900);
  const runs = Math.max(1, Number(process.env.BENCH_LONGPOLL_RUNS ?? 3));
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false, maxSessions: n + 10 });
  const pool: Pool = createPool(databaseUrl, 20);
  const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
  let app: FastifyInstance | null = null;
  let floor: Floor | null = null;
  try {
    app = await buildApp({ config, pool, boss, databaseUrl });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    floor = await startFloor(databaseUrl);
    const org = await createOrg(pool, { name: 'Long-poll bench' });
    // Test keys allow 1,000 requests a day each (api.md): the setup and says on a key, a key per 900 polls of each fan-out.
    const key = await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 });
    const keysOf = async () => {
      const keys: string[] = [];
      for (let i = 0; i < Math.ceil(n / 900); i++) keys.push((await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 })).secret);
      return keys;
    };
    const headers = { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' };
    const room = await fetch(`${base}/v1/rooms`, {
      method: 'POST', headers: { ...headers, 'idempotency-key': crypto.randomUUID() }, body: JSON.stringify({ langs: ['en', 'es'] }),
    });
    const roomId = ((await room.json()) as { id: string }).id;
    // The speaker joins through the API; the N listeners are written in one
    // statement (joining them one by one through the API takes minutes at 10,000).
    const joined = await fetch(`${base}/v1/rooms/${roomId}/agent-sessions`, {
      method: 'POST', headers: { ...headers, 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ name: 'Speaker', speak_lang: 'en', hear_lang: 'en', announce: false }),
    });
    const speakerId = ((await joined.json()) as { id: string }).id;
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO agent_sessions (id, org_id, livemode, credential_id, room_id, log_id, name, speak_lang, hear_lang, status, from_seq, metered_seq)
       SELECT 'ses_bench' || lpad(g::text, 8, '0'), $1, false, $2, $3, $3, 'Listener ' || g, 'en', (ARRAY['es', 'fr', 'de', 'pt'])[1 + g % 4], 'active', h.seq, h.seq
         FROM generate_series(1, $4) AS g, (SELECT coalesce((SELECT seq FROM room_logs WHERE room_id = $3), 0) AS seq) h RETURNING id`,
      [org.id, key.id, roomId, n],
    );
    const ids = rows.map((r) => r.id);
    const bus = app.sessionBus;
    const say = async () => {
      const said = await fetch(`${base}/v1/sessions/${speakerId}/say`, { method: 'POST', headers, body: JSON.stringify({ text: 'Good morning, everyone.' }) });
      if (said.status !== 202) throw new Error(`say answered ${said.status}: ${await said.text()}`);
    };
    const seq = async () => Number((await pool.query(`SELECT coalesce((SELECT seq FROM room_logs WHERE room_id = $1), 0) AS seq`, [roomId])).rows[0].seq);
    // N polls of one session (after what its room has said so far), then N polls of N sessions, each
    // in alternating runs with the floor (the machine's load drifts; the first run of a process is cold).
    const both = async (label: string, paths: (after: number) => string[]) => {
      const tolks: Measured[] = [];
      const floors: Measured[] = [];
      for (let r = 0; r < runs; r++) {
        const platform = async () => { const keys = await keysOf(); tolks.push(await measure(base, keys, paths(await seq()), () => bus.size, say, log, label)); };
        const bare = async () => { floors.push(await floorFanout(floor!, n, log, `floor-${label}`)); };
        if (r % 2 === 0) { await platform(); await bare(); } else { await bare(); await platform(); }
      }
      return { tolks, floors };
    };
    const one = await both('tolk-one', (after) => new Array<string>(n).fill(`/v1/sessions/${ids[0]}/events?cursor=${after}&wait=25`));
    const many = await both('tolk', (after) => ids.map((id) => `/v1/sessions/${id}/events?cursor=${after}&wait=25`));
    const oneSession = fanout(one.tolks, one.floors, n);
    const sessions = fanout(many.tolks, many.floors, n);
    // Memory: the first run of N sessions (later runs grow nothing new).
    const tolk = many.tolks[0]!;
    return {
      listeners: n,
      failures: oneSession.failures + sessions.failures,
      one_session: oneSession,
      sessions,
      heap_bytes_per_listener: tolk.heap_bytes_per_listener,
      rss_bytes_per_listener: tolk.rss_bytes_per_listener,
      heap_bytes_average: tolk.heap_bytes_average,
      rss_bytes_average: tolk.rss_bytes_average,
      met: {
        p99: sessions.met && oneSession.met,
        memory: Math.max(tolk.heap_bytes_per_listener, tolk.rss_bytes_per_listener) <= LONGPOLL_TARGETS.bytes_per_listener,
      },
    };
  } finally {
    await floor?.close().catch(() => {});
    await app?.close().catch(() => {});
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
  }
}

export function printLongpollReport(r: LongpollResult): void {
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`\nLong-poll fan-out: ${r.listeners} polls waiting on one process, one phrase said (times from the say's answer; the floor's from its wake's; medians of ${r.sessions.runs.length} runs)`);
  const row = (f: Fanout) => ({ received: f.received, 'say ms': f.say_ms, 'p50 ms': f.p50_ms, 'p99 ms': f.p99_ms, 'max ms': f.max_ms, 'p99 from sent ms': f.p99_from_sent_ms });
  const floorRow = (f: Fanout) => ({ received: r.listeners - f.floor.failures, 'say ms': 0, 'p50 ms': f.floor.p50_ms, 'p99 ms': f.floor.p99_ms, 'max ms': f.floor.max_ms, 'p99 from sent ms': 'n/a' });
  console.table({
    'tolk, one session': row(r.one_session), 'floor (Fastify + pg)': floorRow(r.one_session),
    [`tolk, ${r.listeners} sessions`]: row(r.sessions), 'floor (Fastify + pg) ': floorRow(r.sessions),
  });
  for (const [what, f] of [['one session', r.one_session], [`${r.listeners} sessions`, r.sessions]] as const) {
    const each = f.runs.map((x) => `${x.p99_ms}/${x.floor_p99_ms}`).join(', ');
    console.log(`p99 until every poll of ${what} has it: ${f.p99_ms} ms, ${(f.p99_ms / f.floor.p99_ms).toFixed(2)}x the floor's ${f.floor.p99_ms} ms (target <= ${LONGPOLL_TARGETS.p99_x_bare}x; runs ${each} ms) ${mark(f.met)}`);
  }
  console.log(
    `memory per waiting listener (${r.listeners} sessions): heap ${r.heap_bytes_per_listener} B, rss ${r.rss_bytes_per_listener} B (target <= ${LONGPOLL_TARGETS.bytes_per_listener} B; ` +
      `average since before any listener: heap ${r.heap_bytes_average} B, rss ${r.rss_bytes_average} B) ${mark(r.met.memory)}`,
  );
}

if (process.argv[2] === '--client') await client();
