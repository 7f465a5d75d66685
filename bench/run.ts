import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { migrate } from '../src/db/migrate.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { adminQuery, findPostgres, withDatabase } from '../test/helpers/pg.ts';
import { startBare } from './bare.ts';
import { startServed } from './served.ts';
import { procCpu, procCpuEach, procCpuSpent } from './proc.ts';
import { printWebhookReport, runWebhookBench, type WebhookResult } from './webhooks.ts';
import { printLongpollReport, runLongpollBench, type LongpollResult } from './longpoll.ts';
import { printCallsReport, runCallsBench, type CallsResult } from './calls.ts';
import { printBookingsReport, runBookingsBench, type BookingsResult } from './bookings.ts';
import { printRoomPageReport, runRoomPageBench, type RoomPageResult } from './room-page.ts';
import { printTranslateReport, runTranslateBench, type TranslateResult } from './translate.ts';
import { printMcpReport, runMcpBench, type McpResult } from './mcp.ts';
import { printMediaReport, runMediaBench, type MediaResult } from './media.ts';
import { printHearingReport, runHearingBench, type HearingResult } from './hearing.ts';
import { printRoomAudioReport, runRoomAudioBench, type RoomAudioResult } from './room-audio.ts';
import { printVadReport, runVadBench, type VadResult } from './vad.ts';
import { printLatencyReport, runLatencyBench, type LatencyResult } from './latency.ts';
import { printVoicesReport, runVoicesBench, type VoicesResult } from './voices.ts';
import { printPhonesReport, runPhonesBench, type PhonesResult } from './phones.ts';
import { printModelsReport, runModelsBench, type ModelsResult } from './models.ts';
import { printMetricsReport, runMetricsBench } from './metrics.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { backendPids, countIdempotencyKeys, runJob } from './http.ts';

// npm run bench: the platform's authenticated GET /v1/rooms/{id} and
// POST /v1/rooms (with an Idempotency-Key), with a live key, against a bare
// Fastify + pg server in its own process (bench/bare.ts: pool of 10, its own
// tables, one primary-key SELECT; one transaction inserting a room-like row
// and its event row), measured in the same run with the same load generator
// and connections, in alternating rounds, as throughput ratios and p99 ratios.
// The platform twice: `served_*`, as a client meets it, `node src/server.ts`
// in its own process as an operator starts it (workers on, the request log at
// info: bench/served.ts), which the targets hold; and `platform_*`, the same
// app built in this process with workers and logs off (the routes' own cost).
// The bare server runs in a child, autocannon in another (bench/load.ts). The
// cpu columns are CPU time per request of the server measured (this process,
// the served or the bare child) and of the database backends (/proc).
//
// Then webhook delivery, outbox to a local receiver (bench/webhooks.ts), and
// the fan-out of one phrase to 5,000 waiting long-polls (bench/longpoll.ts),
// and calls placed through the API to a SIPp callee, with the gateway's CPU
// per call against SIPp's own caller (bench/calls.ts), and one phrase said
// to 1,000 connected room pages (Server-Sent Events, bench/room-page.ts), and
// phrases translated by Apertium for 1,000 room pages in four languages against
// APY's own time (bench/translate.ts), and
// an MCP tool call against the endpoint it mirrors (bench/mcp.ts), and 100
// calls' RTP both ways on one media plane (bench/media.ts), and speech
// recognition by the embedded PocketSphinx, on recordings and on 20 calls
// whose far end speaks (bench/hearing.ts), and 200 people of one room
// speaking recorded sentences in turn through the room page's audio socket,
// recognized and translated into four languages, against the recognizer's and
// translator's own times (bench/room-audio.ts), and the voice activity
// detectors, the energy rule beside Silero, on recordings clean and in noise
// and on noise alone (bench/vad.ts), and the latency budget of a conversation
// in a room, end of speech to caption, translated caption and translated audio,
// split into the engines' time and Tolk's (bench/latency.ts).
//
// Environment: BENCH_DURATION (s per target, default 10), BENCH_WARMUP (s, default 2),
// BENCH_CONNECTIONS (default 64), BENCH_ROUNDS (alternating rounds the duration is split in, default 4), BENCH_ONLY (comma list of bare_get,
// platform_get, served_get, bare_post, platform_post, served_post, webhooks, longpoll, calls, bookings, room_page, translate, mcp, media, hearing, room_audio, vad, latency, voices, phones, models), BENCH_WEBHOOK_*
// (see bench/webhooks.ts), BENCH_LONGPOLL_N (bench/longpoll.ts), BENCH_CALLS_*
// (bench/calls.ts), BENCH_BOOKINGS_*, BENCH_SLOTS_N (bench/bookings.ts), BENCH_ROOM_* (bench/room-page.ts), BENCH_TRANSLATE_* (bench/translate.ts), BENCH_MCP_* (bench/mcp.ts), BENCH_MEDIA_* (bench/media.ts), BENCH_HEARING_* (bench/hearing.ts), BENCH_ROOM_AUDIO_* (bench/room-audio.ts), BENCH_VAD_* (bench/vad.ts), BENCH_LATENCY_* (bench/latency.ts), BENCH_VOICES_SECONDS (bench/voices.ts), BENCH_PHONES_* (bench/phones.ts), BENCH_MODELS_* (bench/models.ts), BENCH_SERVED_* (bench/served.ts), BENCH_ADMIN_URL (default
// postgres://postgres@127.0.0.1:5432/postgres; when it does not answer, an
// embedded PostgreSQL under .data/bench-pg). Exit 0 whether or not targets are
// met; 1 when more than 1% of requests failed, webhook events went missing,
// a call failed or a room page missed a phrase (or its translation), or an
// utterance heard on a call was not published (with the recognizer, not read),
// or a spoken phrase's caption missed a room page (or came untranslated); 2 when setup failed.

const HERE = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_DIR = path.join(HERE, 'results');
// Throughput of the platform over the bare route, and its p99 over the bare p99 (same run).
const TARGETS = { get: 0.85, post: 0.5, p99_get_x: 1.5, p99_post_x: 2 } as const;
const MAX_ERROR_RATE = 0.01;
const NAMES = ['bare_get', 'platform_get', 'served_get', 'bare_post', 'platform_post', 'served_post'] as const;
type Name = (typeof NAMES)[number];

function envNumber(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not ${raw}`);
  return n;
}

const duration = envNumber('BENCH_DURATION', 10);
const warmup = Number(process.env.BENCH_WARMUP ?? 2);
const connections = Math.round(envNumber('BENCH_CONNECTIONS', 64));
const rounds = Math.round(envNumber('BENCH_ROUNDS', 4));
const EXTRA = ['webhooks', 'longpoll', 'calls', 'bookings', 'room_page', 'translate', 'mcp', 'media', 'hearing', 'room_audio', 'vad', 'latency', 'metrics', 'voices', 'phones', 'models'];
const only = new Set((process.env.BENCH_ONLY ?? [...NAMES, ...EXTRA].join(',')).split(',').map((s) => s.trim()).filter(Boolean));
for (const n of only) if (!(NAMES as readonly string[]).includes(n) && !EXTRA.includes(n)) throw new Error(`BENCH_ONLY: unknown target ${n}`);
const log = (m: string) => process.stderr.write(`[bench] ${m}\n`);

type Row = { rps: number; mean_ms: number; p50_ms: number; p90_ms: number; p99_ms: number; max_ms: number; requests: number; non2xx: number; errors: number; timeouts: number; server_cpu_ms_per_req: number | null; pg_cpu_ms_per_req: number | null };

async function main(): Promise<number> {
  const cleanup: Array<() => Promise<unknown>> = [];
  const runCleanup = async () => {
    for (const f of cleanup.reverse()) await f().catch((err) => log(`cleanup: ${String(err)}`));
    cleanup.length = 0;
  };
  process.once('SIGINT', () => { void runCleanup().finally(() => process.exit(130)); });

  try {
    // --- Database: the local PostgreSQL if it answers, else the embedded one.
    const { adminUrl, kind: dbKind, stop } = await findPostgres(process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', { dir: '.data/bench-pg', port: 54349 }, log);
    cleanup.push(stop);
    const dbName = `tolk_bench_${randomBytes(5).toString('hex')}`;
    await adminQuery(adminUrl, `CREATE DATABASE ${dbName}`);
    cleanup.push(() => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
    const databaseUrl = withDatabase(adminUrl, dbName);
    log(`database ${dbName} (${dbKind}); migrating`);
    await migrate(databaseUrl);

    // --- The platform, exactly as the server builds it (workers off).
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false });
    const pool: Pool = createPool(databaseUrl, 20);
    cleanup.push(() => pool.end());
    const boss: Boss = await startBoss(databaseUrl, { workers: false, onError: (e) => log(`pg-boss: ${String(e)}`) });
    cleanup.push(() => boss.stop({ graceful: false }));
    const app: FastifyInstance = await buildApp({ config, pool, boss, databaseUrl });
    cleanup.push(() => app.close());
    const platformUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = platformUrl;

    const org = await createOrg(pool, { name: 'Bench org' });
    const key = await createKey(pool, { org: org.id, mode: 'live', name: 'bench', rpm: 100_000_000 });

    // --- The bare baseline: its own process, pool and tables.
    const bare = await startBare(databaseUrl);
    cleanup.push(() => bare.close());

    // --- The platform as a client meets it: its own process, as an operator starts it.
    const served = NAMES.some((n) => n.startsWith('served_') && only.has(n)) ? await startServed(databaseUrl, log) : null;
    if (served) cleanup.push(() => served.close());

    // --- Fixtures and a sanity check of the targets.
    const auth = { authorization: `Bearer ${key.secret}` };
    const body = JSON.stringify({ title: 'Bench room', visibility: 'private', langs: ['en', 'fr'] });
    const json = { 'content-type': 'application/json' };
    const created = await fetch(`${platformUrl}/v1/rooms`, { method: 'POST', headers: { ...auth, ...json, 'idempotency-key': `setup-${dbName}` }, body });
    if (created.status !== 201) throw new Error(`setup: POST /v1/rooms answered ${created.status}: ${await created.text()}`);
    const room = (await created.json()) as { id: string };
    const bareCreated = await fetch(`${bare.url}/bare/rooms`, { method: 'POST', headers: json, body });
    if (bareCreated.status !== 201) throw new Error(`setup: POST /bare/rooms answered ${bareCreated.status}: ${await bareCreated.text()}`);
    const bareRoom = (await bareCreated.json()) as { id: string };
    const checks: Array<[string, RequestInit, number]> = [
      [`${platformUrl}/v1/rooms/${room.id}`, { headers: auth }, 200],
      [`${bare.url}/bare/rooms/${bareRoom.id}`, {}, 200],
      ...(served ? [[`${served.url}/v1/rooms/${room.id}`, { headers: auth }, 200] as [string, RequestInit, number]] : []),
    ];
    for (const [url, init, want] of checks) {
      const r = await fetch(url, init);
      if (r.status !== want) throw new Error(`setup: ${init.method ?? 'GET'} ${url} answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
    }

    const jobs: Record<Name, Omit<LoadJob, 'name' | 'connections' | 'duration'>> = {
      bare_get: { url: `${bare.url}/bare/rooms/${bareRoom.id}`, method: 'GET', headers: {} },
      platform_get: { url: `${platformUrl}/v1/rooms/${room.id}`, method: 'GET', headers: auth },
      bare_post: { url: `${bare.url}/bare/rooms`, method: 'POST', headers: json, body },
      platform_post: { url: `${platformUrl}/v1/rooms`, method: 'POST', headers: { ...auth, ...json }, body, idempotencyKey: true },
      served_get: { url: `${served?.url}/v1/rooms/${room.id}`, method: 'GET', headers: auth },
      served_post: { url: `${served?.url}/v1/rooms`, method: 'POST', headers: { ...auth, ...json }, body, idempotencyKey: true },
    };

    // --- Load generator in its own process (its own event loop).
    const child = fork(path.join(HERE, 'load.ts'), [], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    cleanup.push(async () => { if (child.connected) child.disconnect(); });

    const results: Partial<Record<Name, Row>> = {};
    let replayed = 0;
    // Each endpoint and its baseline in alternating rounds (bare, platform,
    // platform, bare, ...), each round a share of the duration: the load of
    // the machine, which drifts, weighs on both alike.
    for (const pair of [['bare_get', 'platform_get', 'served_get'], ['bare_post', 'platform_post', 'served_post']] as const) {
      const names = pair.filter((n) => only.has(n));
      if (names.length === 0) continue;
      if (pair[0] === 'bare_post') await adminQuery(databaseUrl, 'CHECKPOINT').catch(() => {});
      for (const name of names) {
        if (warmup <= 0) continue;
        log(`${name}: warm-up ${warmup} s`);
        await runJob(child, { ...jobs[name], connections, name: `${name}-warmup`, duration: warmup });
      }
      const keysBefore = names.some((n) => n.endsWith('_post') && n !== 'bare_post') ? await countIdempotencyKeys(pool, key.id) : 0;
      const sum = new Map<Name, { r: LoadResult[]; server: number | null; pg: number | null }>(names.map((n) => [n, { r: [], server: 0, pg: 0 }]));
      let creates = 0;
      const pidsBefore = fs.existsSync('/proc/self/stat') ? await backendPids(pool, dbName) : [];
      const share = duration / rounds;
      log(`${names.join(', ')}: ${rounds} alternating rounds of ${share} s at ${connections} connections`);
      for (let round = 0; round < rounds; round++) {
        for (const name of round % 2 === 0 ? names : [...names].reverse()) {
          const acc = sum.get(name)!;
          // CPU spent by the server measured (this process, the bare or the served child) and by the database backends.
          const pid = name.startsWith('bare_') ? bare.pid : name.startsWith('served_') ? served!.pid : null;
          const serverSeconds = () => (pid !== null ? procCpu([pid]) : (({ user, system }) => (user + system) / 1e6)(process.cpuUsage()));
          const serverBefore = serverSeconds();
          const pgBefore = procCpuEach(pidsBefore);
          acc.r.push(await runJob(child, { ...jobs[name], connections, name, duration: share }));
          const serverAfter = serverSeconds();
          const pgAfter = procCpuEach(pidsBefore);
          acc.server = acc.server === null || serverBefore === null || serverAfter === null ? null : acc.server + serverAfter - serverBefore;
          acc.pg = acc.pg === null || pgAfter.size === 0 ? null : acc.pg + procCpuSpent(pgBefore, pgAfter);
        }
      }
      for (const name of names) {
        const { r: rs, server, pg } = sum.get(name)!;
        const total = (f: (r: LoadResult) => number) => rs.reduce((a, r) => a + f(r), 0);
        const requests = total((r) => r.requests);
        const seconds = total((r) => (r.rps > 0 ? r.requests / r.rps : 0));
        // Latencies: each round's, weighted by its requests (the worst for max).
        const weighted = (f: (r: LoadResult) => number) => Math.round((total((r) => f(r) * r.requests) / Math.max(1, requests)) * 100) / 100;
        const perReq = (sec: number | null) => (sec === null ? null : Math.round((sec * 1000 / Math.max(1, requests)) * 100) / 100);
        if (name.endsWith('_post') && name !== 'bare_post') creates += total((r) => r.status_2xx);
        results[name] = {
          rps: seconds > 0 ? Math.round((requests / seconds) * 10) / 10 : 0, mean_ms: weighted((r) => r.mean_ms), p50_ms: weighted((r) => r.p50_ms),
          p90_ms: weighted((r) => r.p90_ms), p99_ms: weighted((r) => r.p99_ms), max_ms: Math.max(...rs.map((r) => r.max_ms)), requests,
          non2xx: total((r) => r.non2xx), errors: total((r) => r.errors), timeouts: total((r) => r.timeouts),
          server_cpu_ms_per_req: perReq(server), pg_cpu_ms_per_req: perReq(pg),
        };
      }
      // Every 2xx of a create must be a fresh create, not a replay of a reused key.
      if (creates > 0) replayed += Math.max(0, creates - ((await countIdempotencyKeys(pool, key.id)) - keysBefore));
    }

    // --- Webhook delivery, with this process as the platform's worker.
    let webhooks: WebhookResult | null = null;
    if (only.has('webhooks')) webhooks = await runWebhookBench(databaseUrl, log);
    // --- Long-poll fan-out, with this process as the API server.
    let longpoll: LongpollResult | null = null;
    if (only.has('longpoll')) longpoll = await runLongpollBench(databaseUrl, log);
    // --- Calls end to end, with this process as the API server and its SIP gateway.
    let calls: CallsResult | null = null;
    if (only.has('calls')) calls = await runCallsBench(databaseUrl, log);
    // --- Bookings on distinct slots, then the slots of a month full of them.
    let bookings: BookingsResult | null = null;
    if (only.has('bookings')) bookings = await runBookingsBench(databaseUrl, log);
    // --- One phrase to the pages of one room (Server-Sent Events), with this process as the server.
    let roomPage: RoomPageResult | null = null;
    if (only.has('room_page')) roomPage = await runRoomPageBench(databaseUrl, log);
    // --- Phrases translated by Apertium for the pages of one room in four languages, against APY alone.
    let translate: TranslateResult | null = null;
    if (only.has('translate')) translate = await runTranslateBench(databaseUrl, log);
    // --- An MCP tool call against the endpoint it mirrors.
    let mcp: McpResult | null = null;
    if (only.has('mcp')) mcp = await runMcpBench(databaseUrl, log);
    // --- RTP both ways for 100 calls on one media plane.
    let media: MediaResult | null = null;
    if (only.has('media')) media = await runMediaBench(log);
    // --- Speech recognition: recorded sentences, then calls whose far end speaks, with and without a recognizer.
    let hearing: HearingResult | null = null;
    if (only.has('hearing')) hearing = await runHearingBench(databaseUrl, log);
    // --- People speaking in turn into a room through its audio socket: recognized, translated, on every page.
    let roomAudio: RoomAudioResult | null = null;
    if (only.has('room_audio')) roomAudio = await runRoomAudioBench(databaseUrl, log);
    // --- Voice activity: the energy rule beside Silero, on recordings clean and in noise, and on noise alone.
    let vad: VadResult | null = null;
    if (only.has('vad')) vad = await runVadBench(log);
    let latency: LatencyResult | null = null;
    if (only.has('latency')) latency = await runLatencyBench(databaseUrl, log);
    // --- A room's voices through Janus: mouth-to-ear, against two pages peer to peer.
    let voices: VoicesResult | null = null;
    if (only.has('voices')) voices = await runVoicesBench(databaseUrl, log);
    // --- People on the phone in rooms: CPU per phone-participant-second, end of speech to translated phrase.
    let phones: PhonesResult | null = null;
    if (only.has('phones')) phones = await runPhonesBench(databaseUrl, log);
    let models: ModelsResult | null = null;
    if (only.has('models')) models = await runModelsBench(log);
    // --- The cost of metrics: GET /v1/rooms/{id} and the calls target with metrics off and on (bench/metrics.ts).
    if (only.has('metrics')) printMetricsReport(await runMetricsBench(databaseUrl, log));

    // --- Report.
    const ratio = (p?: Row, b?: Row) => (p && b && b.rps > 0 ? Math.round((p.rps / b.rps) * 1000) / 1000 : null);
    const ratios = {
      get: ratio(results.platform_get, results.bare_get), post: ratio(results.platform_post, results.bare_post),
      served_get: ratio(results.served_get, results.bare_get), served_post: ratio(results.served_post, results.bare_post),
    };
    const p99Met = (p: Row | undefined, b: Row | undefined, x: number) => (p && b ? p.p99_ms <= x * b.p99_ms : null);
    const atLeast = (r: number | null, t: number) => (r === null ? null : r >= t);
    const met = {
      get: atLeast(ratios.get, TARGETS.get), post: atLeast(ratios.post, TARGETS.post),
      p99_get: p99Met(results.platform_get, results.bare_get, TARGETS.p99_get_x), p99_post: p99Met(results.platform_post, results.bare_post, TARGETS.p99_post_x),
      served_get: atLeast(ratios.served_get, TARGETS.get), served_post: atLeast(ratios.served_post, TARGETS.post),
      served_p99_get: p99Met(results.served_get, results.bare_get, TARGETS.p99_get_x), served_p99_post: p99Met(results.served_post, results.bare_post, TARGETS.p99_post_x),
    };
    const failures: string[] = [];
    for (const [name, r] of Object.entries(results)) {
      const bad = r.non2xx + r.errors + r.timeouts;
      if (bad > 0) failures.push(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts of ${r.requests}`);
    }
    if (replayed > 0) failures.push(`platform_post: ${replayed} responses were idempotent replays, not creates`);
    if (longpoll && longpoll.failures > 0) failures.push(`longpoll: ${longpoll.failures} of ${longpoll.listeners} listeners failed`);
    if (calls && calls.failures > 0) failures.push(`calls: ${calls.failures} calls failed`);
    if (bookings && bookings.failures > 0) failures.push(`bookings: ${bookings.failures} bookings failed`);
    if (mcp && mcp.failures > 0) failures.push(`mcp: ${mcp.failures} requests failed`);
    if (media && media.failures > 0) failures.push(`media: ${media.lost} packets lost`);
    if (hearing && hearing.failures > 0) failures.push(`hearing: ${hearing.failures} utterances or calls failed`);
    if (roomPage && roomPage.failures > 0) failures.push(`room_page: ${roomPage.failures} phrases missing or wrong over ${roomPage.pages} pages`);
    if (phones && phones.failures > 0) failures.push(`phones: ${phones.in_room} of ${phones.phones} callers in their rooms, ${phones.caption.phrases} phrases timed`);
    if (voices && voices.failures > 0) failures.push(`voices: fewer clicks reached the listener than seconds timed (${voices.tolk.clicks})`);
    if (roomAudio && roomAudio.failures > 0) failures.push(`room_audio: ${roomAudio.failures} captions missing, untranslated or wrong over ${roomAudio.people} pages`);
    if (translate && translate.failures > 0) failures.push(`translate: ${translate.failures} translations missing, untranslated or wrong over ${translate.pages} pages`);
    const errorRate = Math.max(0, ...Object.values(results).map((r) => (r.non2xx + r.errors + r.timeouts) / Math.max(1, r.requests)));

    const table: Record<string, Record<string, string | number>> = {};
    for (const name of NAMES) {
      const r = results[name];
      if (!r) continue;
      table[name] = { 'req/s': r.rps, 'mean ms': r.mean_ms, 'p50 ms': r.p50_ms, 'p90 ms': r.p90_ms, 'p99 ms': r.p99_ms, 'max ms': r.max_ms, requests: r.requests, 'non-2xx': r.non2xx, errors: r.errors + r.timeouts, 'node cpu ms/req': r.server_cpu_ms_per_req ?? 'n/a', 'pg cpu ms/req': r.pg_cpu_ms_per_req ?? 'n/a' };
    }
    console.log(`\nTolk platform benchmark: ${connections} connections, ${duration} s per target (+${warmup} s warm-up), ${os.cpus().length} CPUs, Node ${process.version}, ${dbKind} PostgreSQL`);
    if (Object.keys(table).length > 0) {
      console.table(table);
      const mark = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'met' : 'NOT MET');
      const p99 = (p?: { p99_ms: number }, b?: { p99_ms: number }) => (p && b ? `${p.p99_ms} / ${b.p99_ms} ms` : 'n/a');
      for (const who of ['served', 'platform'] as const) {
        const s = who === 'served' ? 'served_' : '';
        const r = (k: 'get' | 'post') => ratios[`${s}${k}` as keyof typeof ratios];
        const m = (k: string) => met[`${s}${k}` as keyof typeof met];
        if (r('get') === null && r('post') === null) continue;
        console.log(`GET  ${who}/bare throughput: ${r('get') ?? 'n/a'} (target >= ${TARGETS.get}) ${mark(m('get'))}`);
        console.log(`POST ${who}/bare throughput: ${r('post') ?? 'n/a'} (target >= ${TARGETS.post}) ${mark(m('post'))}`);
        console.log(`p99 ${who}/bare GET ${p99(results[`${who}_get`], results.bare_get)} (target <= ${TARGETS.p99_get_x}x) ${mark(m('p99_get'))}`);
        console.log(`p99 ${who}/bare POST ${p99(results[`${who}_post`], results.bare_post)} (target <= ${TARGETS.p99_post_x}x) ${mark(m('p99_post'))}`);
      }
    }
    if (failures.length) console.log(`ERRORS: ${failures.join('; ')}`);
    if (webhooks) printWebhookReport(webhooks);
    if (longpoll) printLongpollReport(longpoll);
    if (calls) printCallsReport(calls);
    if (bookings) printBookingsReport(bookings);
    if (roomPage) printRoomPageReport(roomPage);
    if (translate) printTranslateReport(translate);
    if (mcp) printMcpReport(mcp);
    if (media) printMediaReport(media);
    if (hearing) printHearingReport(hearing);
    if (roomAudio) printRoomAudioReport(roomAudio);
    if (vad) printVadReport(vad);
    if (latency) printLatencyReport(latency);
    if (voices) printVoicesReport(voices);
    if (phones) printPhonesReport(phones);
    if (models) printModelsReport(models);

    const date = new Date();
    const out = {
      date: date.toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpu_model: os.cpus()[0]?.model ?? null,
      database: dbKind,
      connections,
      duration_s: duration,
      rounds,
      warmup_s: warmup,
      results,
      ratios,
      targets: TARGETS,
      met,
      errors: failures,
      replayed,
      webhooks,
      longpoll,
      calls,
      bookings,
      room_page: roomPage,
      translate,
      mcp,
      media,
      hearing,
      room_audio: roomAudio,
      vad,
      latency,
      voices,
      phones,
      models,
    };
    fs.mkdirSync(RESULTS_DIR, { recursive: true });
    const file = path.join(RESULTS_DIR, `platform-${date.toISOString().replace(/[:.]/g, '-')}.json`);
    fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
    fs.writeFileSync(path.join(RESULTS_DIR, 'latest.json'), JSON.stringify(out, null, 2) + '\n');
    console.log(`wrote ${path.relative(process.cwd(), file)} and bench/results/latest.json`);

    // The first failure that fails the run, in this order.
    const fatal: Array<[boolean | null | undefined, string]> = [
      [errorRate > MAX_ERROR_RATE || replayed > 0, `error rate ${(errorRate * 100).toFixed(2)}% exceeds ${MAX_ERROR_RATE * 100}% or creates were replayed`],
      [webhooks && webhooks.missing > 0, `${webhooks?.missing} webhook events never reached the receiver`],
      [calls && calls.failures > 0, `${calls?.failures} calls did not complete`],
      [bookings && bookings.failures > 0, `${bookings?.failures} bookings did not answer 201`],
      [roomPage && roomPage.failures > 0, `${roomPage?.failures} phrases never reached their room page (or in another language)`],
      [translate && translate.failures > 0, `${translate?.failures} translations never reached their room page (or untranslated, or not the engine's)`],
      [media && media.failures > 0, `${media?.lost} RTP packets lost`],
      [mcp && mcp.failures > 0, `${mcp?.failures} MCP or endpoint requests failed`],
      [hearing && hearing.failures > 0, `${hearing?.failures} utterances heard on the calls were not published (or, with the recognizer, had no text), or calls failed`],
      [roomAudio && roomAudio.failures > 0, `${roomAudio?.failures} spoken phrases' captions never reached their room page (or untranslated, or not the translator's), or were recognized as nothing`],
    ];
    const failed = fatal.find(([bad]) => bad);
    if (failed) {
      console.log(`FAILED: ${failed[1]}`);
      return 1;
    }
    return 0;
  } finally {
    await runCleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`[bench] setup failed: ${String((err as Error)?.stack ?? err)}\n`);
    process.exit(2);
  },
);
