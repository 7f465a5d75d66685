import { addressOf, joinPages, type Creds } from './pages.ts';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import http from 'node:http';
import net from 'node:net';
import { openRoomStream } from './sse.ts';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { PUBLIC_LIMITS } from '../src/public-limits.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { until } from '../test/helpers/wait.ts';
import { envNumber, machineBusy, round, sleep, stats, type LatencyStats } from './stats.ts';

// The `room_page` target of npm run bench (bench/run.ts): BENCH_ROOM_PAGES
// (default 1000) room pages of one public room on one server process (this
// one, the production app from buildApp, workers off), as bench/longpoll.ts
// runs its listeners. Each page joins with POST /r/{id}/participants (it
// speaks en and hears pt, de, es or fr in turn, so each phrase is translated
// once per language), then opens its stream, GET /r/{id}/stream (Server-Sent
// Events), over a keep-alive connection of its own. All pages join first,
// then the streams open (in two waves, for the memory figure): with the
// streams open, every join would be sent to every page as a `joined` event.
// Setup is done when app.roomHub.size counts every page and every page has
// its first `participants` event (the whole list, once per page).
//
// Then page 0 says a phrase, POST /r/{id}/say, BENCH_ROOM_ROUNDS (default 5)
// times, BENCH_ROOM_GAP_MS (default 1000) apart, and for each page the time
// until it holds the `phrase` event of that seq is measured: from the say's
// answer (as the longpoll target counts) and from the moment before it was
// sent; the rounds are reported together (p50, p95, p99, max over all pages
// and rounds), and per round. Target: p99 <= 250 ms from the answer.
//
// The pages run in a child process (this file with --client): joins through
// node:http, 16 at a time over keep-alive connections; each stream on a raw
// socket, which notes the time the moment the chunk holding the phrase
// arrives, so the figures are the server's and not a general-purpose
// client's. The pages come from 64 loopback addresses (127.0.0.10-73), as
// people come from their own: the page routes are anonymous, and the server
// allows 6,000 requests a minute per client address (http/auth.ts).
// Memory per connected page, after a full GC: what the second half of the
// pages adds to the server's heap and RSS, divided by their number (the cost
// of one more page), and the average over all pages since before the first
// stream opened.
//
// BENCH_ROOM_DIAG=1 adds where a round's time goes on the server: from the
// say's answer to the feed's read of the new phrase, the read itself (its
// room_segments query), and the writes of the phrase to every page (first to
// last res.write holding it), then the first and the last page holding it.
// BENCH_ROOM_PROF=FILE writes a CPU profile of this process over the rounds
// only (open it in Chrome DevTools).

export const ROOM_PAGE_TARGETS = { p99_ms: 250 } as const;

const LANGS = ['pt', 'de', 'es', 'fr'] as const;
const PHRASES = [
  'Good morning, everyone.',
  'Can everyone hear me well?',
  'Let us begin with the first item on the agenda.',
  'Thank you, that was very helpful.',
  'We will take a short break now.',
  'Please send me your questions afterwards.',
];

type RoundDiag = { read_start_ms: number; read_ms: number; first_write_ms: number; last_write_ms: number; writes: number; client_first_ms: number; client_last_ms: number };

export type RoomPageRound = {
  seq: number;
  say_ms: number;
  received: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  p99_from_sent_ms: number;
  /** BENCH_ROOM_DIAG: ms after the say's answer. */
  diag?: RoundDiag;
};

export type RoomPageResult = {
  pages: number;
  langs: string[];
  rounds: number;
  failures: number;
  /** Every page, every round: from the say's answer / from before it was sent. */
  latency: LatencyStats & { p95_ms: number };
  from_sent: LatencyStats & { p95_ms: number };
  per_round: RoomPageRound[];
  setup: { join_ms: number; joins_per_s: number; streams_ms: number; total_ms: number; list_bytes: number };
  /** CPU of this process (the server) per round, from the say to every page holding it. */
  server_cpu_ms_per_round: number;
  /** How busy the whole machine was during the rounds (all CPUs, the benchmark's client and other programs included); null off Linux. */
  machine_busy_pct: number | null;
  heap_bytes_per_page: number;
  rss_bytes_per_page: number;
  heap_bytes_average: number;
  rss_bytes_average: number;
  met: { p99: boolean };
};

type ParentMsg =
  | { type: 'setup'; base: string; roomId: string; n: number; concurrency: number }
  | { type: 'open'; upto: number }
  | { type: 'collect'; seq: number; timeoutMs: number }
  | { type: 'close' };
type ClientMsg =
  | { type: 'joined'; ms: number; failures: number; sample: string; speaker: Creds }
  | { type: 'opened'; upto: number; listed: number; failures: number; sample: string; list_bytes: number; list_len: number }
  | { type: 'phrase'; seq: number; at: number[]; wrong: number }
  | { type: 'closed' };

/**
 * The child: joins the N pages, opens their streams on the parent's command
 * (each on its own raw socket, HTTP/1.1, chunked), and notes when each page
 * holds each phrase.
 */
async function client(): Promise<void> {
  const setup = await new Promise<Extract<ParentMsg, { type: 'setup' }>>((resolve) => process.once('message', resolve));
  const { base, roomId, n, concurrency } = setup;
  const { hostname, port } = new URL(base);
  let failures = 0;
  let sample = '';
  const fail = (why: string) => {
    failures++;
    sample ||= why;
  };

  // --- Joins (bench/pages.ts).
  const { creds, ms: joinMs } = await joinPages({ base, roomId, n, concurrency, langs: LANGS, fail });
  process.send!({ type: 'joined', ms: joinMs, failures, sample, speaker: creds[0]! } satisfies ClientMsg);

  // --- Streams.
  const sockets: net.Socket[] = [];
  /** Per seq, the moments pages received it. */
  const got = new Map<number, number[]>();
  let wrong = 0;
  let listed = 0;
  let settledPages = 0;
  let listBytes = 0;
  let listLen = -1;
  let onProgress: () => void = () => {};

  const open = (i: number) => {
    const p = creds[i];
    if (!p) { fail(`page ${i} never joined`); settledPages++; return; }
    const hear = LANGS[i % LANGS.length]!;
    const wantLang = `"lang":"${hear}"`;
    let isListed = false;
    let done = false;
    const settle = (why: string | null) => {
      if (done) return;
      done = true;
      settledPages++;
      if (why) { fail(`page ${i}: ${why}`); socket.destroy(); }
      onProgress();
    };
    const socket = openRoomStream({ host: hostname, port: Number(port), localAddress: addressOf(i), roomId, participant: p }, {
      onEvent: ({ name, id, data, block }, now) => {
        if (name === 'phrase') {
          const seq = Number(id);
          let list = got.get(seq);
          if (!list) got.set(seq, (list = []));
          list.push(now);
          if (!data.includes(wantLang)) wrong++;
          onProgress();
        } else if (name === 'participants') {
          if (!isListed) {
            isListed = true;
            listed++;
            if (listLen < 0) {
              listBytes = Buffer.byteLength(block) + 2;
              listLen = (JSON.parse(data) as { participants: unknown[] }).participants.length;
            }
            settle(null);
          }
        } else if (name === 'ended' || name === 'gone') {
          fail(`page ${i}: ${name} ${data}`);
        }
      },
      onFail: (why) => settle(why),
      onClose: () => {
        if (!closing) { if (done) fail(`page ${i}: stream closed`); else settle('closed before its participants event'); }
      },
    });
    sockets.push(socket);
  };

  let opened = 0;
  let closing = false;
  process.on('message', (m: ParentMsg) => {
    if (m.type === 'open') {
      for (; opened < m.upto; opened++) open(opened);
      const upto = m.upto;
      onProgress = () => {
        if (settledPages < upto) return;
        onProgress = () => {};
        process.send!({ type: 'opened', upto, listed, failures, sample, list_bytes: listBytes, list_len: listLen } satisfies ClientMsg);
      };
      onProgress();
    } else if (m.type === 'collect') {
      const deadline = setTimeout(() => reply(), m.timeoutMs);
      const reply = () => {
        clearTimeout(deadline);
        onProgress = () => {};
        process.send!({ type: 'phrase', seq: m.seq, at: got.get(m.seq) ?? [], wrong } satisfies ClientMsg);
      };
      onProgress = () => { if ((got.get(m.seq)?.length ?? 0) >= opened) reply(); };
      onProgress();
    } else if (m.type === 'close') {
      closing = true;
      for (const s of sockets) s.destroy();
      process.send!({ type: 'closed' } satisfies ClientMsg);
    }
  });
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** BENCH_ROOM_DIAG: the feed's read of room_segments and the res.writes holding a phrase, timed in this process. */
function instrument(pool: Pool) {
  const reads: Array<[number, number]> = [];
  const writes: number[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const cfg = args[0] as { text?: string } | undefined;
    const out = query(...args);
    if (typeof cfg === 'object' && cfg?.text?.includes('FROM room_segments') && out instanceof Promise) {
      const t0 = Date.now();
      out.then(() => reads.push([t0, Date.now()]), () => {});
    }
    return out;
  };
  const proto = http.ServerResponse.prototype as unknown as { write: (...args: unknown[]) => boolean };
  const write = proto.write;
  proto.write = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'string' && args[0].includes('event: phrase')) writes.push(Date.now());
    return write.apply(this, args);
  };
  return {
    /**
     * The read that found the phrase (the first one starting after the say was
     * sent) and the writes since, in ms after t0 (the say's answer).
     */
    round(sent: number, t0: number, clientFirst: number, clientLast: number): RoundDiag | undefined {
      const r = reads.find(([a]) => a >= sent);
      const w = writes.filter((x) => x >= sent);
      reads.length = 0;
      writes.length = 0;
      if (!r || w.length === 0) return undefined;
      return {
        read_start_ms: r[0] - t0, read_ms: r[1] - r[0], first_write_ms: w[0]! - t0, last_write_ms: w.at(-1)! - t0, writes: w.length,
        client_first_ms: clientFirst - t0, client_last_ms: clientLast - t0,
      };
    },
    restore() {
      (pool as unknown as { query: unknown }).query = query;
      proto.write = write;
    },
  };
}

const withP95 = (v: number[]) => {
  const s = stats(v);
  const sorted = [...v].sort((a, b) => a - b);
  const p95 = sorted.length ? round(sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)]!) : NaN;
  return { ...s, p95_ms: p95 };
};

export async function runRoomPageBench(databaseUrl: string, log: (m: string) => void): Promise<RoomPageResult> {
  const n = Math.max(2, Math.round(envNumber('BENCH_ROOM_PAGES', 1000)));
  const rounds = Math.max(1, Math.round(envNumber('BENCH_ROOM_ROUNDS', 5)));
  const gapMs = envNumber('BENCH_ROOM_GAP_MS', 1000);
  const diagOn = process.env.BENCH_ROOM_DIAG === '1';
  // Every page here joins from one address (the client process): the limits on anonymous joins
  // and rooms (README, Public pages and their limits) are lifted, as for a room of that many people
  // behind one office's network.
  const l = PUBLIC_LIMITS;
  const publicLimits = { ...l, anonymousPerMinute: 1e9, joinsPerClientMinute: 1e9, joinsPerRoomMinute: 1e9, participantsPerRoom: n + 10, streamsPerParticipant: 10 };
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false, publicLimits });
  const pool: Pool = createPool(databaseUrl, 20);
  const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
  let app: FastifyInstance | null = null;
  const child = fork(fileURLToPath(import.meta.url), ['--client'], { stdio: 'inherit' });
  const messages: ClientMsg[] = [];
  let wake: () => void = () => {};
  child.on('message', (m: ClientMsg) => { messages.push(m); wake(); });
  const next = <T extends ClientMsg['type']>(type: T, pred: (m: Extract<ClientMsg, { type: T }>) => boolean = () => true, timeoutMs = 180_000) =>
    new Promise<Extract<ClientMsg, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`room page client: no '${type}' in ${timeoutMs / 1000} s`)), timeoutMs);
      const onExit = () => { clearTimeout(timer); reject(new Error(`room page client exited while waiting for '${type}'`)); };
      child.once('exit', onExit);
      const check = () => {
        const i = messages.findIndex((x) => x.type === type && pred(x as Extract<ClientMsg, { type: T }>));
        if (i >= 0) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(messages.splice(i, 1)[0] as Extract<ClientMsg, { type: T }>);
        } else wake = check;
      };
      check();
    });
  const diag = diagOn ? instrument(pool) : null;
  try {
    app = await buildApp({ config, pool, boss, databaseUrl });
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    const hub = app.roomHub;
    const org = await createOrg(pool, { name: 'Room page bench' });
    const key = await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 });
    const created = await fetch(`${base}/v1/rooms`, {
      method: 'POST', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ langs: ['en', ...LANGS], visibility: 'public', title: 'Room page bench' }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/rooms answered ${created.status}: ${await created.text()}`);
    const roomId = ((await created.json()) as { id: string }).id;

    // --- Setup: every page joins, then the streams open in two waves.
    child.send({ type: 'setup', base, roomId, n, concurrency: 16 } satisfies ParentMsg);
    const joined = await next('joined');
    if (joined.failures > 0) throw new Error(`${joined.failures} of ${n} joins failed, e.g. ${joined.sample}`);
    log(`room_page: ${n} pages joined in ${joined.ms} ms`);
    gc();
    const before = process.memoryUsage();
    let streamsMs = 0;
    let listBytes = 0;
    const half = Math.floor(n / 2);
    const wave = async (upto: number) => {
      const t0 = Date.now();
      child.send({ type: 'open', upto } satisfies ParentMsg);
      const opened = await next('opened', (m) => m.upto === upto);
      if (opened.failures > 0) throw new Error(`${opened.failures} pages failed to open, e.g. ${opened.sample}`);
      if (opened.list_len !== n) throw new Error(`the first participants event listed ${opened.list_len} people, not ${n}`);
      await until(`${upto} pages connected`, async () => hub.size >= upto, { timeoutMs: 60_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` });
      streamsMs += Date.now() - t0;
      listBytes = opened.list_bytes;
      log(`room_page: ${upto} streams open, each sent the list of ${opened.list_len} (${Math.round(opened.list_bytes / 1024)} KB), ${Date.now() - t0} ms`);
      await sleep(500);
      gc();
      return process.memoryUsage();
    };
    const mid = await wave(half);
    const held = await wave(n);

    // --- Rounds: page 0 says a phrase; every page must hold it.
    const perRound: RoomPageRound[] = [];
    const all: number[] = [];
    const allFromSent: number[] = [];
    let failures = 0;
    let wrong = 0;
    let cpuUs = 0;
    let busy = 0;
    let wall = 0;
    const profFile = process.env.BENCH_ROOM_PROF;
    const prof = profFile ? new Session() : null;
    if (prof) {
      prof.connect();
      await prof.post('Profiler.enable');
      await prof.post('Profiler.setSamplingInterval', { interval: 100 });
      await prof.post('Profiler.start');
    }
    for (let r = 0; r < rounds; r++) {
      if (r > 0) await sleep(gapMs);
      const cpu0 = process.cpuUsage();
      const busy0 = machineBusy();
      const sent = Date.now();
      const said = await fetch(`${base}/r/${roomId}/say`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ participant: joined.speaker.id, secret: joined.speaker.secret, text: PHRASES[r % PHRASES.length] }),
      });
      const answered = Date.now();
      const body = await said.text();
      if (said.status !== 202) throw new Error(`POST /r/${roomId}/say answered ${said.status}: ${body}`);
      const seq = (JSON.parse(body) as { seq: number }).seq;
      child.send({ type: 'collect', seq, timeoutMs: 30_000 } satisfies ParentMsg);
      const got = await next('phrase', (m) => m.seq === seq, 40_000);
      const cpu = process.cpuUsage(cpu0);
      cpuUs += cpu.user + cpu.system;
      const busy1 = machineBusy();
      if (busy0 !== null && busy1 !== null) busy += busy1 - busy0;
      wall += Date.now() - sent;
      wrong = got.wrong;
      const missing = n - got.at.length;
      if (missing > 0) {
        failures += missing;
        log(`room_page: round ${r + 1}: ${missing} pages never received seq ${seq}`);
      }
      // Received before the say's answer arrived: 0 ms after it.
      const lat = got.at.map((x) => Math.max(0, x - answered));
      const fromSent = got.at.map((x) => x - sent);
      all.push(...lat);
      allFromSent.push(...fromSent);
      const s = stats(lat);
      const clientFirst = Math.min(...got.at);
      const clientLast = Math.max(...got.at);
      perRound.push({
        seq, say_ms: answered - sent, received: got.at.length, p50_ms: s.p50_ms, p99_ms: s.p99_ms, max_ms: s.max_ms, p99_from_sent_ms: stats(fromSent).p99_ms,
        ...(diag ? { diag: diag.round(sent, answered, clientFirst, clientLast) } : {}),
      });
      log(`room_page: round ${r + 1} seq ${seq}: say ${answered - sent} ms, p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms, max ${s.max_ms} ms`);
    }
    if (prof) {
      const { profile } = await prof.post('Profiler.stop');
      fs.writeFileSync(profFile!, JSON.stringify(profile));
      prof.disconnect();
      log(`room_page: CPU profile of the rounds in ${profFile}`);
    }
    if (wrong > 0) {
      failures += wrong;
      log(`room_page: ${wrong} phrases arrived in another language than their page hears`);
    }

    // --- Clean up: the pages go, then the app.
    child.send({ type: 'close' } satisfies ParentMsg);
    await next('closed');
    await until('every page gone', async () => hub.size === 0, { timeoutMs: 20_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` }).catch((err: unknown) => log(`room_page: ${String(err)}`));

    const latency = withP95(all);
    return {
      pages: n,
      langs: [...LANGS],
      rounds,
      failures,
      latency,
      from_sent: withP95(allFromSent),
      per_round: perRound,
      server_cpu_ms_per_round: round(cpuUs / 1000 / rounds),
      machine_busy_pct: machineBusy() === null || wall === 0 ? null : round((100 * busy) / ((wall / 1000) * os.cpus().length)),
      setup: { join_ms: joined.ms, joins_per_s: round(n / (joined.ms / 1000)), streams_ms: streamsMs, total_ms: joined.ms + streamsMs, list_bytes: listBytes },
      heap_bytes_per_page: Math.round((held.heapUsed + held.external - mid.heapUsed - mid.external) / (n - half)),
      rss_bytes_per_page: Math.round((held.rss - mid.rss) / (n - half)),
      heap_bytes_average: Math.round((held.heapUsed + held.external - before.heapUsed - before.external) / n),
      rss_bytes_average: Math.round((held.rss - before.rss) / n),
      met: { p99: failures === 0 && latency.p99_ms <= ROOM_PAGE_TARGETS.p99_ms },
    };
  } finally {
    diag?.restore();
    child.kill();
    await app?.close().catch(() => {});
    await boss.stop({ graceful: false }).catch(() => {});
    await pool.end().catch(() => {});
  }
}

export function printRoomPageReport(r: RoomPageResult): void {
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`\nRoom page fan-out: ${r.pages} pages on one process (hearing ${r.langs.join(', ')}), ${r.rounds} phrases said through POST /r/{id}/say (times from the say's answer)`);
  const rows: Record<string, Record<string, string | number>> = {};
  for (const [i, x] of r.per_round.entries()) {
    rows[`round ${i + 1}`] = {
      seq: x.seq, received: x.received, 'say ms': x.say_ms, 'p50 ms': x.p50_ms, 'p99 ms': x.p99_ms, 'max ms': x.max_ms, 'p99 from sent ms': x.p99_from_sent_ms,
      ...(x.diag ? { 'read at ms': x.diag.read_start_ms, 'read ms': x.diag.read_ms, 'writes from ms': x.diag.first_write_ms, 'writes to ms': x.diag.last_write_ms, 'first page ms': x.diag.client_first_ms, 'last page ms': x.diag.client_last_ms } : {}),
    };
  }
  rows.all = {
    seq: '', received: r.latency.n, 'say ms': '', 'p50 ms': r.latency.p50_ms, 'p99 ms': r.latency.p99_ms, 'max ms': r.latency.max_ms, 'p99 from sent ms': r.from_sent.p99_ms,
  };
  console.table(rows);
  console.log(
    `all rounds: p50 ${r.latency.p50_ms} ms, p95 ${r.latency.p95_ms} ms, p99 ${r.latency.p99_ms} ms, max ${r.latency.max_ms} ms ` +
      `(from before the say was sent: p50 ${r.from_sent.p50_ms}, p95 ${r.from_sent.p95_ms}, p99 ${r.from_sent.p99_ms}, max ${r.from_sent.max_ms} ms); ` +
      `p99 target <= ${ROOM_PAGE_TARGETS.p99_ms} ms ${mark(r.met.p99)}${r.failures ? ` (${r.failures} failures)` : ''}`,
  );
  console.log(
    `server CPU per round: ${r.server_cpu_ms_per_round} ms; the machine was ${r.machine_busy_pct ?? 'n/a'}% busy during the rounds ` +
      `(all CPUs; the pages' client included)`,
  );
  console.log(
    `memory per connected page: heap ${r.heap_bytes_per_page} B, rss ${r.rss_bytes_per_page} B (the second half's growth per page; ` +
      `average since before the first stream: heap ${r.heap_bytes_average} B, rss ${r.rss_bytes_average} B)`,
  );
  console.log(
    `setup: ${r.pages} joins in ${r.setup.join_ms} ms (${r.setup.joins_per_s}/s, 16 at a time), streams open with their first list ` +
      `(${Math.round(r.setup.list_bytes / 1024)} KB each) in ${r.setup.streams_ms} ms; ${r.setup.total_ms} ms in all`,
  );
}

if (process.argv[2] === '--client') await client();
