import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, startWorkers, type Boss, type Workers } from '../src/jobs-registry.ts';
import { startCallGateway } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { TEST_DAILY_LIMIT } from '../src/http/auth.ts';
import { DIAL_QUEUE } from '../src/calls/jobs.ts';
import { LOG_CHANNEL, type Services } from '../src/services.ts';
import { REACTIONS } from '../src/reactions.ts';
import { createSipSignaling, freeUdpPort } from '../gateway/sip-stack.ts';
import type { DialogEvent } from '../gateway/signaling.ts';
import { SIPP } from '../test/helpers/sipp.ts';
import { until } from '../test/helpers/wait.ts';
import { procCpu } from './proc.ts';
import { envNumber, machineBusy, round, sleep, stats, type LatencyStats } from './stats.ts';

// The `calls` target of npm run bench (bench/run.ts): phone calls placed
// through the API end to end, POST /v1/calls (auth, idempotency, the policy
// table, the call and session actors) -> this process's SIP
// gateway (src/calls/dialer.ts, gateway/sip-stack.ts) -> a SIPp callee that
// answers at once and hangs up after 1 s (bench/sipp/uas-answer-1s.xml, one
// SIPp process for every call, config simSipPeer) -> the dialog events
// applied to the call (ringing, answered, completed on the callee's BYE).
//
// This process is the platform as src/platform.ts builds it with workers on
// (pool, pg-boss with workers, startWorkers: the gateway, the outbox
// dispatcher, the call queues; buildApp on the same services), with a service
// clock running at real speed from a Wednesday 17:00 UTC, as
// test/calls/calls.test.ts does, so the US calling windows are open whenever
// the benchmark runs. The client runs in a child process (this file with
// --client): its clock readings do not wait on the platform's event loop and
// its work is not billed to it. It sends the POSTs on a fixed schedule (a
// monotonic clock; it does not wait for answers), keep-alive, each with its
// own Idempotency-Key and its own number (+1415555XXXX from 1000 up, never the
// simulated callee's 0100-0103), and LISTENs on the sessions' channel: the
// call's first notification there is the commit of its answer (the AI
// disclosure is published in the answer's transaction).
//
// First one call through the whole chain (setup fails if it does not
// complete), then the platform idle for 3 s (its background CPU), then one
// stream of calls: the warm-up, BENCH_CALLS_WARMUP s (default 4), not
// reported, whose rate ramps up linearly from a tenth of BENCH_CALLS_RATE
// (default 200 calls/s, the target) to it, and at once the steady phase at that rate,
// BENCH_CALLS_SECONDS (default 10), reported; then waited out until every
// call has ended (a call lasts 1 s and a little). The ramp is what load
// tests do to measure a steady state: a process just started (cold code, a
// pool still opening its connections, each connection preparing each
// statement) and sent 100 calls/s at once fell behind for its first seconds
// and, with a quarter of the machine to spare, took 5-8 s to catch up, which
// a 2 s warm-up at full rate left in the steady phase's figures.
// Setup latency is from the client sending the POST to the call's
// answered_at. answered_at is written with the service clock (offset from
// the machine's by a constant), so the offset is taken off again:
// answered_at - offset - sent, in ms on this machine's clock. It is the
// moment the gateway's answer event began to be applied (inside the
// transaction); the moment the answer was committed, as a client listening
// for it sees it, is the `commit` column (the notification's arrival in the
// client). A call fails the run unless its POST answered 201 and it ended
// `completed` (end_reason remote_hangup); a steady rate counts as sustained
// when no call failed and both the placing and the answering kept within 2%
// of the rate. Test keys allow TEST_DAILY_LIMIT requests a day, so the calls
// use one key per 900, in blocks (key 1 for the first 900 calls, then key 2):
// at any moment one key places the calls, as one client's would (each call
// takes its key's spending lock, so a key's calls are placed one at a time).
// BENCH_CALLS_KEYS=k spreads them over k keys at once instead, round robin.
//
// CPU per call of this process (API, gateway, workers), of the database
// backends (listed every 250 ms: pools open and close connections), of the
// SIPp callee and of the client: counted from the first POST until every
// call has ended, divided by all the calls (warm-up included), so that a
// saturated run does not leave work uncounted (the dial jobs still
// queued then are not in it: they are reported as a backlog), with the idle
// background taken off as `marginal`; the machine's busy cores over the
// steady phase alone (2 = saturated), and the cores used by no process of
// the benchmark (another program's load skews everything). The breakdown gives the parts of the setup: accepted (the call's
// created_at, in the POST's transaction), the ringing event's transaction
// (its outbox row's created_at), answered_at, the commit seen by the client;
// and the SQL statements this process sent per call (pg.Client#query
// counted), this process's event loop delay and how many requests waited
// for a pool connection; BENCH_CALLS_DIAG=1 also prints the commonest
// statements and samples the backends' wait events (pg_stat_activity);
// BENCH_CALLS_DUMP=file writes each call's times (JSON lines).
//
// Then the gateway's CPU per call against SIPp's own caller: our SipSignaling
// alone (createSipSignaling in a child process, this file with --signaling,
// nothing else in it) places BENCH_CALLS_CPU_N calls (default 1000) at the
// rate to a fresh SIPp callee with the same scenario, after 200 warm-up calls
// (a gateway runs for days: JIT warm-up is not a call's cost); its CPU time
// (process.cpuUsage) over those calls / N. Then SIPp as the caller
// (bench/sipp/uac-callee-hangs-up.xml: SIPp's built-in uac, -sn uac, but
// waiting for the callee's BYE instead of sending its own, so that the callee
// scenario is the same) places the same N at the same rate to another fresh
// callee; its CPU over its whole life (it exits after the N calls; read from
// its parent shell's cutime/cstime, 10 ms ticks) / N. The ratio is ours/SIPp.
// Each callee's CPU per call is printed too: the same scenario should cost
// the same on either side.

/** What a call may cost, at 200 calls/s on a 2-core machine: setup p99, and CPU per call of this process and of the database's backends. */
export const CALL_TARGETS = { calls_per_s: 200, p99_setup_ms: 150, node_cpu_ms: 3, pg_cpu_ms: 2.5 } as const;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const UAS_SCENARIO = path.join(HERE, 'sipp', 'uas-answer-1s.xml');
const UAC_SCENARIO = path.join(HERE, 'sipp', 'uac-callee-hangs-up.xml');
/** A Wednesday, 17:00 UTC: 09:00 in San Francisco, inside every calling window of the policy table. */
const SERVICE_EPOCH = Date.parse('2026-11-18T17:00:00Z');
/** POSTs per test key (TEST_DAILY_LIMIT a day, with room for the sanity check). */
const PER_KEY = TEST_DAILY_LIMIT - 100;
const SIGNALING_WARMUP = 200;
/** A phase gives up when no call has ended for this long. */
const STALL_MS = 15_000;
/** Within this of the rate, placing and answering count as keeping it. */
const RATE_TOLERANCE = 0.02;
const SQL_TOP = 40;
/** How long the platform is watched idle. */
const IDLE_MS = 3000;
/** monitorEventLoopDelay's timer; what it records includes it, so it is taken off. */
const LOOP_RESOLUTION_MS = 2;

export type { LatencyStats };

export type CallsPhase = {
  /** Calls the client sent (POSTs). */
  placed: number;
  created: number;
  answered: number;
  completed: number;
  /** Non-201 answers, transport errors, calls that did not end completed/remote_hangup. */
  failed: number;
  statuses: Record<string, number>;
  http: Record<string, number>;
  /** Calls per second over the sending of the POSTs and over the calls' answered_at (between their 5th and 95th percentiles). */
  placed_per_s: number;
  answered_per_s: number;
  /** POST sent -> answered_at (the target's measure). */
  setup: LatencyStats;
  /** POST sent -> the answer's commit seen by the client (its notification). */
  commit: LatencyStats;
  /** POST sent -> response received. */
  post: LatencyStats;
  breakdown: {
    /** POST sent -> created_at (the call accepted, inside the POST's transaction). */
    accept: LatencyStats;
    /** created_at -> the ringing event's transaction (the POST's commit, the dial, INVITE, 180). */
    to_ringing: LatencyStats;
    /** ringing transaction -> answered_at (the 200 OK, ACK, the event's turn). */
    to_answered: LatencyStats;
    /** answered_at -> commit seen by the client. */
    to_commit: LatencyStats;
    /** answered_at -> ended_at (the callee's 1 s, then its BYE). */
    talk: LatencyStats;
  };
  /** CPU time per call, from the first POST (warm-up) until every call has ended, over all the calls (warm-up included): this process (API, gateway, workers), the database's backends. */
  node_cpu_ms_per_call: number;
  pg_cpu_ms_per_call: number | null;
  /** The same less what the platform spends idle over as long (measured for IDLE_MS before the phase). */
  node_marginal_ms_per_call: number;
  pg_marginal_ms_per_call: number | null;
  callee_cpu_ms_per_call: number | null;
  client_cpu_ms_per_call: number | null;
  /** The platform idle (IDLE_MS after the first call, before the warm-up): cores of this process, of its backends, and of the rest of the machine. */
  idle: { node_cores: number; pg_cores: number | null; other_cores: number | null };
  machine_busy_cores: number | null;
  /** The same over the steady phase alone (its first POST to its last): 2 on this machine is saturated. */
  placing_busy_cores: number | null;
  /** Cores the machine spent on none of the benchmark's processes (other work skews the figures when well above 0.1). */
  other_busy_cores: number | null;
  /** SQL statements (round trips) this process sent per call, and the transactions (BEGINs) among them; with BENCH_CALLS_DIAG=1 the commonest. */
  sql_per_call: number;
  tx_per_call: number;
  sql_top: Array<{ per_call: number; sql: string }>;
  /** This process's event loop delay over the phase (ms). */
  loop_delay: { p50_ms: number; p99_ms: number; max_ms: number };
  /** Requests for a connection of the platform's pool (20) left waiting, sampled every 50 ms. */
  pool_waiting: { mean: number; max: number; busy_share: number };
  /** BENCH_CALLS_DIAG=1: the database backends' states and wait events, sampled every 100 ms (mean backends in each). */
  pg_waits: Record<string, number> | null;
  /** The CPU figures' window: the first POST (warm-up) -> every call ended. */
  window_s: number;
  /** Once every call had ended: dial jobs not yet done (none while this process has a gateway) and outbox rows not dispatched. */
  backlog: { dial_jobs: number; outbox: number };
};

export type GatewayCpu = {
  calls: number;
  rate: number;
  /** sys_share: the part of the CPU time spent in the kernel (sockets, epoll). */
  ours: { cpu_ms_per_call: number; sys_share: number; completed: number; failed: number; callee_cpu_ms_per_call: number | null; wall_s: number };
  sipp: { cpu_ms_per_call: number | null; sys_share: number | null; completed: number; failed: number; callee_cpu_ms_per_call: number | null; wall_s: number; code: number | null };
  ratio: number | null;
  errors: string[];
};

export type CallsResult = {
  settings: { rate: number; seconds: number; warmup_s: number; cpu_calls: number; keys: number; keys_at_once: number };
  steady: CallsPhase;
  gateway_cpu: GatewayCpu | null;
  sustained_calls_per_s: number;
  targets: typeof CALL_TARGETS;
  met: { calls_per_s: boolean; p99_setup: boolean; cpu: boolean };
  /** Calls that failed (steady, warm-up and the CPU comparison): they fail the run. */
  failures: number;
  errors: string[];
};


/** Calls `fire(i)` for i in [0, n) at `rate` per second from now, on schedule whatever the answers. */
async function paced(n: number, rate: number, fire: (i: number) => void): Promise<void> {
  return scheduled(n, (i) => (i * 1000) / rate, fire);
}

/** Calls `fire(i)` for i in [0, n) at `at(i)` ms from now (non-decreasing), on a monotonic clock, whatever the answers. */
async function scheduled(n: number, at: (i: number) => number, fire: (i: number) => void): Promise<void> {
  const start = performance.now();
  let i = 0;
  while (i < n) {
    const elapsed = performance.now() - start;
    while (i < n && at(i) <= elapsed) fire(i++);
    if (i < n) await sleep(Math.max(0, start + at(i) - performance.now()));
  }
}

/**
 * The warm-up's ramp: the rate grows linearly from rate/10 to `rate` over
 * `seconds`, then stays there. Returns the time of the i-th call (ms) and
 * how many calls the ramp holds.
 */
export function ramp(rate: number, seconds: number): { at: (i: number) => number; calls: number } {
  const r0 = rate / 10;
  if (seconds <= 0) return { at: (i) => (i * 1000) / rate, calls: 0 };
  const a = (rate - r0) / seconds; // calls/s²
  const calls = Math.round(r0 * seconds + (a * seconds * seconds) / 2);
  // Within the ramp, i = r0 t + a t²/2; after it, at `rate`.
  const at = (i: number) => (i < calls ? ((-r0 + Math.sqrt(r0 * r0 + 2 * a * i)) / a) * 1000 : (seconds + (i - calls) / rate) * 1000);
  return { at, calls };
}

/** The key of the g-th call: `spread` keys in turn, each used for at most PER_KEY calls. */
const keyIndex = (g: number, spread: number) => Math.floor(g / (spread * PER_KEY)) * spread + (g % spread);

/** The number of the i-th call: +1415555 then 1000-9999 (the simulated callee's 0100-0103 never). */
const numberOf = (i: number) => `+1415555${1000 + (i % 9000)}`;

// ---------------------------------------------------------------------------
// SIPp, as a long-lived callee or as the caller

type SippDone = {
  code: number | null;
  /** CPU seconds of SIPp over its whole life (its parent shell's cutime + cstime). */
  cpu_s: number | null;
  /** Of which in the kernel. */
  sys_s: number | null;
  successful: number;
  failed: number;
  /** -trace_err, first lines. */
  errors: string;
};

type SippRun = {
  port: number;
  /** SIPp's own pid (the child is its shell). */
  pid: number;
  done: Promise<SippDone>;
  /** Interrupts SIPp if it still runs; its outcome. */
  stop: () => Promise<SippDone>;
};

async function udpPortBound(port: number): Promise<boolean> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const text = await fs.promises.readFile('/proc/net/udp', 'utf8').catch(() => '');
  return text.split('\n').some((line) => line.trim().split(/\s+/)[1]?.endsWith(hex));
}

/**
 * Runs SIPp with `args` (plus -i, -p, -nostdin and its statistics and error
 * files) under a shell that, once SIPp has exited, writes its own
 * /proc/self/stat: its cutime/cstime are SIPp's CPU time, all of it.
 */
async function startSipp(name: string, dir: string, args: string[], opts: { uas: boolean }): Promise<SippRun> {
  try {
    fs.accessSync(SIPP, fs.constants.X_OK);
  } catch {
    throw new Error(`SIPp is not installed at ${SIPP}: install Debian's sip-tester package (apt-get install sip-tester); the calls benchmark needs it`);
  }
  const port = await freeUdpPort('127.0.0.1');
  const statFile = path.join(dir, `${name}.csv`);
  const errorFile = path.join(dir, `${name}.errors`);
  const procFile = path.join(dir, `${name}.proc`);
  const script = '"$SIPP_BIN" "$@"; rc=$?; read -r s < /proc/$$/stat; printf \'%s\\n\' "$s" > "$SIPP_PROC"; exit $rc';
  const full = [
    ...args,
    '-i', '127.0.0.1', '-p', String(port), '-nostdin',
    // No real cap on simultaneous calls (SIPp's default is 3 x rate x call
    // length); below the open-file limit, which SIPp wants above it.
    '-l', '10000',
    '-trace_stat', '-stf', statFile, '-fd', '1',
    '-trace_err', '-error_file', errorFile,
  ];
  const child = spawn('/bin/sh', ['-c', script, 'sh', ...full], {
    cwd: dir, env: { ...process.env, SIPP_BIN: SIPP, SIPP_PROC: procFile }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => { if (stderr.length < 4000) stderr += d; });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', (err) => { stderr += String(err); resolve(null); });
  });
  let running = true;
  void exited.then(() => { running = false; });
  // SIPp is the shell's only child.
  const pid = await until(`${name}: SIPp to start`, async () => {
    if (!running) throw new Error('exited');
    const kids = fs.readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim();
    return kids ? Number(kids.split(/\s+/)[0]) : null;
  }, { timeoutMs: 5000, intervalMs: 5 }).catch(async () => {
    await exited;
    throw new Error(`${name}: SIPp exited at start: ${stderr}`);
  });
  if (opts.uas) {
    await until(`${name}: SIPp to listen on 127.0.0.1:${port}`, async () => !running || (await udpPortBound(port)), { timeoutMs: 5000, intervalMs: 10 });
    if (!running) throw new Error(`${name}: SIPp exited at start: ${stderr}`);
  }
  const done = exited.then(async (code): Promise<SippDone> => {
    let cpu: number | null = null;
    let sys: number | null = null;
    try {
      const stat = fs.readFileSync(procFile, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      cpu = (Number(f[13]) + Number(f[14])) / 100; // cutime, cstime (fields 16, 17)
      sys = Number(f[14]) / 100;
    } catch {
      // killed before it wrote it
    }
    let successful = 0;
    let failed = 0;
    try {
      const lines = fs.readFileSync(statFile, 'utf8').trim().split('\n');
      const head = lines[0]!.split(';');
      const last = lines[lines.length - 1]!.split(';');
      successful = Number(last[head.indexOf('SuccessfulCall(C)')]);
      failed = Number(last[head.indexOf('FailedCall(C)')]);
    } catch {
      // no statistics
    }
    const errors = (fs.existsSync(errorFile) ? fs.readFileSync(errorFile, 'utf8').split('\n').slice(0, 20).join('\n') : '') + stderr;
    return { code, cpu_s: cpu, sys_s: sys, successful, failed, errors: errors.trim() };
  });
  let stopping: Promise<SippDone> | undefined;
  return {
    port,
    pid,
    done,
    stop: () => (stopping ??= (async () => {
      if (running) {
        try { process.kill(pid, 'SIGINT'); } catch { /* gone */ }
        const gone = await Promise.race([exited.then(() => true), sleep(2000).then(() => false)]);
        if (!gone) {
          try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
        }
      }
      return done;
    })()),
  };
}

// ---------------------------------------------------------------------------
// The client (child process)

type Attempt = { i: number; sent: number; ms: number; status: number; id: string | null; error: string | null };
type ClientSetup = { base: string; keys: string[]; spread: number; databaseUrl: string; runId: string };
/** Places warm + n calls from index `from`: the warm-up ramping up to `rate` (ramp()), then at once the measured ones at `rate`. */
type ToClient = { cmd: 'run'; from: number; warm: number; warmSeconds: number; n: number; rate: number } | { cmd: 'notes'; ids: string[] };
/** `mark`: the first measured POST has just been sent (start), the last one (end). */
type FromClient = { ready: true } | { mark: 'start' | 'end' } | { attempts: Attempt[] } | { notes: Record<string, number> };

async function runClient(): Promise<void> {
  const setup = await new Promise<ClientSetup>((resolve) => process.once('message', resolve));
  // The first notification of a call's line is the commit of its answer.
  const notified = new Map<string, number>();
  const listener = new pg.Client({ connectionString: setup.databaseUrl });
  listener.on('error', () => {});
  listener.on('notification', (n) => {
    const at = Date.now();
    if (n.payload && !notified.has(n.payload)) notified.set(n.payload, at);
  });
  await listener.connect();
  await listener.query(`LISTEN ${LOG_CHANNEL}`);

  // node:http with a keep-alive agent: fetch (undici) costs this process
  // several times the CPU per request, on the machine the platform runs on.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const target = new URL(`${setup.base}/v1/calls`);
  const post = (g: number): Promise<Attempt> => {
    const key = setup.keys[keyIndex(g, setup.spread)]!;
    const body = JSON.stringify({ to: numberOf(g), purpose: 'support', consent: { kind: 'prior_express' } });
    const sent = Date.now();
    const t0 = performance.now();
    return new Promise<Attempt>((resolve) => {
      const fail = (err: unknown) => resolve({ i: g, sent, ms: performance.now() - t0, status: 0, id: null, error: String(err) });
      const req = http.request({
        agent, host: target.hostname, port: target.port, path: target.pathname, method: 'POST',
        headers: {
          authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body),
          'idempotency-key': `bench-calls-${setup.runId}-${g}`,
        },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => {
          const ms = performance.now() - t0;
          const text = Buffer.concat(chunks).toString();
          const status = res.statusCode ?? 0;
          let id: string | null = null;
          try { id = (JSON.parse(text) as { id?: string }).id ?? null; } catch { /* not JSON */ }
          resolve({ i: g, sent, ms, status, id: status === 201 ? id : null, error: status === 201 ? null : text.slice(0, 300) });
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  };

  process.on('message', (m: ToClient) => {
    if (m.cmd === 'run') {
      const all: Array<Promise<Attempt>> = [];
      const total = m.warm + m.n;
      const { at } = ramp(m.rate, m.warmSeconds);
      void scheduled(total, at, (i) => {
        all.push(post(m.from + i));
        if (i === m.warm) process.send!({ mark: 'start' } satisfies FromClient);
        if (i === total - 1) process.send!({ mark: 'end' } satisfies FromClient);
      })
        .then(() => Promise.all(all))
        .then((attempts) => process.send!({ attempts } satisfies FromClient));
    } else {
      const notes: Record<string, number> = {};
      for (const id of m.ids) {
        const at = notified.get(id);
        if (at !== undefined) notes[id] = at;
      }
      process.send!({ notes } satisfies FromClient);
    }
  });
  process.on('disconnect', () => { void listener.end().catch(() => {}); });
  process.send!({ ready: true } satisfies FromClient);
}

/** The client's messages, in order; next() waits for the first one `match` accepts. */
function inbox(child: ChildProcess) {
  const queue: FromClient[] = [];
  let wake: () => void = () => {};
  let exited: number | null | undefined;
  child.on('message', (m: FromClient) => { queue.push(m); wake(); });
  child.once('exit', (code) => { exited = code; wake(); });
  return async function next<T extends FromClient>(match: (m: FromClient) => m is T): Promise<T> {
    for (;;) {
      const i = queue.findIndex(match);
      if (i >= 0) return queue.splice(i, 1)[0] as T;
      if (exited !== undefined) throw new Error(`calls client exited (${exited})`);
      await new Promise<void>((r) => { wake = r; });
    }
  };
}

// ---------------------------------------------------------------------------
// The gateway's SIP stack alone (child process)

type SignalingJob = { uasPort: number; n: number; rate: number; warmup: number };
type SignalingResult = { cpu_ms: number; sys_ms: number; wall_ms: number; completed: number; failed: number; other: Record<string, number> };

async function runSignaling(): Promise<void> {
  const job = await new Promise<SignalingJob>((resolve) => process.once('message', resolve));
  let completed = 0;
  let failed = 0;
  const other: Record<string, number> = {};
  let wake = () => {};
  const onEvent = (_key: string, e: DialogEvent) => {
    if (e.type === 'ringing' || e.type === 'answered') return;
    if (e.type === 'remote_hangup') completed++;
    else {
      failed++;
      other[e.type] = (other[e.type] ?? 0) + 1;
    }
    wake();
  };
  const sig = await createSipSignaling({ listen: '127.0.0.1:0', ringTimeoutSeconds: 30, onEvent });
  const calls = async (prefix: string, n: number) => {
    const target = completed + failed + n;
    await paced(n, job.rate, (i) => {
      sig.place({ key: `${prefix}${i}`, target: `sip:${numberOf(i)}@127.0.0.1:${job.uasPort}`, from: '+14155550000' })
        .catch(() => { failed++; wake(); });
    });
    const deadline = Date.now() + 60_000;
    while (completed + failed < target && Date.now() < deadline) await new Promise<void>((r) => { wake = r; setTimeout(r, 100); });
  };
  await calls('w', job.warmup);
  const warm = { completed };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await calls('c', job.n);
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  await sig.close();
  // Failures of the warm-up count too: any call that did not complete fails the run.
  process.send!({ cpu_ms: (cpu.user + cpu.system) / 1000, sys_ms: cpu.system / 1000, wall_ms: wall, completed: completed - warm.completed, failed, other } satisfies SignalingResult);
}

async function gatewayCpu(dir: string, rate: number, n: number, log: (m: string) => void): Promise<GatewayCpu> {
  const errors: string[] = [];
  const timeout = `${Math.ceil((n + SIGNALING_WARMUP) / rate) + 60}s`;
  // (a) Our SipSignaling, alone in a child process.
  log(`calls: gateway CPU: our SIP stack, ${n} calls at ${rate}/s (+${SIGNALING_WARMUP} warm-up)`);
  const uasA = await startSipp('uas-ours', dir, ['-sf', UAS_SCENARIO, '-m', String(n + SIGNALING_WARMUP), '-timeout', timeout, '-timeout_error'], { uas: true });
  let ours: SignalingResult;
  let calleeA: SippDone;
  const child = fork(fileURLToPath(import.meta.url), ['--signaling'], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    ours = await new Promise<SignalingResult>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`signaling child exited (${code})`)));
      child.once('message', resolve);
      child.send({ uasPort: uasA.port, n, rate, warmup: SIGNALING_WARMUP } satisfies SignalingJob);
    });
    calleeA = await Promise.race([uasA.done, sleep(5000).then(() => uasA.stop())]);
  } finally {
    // Let it end on its own (a --cpu-prof profile is written on exit), then make sure.
    if (child.connected) child.disconnect();
    if (child.exitCode === null) await new Promise((r) => { child.once('exit', r); setTimeout(r, 3000).unref(); });
    child.kill();
    await uasA.stop();
  }
  if (ours.failed > 0) errors.push(`our SIP stack: ${ours.failed} calls did not complete (${JSON.stringify(ours.other)})`);
  if (calleeA.failed > 0) errors.push(`callee of our SIP stack: ${calleeA.failed} failed calls: ${calleeA.errors.slice(0, 300)}`);

  // (b) SIPp's own caller, the same calls to a fresh callee.
  log(`calls: gateway CPU: SIPp's caller, ${n} calls at ${rate}/s`);
  const uasB = await startSipp('uas-sipp', dir, ['-sf', UAS_SCENARIO, '-m', String(n), '-timeout', timeout, '-timeout_error'], { uas: true });
  let uac: SippDone;
  let calleeB: SippDone;
  const t0 = performance.now();
  try {
    const caller = await startSipp('uac', dir, [
      '-sf', UAC_SCENARIO, '-s', '+14155551000', '-r', String(rate), '-m', String(n), '-timeout', timeout, '-timeout_error',
      `127.0.0.1:${uasB.port}`,
    ], { uas: false });
    uac = await caller.done;
    calleeB = await Promise.race([uasB.done, sleep(5000).then(() => uasB.stop())]);
  } finally {
    await uasB.stop();
  }
  const wallB = performance.now() - t0;
  if (uac.code !== 0 || uac.failed > 0) errors.push(`SIPp's caller: exit ${uac.code}, ${uac.failed} failed calls: ${uac.errors.slice(0, 300)}`);

  const perCall = (s: number | null, calls: number) => (s === null ? null : round((s * 1000) / Math.max(1, calls), 3));
  const oursMs = round(ours.cpu_ms / Math.max(1, n), 3);
  const sippMs = perCall(uac.cpu_s, n);
  return {
    calls: n,
    rate,
    ours: { cpu_ms_per_call: oursMs, sys_share: round(ours.sys_ms / Math.max(0.001, ours.cpu_ms), 2), completed: ours.completed, failed: ours.failed, callee_cpu_ms_per_call: perCall(calleeA.cpu_s, n + SIGNALING_WARMUP), wall_s: round(ours.wall_ms / 1000, 2) },
    sipp: { cpu_ms_per_call: sippMs, sys_share: uac.cpu_s && uac.sys_s !== null ? round(uac.sys_s / uac.cpu_s, 2) : null, completed: uac.successful, failed: uac.failed, callee_cpu_ms_per_call: perCall(calleeB.cpu_s, n), wall_s: round(wallB / 1000, 2), code: uac.code },
    ratio: sippMs ? round(oursMs / sippMs, 2) : null,
    errors,
  };
}

// ---------------------------------------------------------------------------
// The benchmark (bench/run.ts)

/**
 * Counts the statements pg.Client#query sends in this process while on: all
 * of them, the BEGINs, and with `byText` each text (kept as it comes, the
 * same string objects mostly: cheap to look up; tidied at the end).
 */
function sqlCounter(byText: boolean) {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const counts = new Map<string, number>();
  let total = 0;
  let begins = 0;
  let on = false;
  proto.query = function (this: unknown, ...args: unknown[]) {
    if (on) {
      total++;
      const q = args[0];
      const text = typeof q === 'string' ? q : (q as { text?: string } | null)?.text ?? '?';
      if (text === 'BEGIN') begins++;
      if (byText) counts.set(text, (counts.get(text) ?? 0) + 1);
    }
    return original.apply(this, args);
  };
  return {
    start() { counts.clear(); total = 0; begins = 0; on = true; },
    stop() {
      on = false;
      const tidy = new Map<string, number>();
      for (const [k, v] of counts) {
        const t = k.replace(/\s+/g, ' ').trim().slice(0, 160);
        tidy.set(t, (tidy.get(t) ?? 0) + v);
      }
      return { total, begins, byText: tidy };
    },
    restore() { on = false; proto.query = original; },
  };
}

/**
 * CPU of the database's backends over a phase, whatever comes and goes: the
 * backends are listed every 250 ms (pools close idle connections, open new
 * ones) and each one's CPU read from /proc; a backend counts from its first
 * reading in the phase (from 0 if it was born in it) to its last.
 */
async function trackBackends(databaseUrl: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  c.on('error', () => {});
  await c.connect();
  const seen = new Map<number, { first: number; last: number }>();
  const list = async () => (await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);
  const read = (pids: number[], born: boolean) => {
    for (const pid of pids) {
      const cpu = procCpu([pid]);
      if (cpu === null) continue;
      const s = seen.get(pid);
      if (s) s.last = Math.max(s.last, cpu);
      else seen.set(pid, { first: born ? 0 : cpu, last: cpu });
    }
  };
  read(await list(), false);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await sleep(250);
      const pids = await list();
      read([...seen.keys()], true);
      read(pids, true);
    }
  })();
  return {
    async stop(): Promise<number | null> {
      stopped = true;
      await loop.catch(() => {});
      read([...seen.keys(), ...(await list().catch(() => []))], true);
      await c.end().catch(() => {});
      if (procCpu([]) === null) return null;
      let total = 0;
      for (const s of seen.values()) total += s.last - s.first;
      return total;
    },
  };
}

type CpuSpent = { wall_s: number; node_s: number; pg_s: number | null; callee_s: number | null; client_s: number | null; machine_s: number | null };

/** Starts counting the CPU time of this process, the database backends, the callee, the client and the whole machine. */
async function cpuMeter(databaseUrl: string, pids: { callee: number; client: number }) {
  const backends = await trackBackends(databaseUrl);
  const m0 = machineBusy();
  const callee0 = procCpu([pids.callee]);
  const client0 = procCpu([pids.client]);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  return {
    /** Machine busy so far (the placing's share). */
    machineSoFar: () => { const m = machineBusy(); return m === null || m0 === null ? null : { s: m - m0, wall_s: (performance.now() - t0) / 1000 }; },
    async stop(): Promise<CpuSpent> {
      const cpu = process.cpuUsage(cpu0);
      const callee1 = procCpu([pids.callee]);
      const client1 = procCpu([pids.client]);
      const m1 = machineBusy();
      const wall = (performance.now() - t0) / 1000;
      const pg = await backends.stop();
      const d = (a: number | null, b: number | null) => (a === null || b === null ? null : b - a);
      return { wall_s: wall, node_s: (cpu.user + cpu.system) / 1e6, pg_s: pg, callee_s: d(callee0, callee1), client_s: d(client0, client1), machine_s: d(m0, m1) };
    },
  };
}

/** Cores the machine spent on none of this benchmark's processes. */
const otherCores = (c: CpuSpent) =>
  c.machine_s === null || c.pg_s === null || c.callee_s === null || c.client_s === null
    ? null
    : round(Math.max(0, c.machine_s - c.node_s - c.pg_s - c.callee_s - c.client_s) / c.wall_s, 2);

/** Samples pg_stat_activity of the database every 100 ms on its own connection, until stop(). */
async function sampleWaits(databaseUrl: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  c.on('error', () => {});
  await c.connect();
  const sums = new Map<string, number>();
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const { rows } = await c.query<{ k: string; n: number }>(
        `SELECT coalesce(state, '?') || ' ' || coalesce(wait_event_type || ':' || wait_event, 'cpu') AS k, count(*)::int AS n
           FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`);
      samples++;
      for (const r of rows) sums.set(r.k, (sums.get(r.k) ?? 0) + r.n);
      await sleep(200);
    }
  })();
  return {
    async stop(): Promise<Record<string, number>> {
      stopped = true;
      await loop.catch(() => {});
      await c.end().catch(() => {});
      return Object.fromEntries([...sums].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, round(v / Math.max(1, samples), 2)]));
    },
  };
}

export async function runCallsBench(databaseUrl: string, log: (m: string) => void): Promise<CallsResult> {
  const rate = envNumber('BENCH_CALLS_RATE', CALL_TARGETS.calls_per_s);
  if (rate <= 0) throw new Error('BENCH_CALLS_RATE must be positive');
  const seconds = envNumber('BENCH_CALLS_SECONDS', 10);
  const warmupS = envNumber('BENCH_CALLS_WARMUP', 4);
  const cpuCalls = Math.round(envNumber('BENCH_CALLS_CPU_N', 1000));
  const warmN = ramp(rate, warmupS).calls;
  const n = Math.max(1, Math.round(rate * seconds));
  const total = 1 + warmN + n; // the sanity call, the warm-up, the steady phase
  const spread = Math.max(1, Math.round(envNumber('BENCH_CALLS_KEYS', 1)));
  const keyCount = Math.ceil(total / (spread * PER_KEY)) * spread;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-calls-'));
  const errors: string[] = [];
  const cleanup: Array<() => Promise<unknown>> = [];
  let steady: CallsPhase;
  let warmFailed = 0;
  const sql = sqlCounter(Boolean(process.env.BENCH_CALLS_DIAG));
  try {
    // --- The callee: one SIPp for every call of the end-to-end phases, stopped at the end.
    const uas = await startSipp('uas-e2e', dir, ['-sf', UAS_SCENARIO, '-timeout', `${Math.ceil(total / rate) + 300}s`], { uas: true });
    cleanup.push(() => uas.stop());

    // --- The platform with workers (the gateway) and a clock inside the US calling hours.
    const offset = SERVICE_EPOCH - Date.now();
    const clock = () => new Date(Date.now() + offset);
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: true, sipListen: '127.0.0.1:0', simSipPeer: `sip:127.0.0.1:${uas.port}` });
    const pool: Pool = createPool(databaseUrl, 20);
    cleanup.push(() => pool.end());
    const boss: Boss = await startBoss(databaseUrl, { workers: true, monitorSeconds: config.jobMonitorSeconds, onError: (e) => log(`calls pg-boss: ${String(e)}`) });
    cleanup.push(() => boss.stop({ graceful: false, timeout: 2000 }));
    const services: Services = { config, pool, boss, reactions: REACTIONS, clock };
    const workerLog = {
      error: (o: object, m: string) => { if (errors.length < 20) errors.push(m); log(`calls worker: ${m} ${String((o as { err?: unknown }).err ?? '')}`); },
      warn: (o: object, m: string) => log(`calls worker (warn): ${m} ${JSON.stringify(o).slice(0, 200)}`),
      info: () => {},
    };
    const gateway = await startCallGateway(services, databaseUrl, workerLog);
    services.gateway = gateway;
    cleanup.push(() => gateway.stop());
    const workers: Workers = await startWorkers(services, databaseUrl, workerLog);
    cleanup.push(() => workers.stop());
    const app: FastifyInstance = await buildApp({ ...services, databaseUrl });
    cleanup.push(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;

    const org = await createOrg(pool, { name: 'Bench calls org' });
    const keys: string[] = [];
    for (let i = 0; i < keyCount; i++) keys.push((await createKey(pool, { org: org.id, mode: 'test', name: `bench calls ${i}`, rpm: 1_000_000 })).secret);

    const ENDED_SQL = `status IN ('completed', 'busy', 'voicemail', 'no_answer', 'failed', 'blocked')`;
    const waitEnded = async (ids: string[]) => {
      let last = -1;
      let progressAt = Date.now();
      for (;;) {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM calls WHERE id = ANY($1) AND ${ENDED_SQL}`, [ids]);
        const e = rows[0].n as number;
        if (e >= ids.length) return;
        if (e !== last) { last = e; progressAt = Date.now(); }
        if (Date.now() - progressAt > STALL_MS) {
          log(`calls: giving up with ${e} of ${ids.length} calls ended`);
          return;
        }
        await sleep(200);
      }
    };

    // --- A first call, through the whole chain, before anything is measured.
    const sanity = await fetch(`${base}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json', 'idempotency-key': `bench-calls-sanity-${path.basename(dir)}` },
      body: JSON.stringify({ to: '+14155559999', purpose: 'support', consent: { kind: 'prior_express' } }),
    });
    if (sanity.status !== 201) throw new Error(`calls: setup: POST /v1/calls answered ${sanity.status}: ${await sanity.text()}`);
    const first = (await sanity.json()) as { id: string };
    await until('the first call to complete', async () => {
      const { rows } = await pool.query(`SELECT status, end_reason FROM calls WHERE id = $1`, [first.id]);
      if (rows[0] && rows[0].status !== 'queued' && rows[0].status !== 'ringing' && rows[0].status !== 'answered') {
        if (rows[0].status !== 'completed') throw new Error(`calls: setup: the first call ended ${rows[0].status}/${rows[0].end_reason}`);
        return true;
      }
      return false;
    }, { timeoutMs: 15_000, intervalMs: 50, retryErrors: false });

    // --- The client, in its own process.
    const child = fork(fileURLToPath(import.meta.url), ['--client'], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    cleanup.push(async () => {
      if (child.connected) child.disconnect();
      if (child.exitCode === null) await new Promise((r) => { child.once('exit', r); setTimeout(r, 2000).unref(); });
    });
    const next = inbox(child);
    child.send({ base, keys, spread, databaseUrl, runId: path.basename(dir) } satisfies ClientSetup);
    await next((m): m is { ready: true } => 'ready' in m);

    // --- The platform idle (workers polling, heartbeats): what it spends without calls.
    const pids = { callee: uas.pid, client: child.pid! };
    await pool.query('CHECKPOINT').catch(() => {});
    const idleMeter = await cpuMeter(databaseUrl, pids);
    await sleep(IDLE_MS);
    const idle = await idleMeter.stop();

    // --- The warm-up, then at once the steady phase. The CPU is counted from
    // the first POST until every call has ended, for all of them; the
    // machine's busy cores also over the steady phase alone (first POST to last).
    log(`calls: ${warmN} warm-up calls, then ${n} calls, at ${rate}/s`);
    const meter = await cpuMeter(databaseUrl, pids);
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const waiting: number[] = [];
    const poolSampler = setInterval(() => waiting.push(pool.waitingCount), 50);
    const waits = process.env.BENCH_CALLS_DIAG ? await sampleWaits(databaseUrl) : null;
    sql.start();
    child.send({ cmd: 'run', from: 1, warm: warmN, warmSeconds: warmupS, n, rate } satisfies ToClient);
    await next((m): m is { mark: 'start' } => 'mark' in m && m.mark === 'start');
    const steadyFrom = meter.machineSoFar();
    await next((m): m is { mark: 'end' } => 'mark' in m && m.mark === 'end');
    await sleep(1000 / rate); // the last call's own interval
    const steadyTo = meter.machineSoFar();
    const { attempts: all } = await next((m): m is { attempts: Attempt[] } => 'attempts' in m);
    const allIds = all.flatMap((a) => (a.id ? [a.id] : []));
    await waitEnded(allIds);
    const counts = sql.stop();
    const spent = await meter.stop();
    loop.disable();
    clearInterval(poolSampler);
    const pgWaits = waits ? await waits.stop() : null;
    const { rows: backlog } = await pool.query(
      `SELECT (SELECT count(*)::int FROM pgboss.job WHERE name = $1 AND state IN ('created', 'retry', 'active')) AS jobs,
              (SELECT count(*)::int FROM outbox_queue) AS outbox`, [DIAL_QUEUE]);
    const { notes } = await (async () => {
      child.send({ cmd: 'notes', ids: allIds } satisfies ToClient);
      return next((m): m is { notes: Record<string, number> } => 'notes' in m);
    })();

    // --- What happened to each call.
    const { rows } = await pool.query<{ id: string; status: string; end_reason: string | null; created_ms: string; answered_ms: string | null; ended_ms: string | null; ringing_ms: string | null }>(
      `SELECT c.id, c.status, c.end_reason,
              extract(epoch FROM c.created_at) * 1000 AS created_ms, extract(epoch FROM c.answered_at) * 1000 AS answered_ms,
              extract(epoch FROM c.ended_at) * 1000 AS ended_ms, extract(epoch FROM o.created_at) * 1000 AS ringing_ms
         FROM unnest($1::text[]) AS x(id) JOIN calls c ON c.id = x.id
         LEFT JOIN outbox o ON o.object_id = x.id AND o.type = 'call.ringing'`,
      [allIds],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const ok = (a: Attempt) => {
      const r = a.id ? byId.get(a.id) : undefined;
      return r?.status === 'completed' && r.end_reason === 'remote_hangup';
    };
    const warmAttempts = all.filter((a) => a.i < 1 + warmN);
    warmFailed = warmAttempts.filter((a) => !ok(a)).length;
    if (warmFailed > 0) errors.push(`warm-up: ${warmFailed} of ${warmN} calls failed`);
    const attempts = all.filter((a) => a.i >= 1 + warmN);

    const http: Record<string, number> = {};
    const statuses: Record<string, number> = {};
    const setup: number[] = [], commit: number[] = [], post: number[] = [], accept: number[] = [], toRinging: number[] = [], toAnswered: number[] = [], toCommit: number[] = [], talk: number[] = [];
    const answeredAt: number[] = [];
    let failed = 0, answered = 0, completed = 0;
    const samples: string[] = [];
    for (const a of attempts) {
      http[String(a.status)] = (http[String(a.status)] ?? 0) + 1;
      post.push(a.ms);
      if (!a.id) {
        failed++;
        if (samples.length < 3) samples.push(`HTTP ${a.status}: ${a.error}`);
        continue;
      }
      const r = byId.get(a.id);
      const st = r ? `${r.status}${r.end_reason ? `/${r.end_reason}` : ''}` : 'missing';
      statuses[st] = (statuses[st] ?? 0) + 1;
      if (!ok(a)) failed++;
      if (r?.status === 'completed') completed++;
      if (!r) continue;
      // The service clock's times, back on the machine's.
      const created = Number(r.created_ms) - offset;
      accept.push(created - a.sent);
      const ringing = r.ringing_ms === null ? null : Number(r.ringing_ms);
      if (ringing !== null) toRinging.push(ringing - created);
      if (r.answered_ms === null) continue;
      answered++;
      const ans = Number(r.answered_ms) - offset;
      answeredAt.push(ans);
      setup.push(ans - a.sent);
      if (ringing !== null) toAnswered.push(ans - ringing);
      const seen = notes[a.id];
      if (seen !== undefined) { commit.push(seen - a.sent); toCommit.push(seen - ans); }
      if (r.ended_ms !== null) talk.push(Number(r.ended_ms) - offset - ans);
    }
    if (failed > 0) errors.push(`steady: ${failed} of ${attempts.length} calls failed (${Object.entries({ ...http, ...statuses }).map(([k, v]) => `${v} ${k}`).join(', ')})${samples.length ? `; e.g. ${samples.join(' | ')}` : ''}`);
    if (process.env.BENCH_CALLS_DUMP) {
      // One line per call (warm-up ones too, `warm`), times in ms on the machine's clock, for plotting where the time goes.
      const lines = all.map((a) => {
        const r = a.id ? byId.get(a.id) : undefined;
        const t = (v: string | null | undefined, shift = offset) => (v === null || v === undefined ? null : Number(v) - shift);
        return JSON.stringify({
          i: a.i, warm: a.i < 1 + warmN, id: a.id, http: a.status, sent: a.sent, response: Math.round(a.sent + a.ms), created: t(r?.created_ms),
          ringing: t(r?.ringing_ms, 0), answered: t(r?.answered_ms), committed: a.id ? (notes[a.id] ?? null) : null, ended: t(r?.ended_ms), status: r?.status ?? null,
        });
      });
      fs.writeFileSync(process.env.BENCH_CALLS_DUMP, lines.join('\n') + '\n');
    }
    const sent = attempts.map((a) => a.sent).sort((x, y) => x - y);
    answeredAt.sort((x, y) => x - y);
    // Between the 5th and the 95th percentile of the times: a few late answers at either end do not count as a rate.
    const perSecond = (v: number[]) => {
      if (v.length < 2) return 0;
      const lo = Math.floor(v.length * 0.05);
      const hi = Math.max(lo + 1, Math.ceil(v.length * 0.95) - 1);
      return round((hi - lo) / Math.max(0.001, (v[hi]! - v[lo]!) / 1000));
    };
    const calls = attempts.length;
    // The CPU and the statements were counted for every call, the warm-up's too.
    const perCall = (x: number | null) => (x === null ? null : round((x * 1000) / Math.max(1, all.length), 2));
    // What the platform spends idle, over as long, is not the calls'.
    const marginal = (busy: number | null, idleBusy: number | null) =>
      busy === null || idleBusy === null ? null : perCall(busy - (idleBusy / idle.wall_s) * spent.wall_s);
    steady = {
      placed: calls,
      created: attempts.filter((a) => a.id).length,
      answered,
      completed,
      failed,
      statuses,
      http,
      placed_per_s: perSecond(sent),
      answered_per_s: perSecond(answeredAt),
      setup: stats(setup),
      commit: stats(commit),
      post: stats(post),
      breakdown: { accept: stats(accept), to_ringing: stats(toRinging), to_answered: stats(toAnswered), to_commit: stats(toCommit), talk: stats(talk) },
      node_cpu_ms_per_call: perCall(spent.node_s)!,
      pg_cpu_ms_per_call: perCall(spent.pg_s),
      node_marginal_ms_per_call: marginal(spent.node_s, idle.node_s)!,
      pg_marginal_ms_per_call: marginal(spent.pg_s, idle.pg_s),
      callee_cpu_ms_per_call: perCall(spent.callee_s),
      client_cpu_ms_per_call: perCall(spent.client_s),
      idle: { node_cores: round(idle.node_s / idle.wall_s, 3), pg_cores: idle.pg_s === null ? null : round(idle.pg_s / idle.wall_s, 3), other_cores: otherCores(idle) },
      machine_busy_cores: spent.machine_s === null ? null : round(spent.machine_s / spent.wall_s, 2),
      placing_busy_cores: steadyFrom === null || steadyTo === null ? null : round((steadyTo.s - steadyFrom.s) / (steadyTo.wall_s - steadyFrom.wall_s), 2),
      other_busy_cores: otherCores(spent),
      sql_per_call: round(counts.total / Math.max(1, all.length), 1),
      tx_per_call: round(counts.begins / Math.max(1, all.length), 2),
      sql_top: [...counts.byText.entries()].sort((x, y) => y[1] - x[1]).slice(0, SQL_TOP).map(([k, v]) => ({ per_call: round(v / Math.max(1, all.length), 2), sql: k })),
      loop_delay: {
        p50_ms: round(Math.max(0, loop.percentile(50) / 1e6 - LOOP_RESOLUTION_MS)),
        p99_ms: round(Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS)),
        max_ms: round(Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS)),
      },
      pool_waiting: {
        mean: round(waiting.reduce((x, y) => x + y, 0) / Math.max(1, waiting.length)),
        max: Math.max(0, ...waiting),
        busy_share: round(waiting.filter((w) => w > 0).length / Math.max(1, waiting.length), 2),
      },
      pg_waits: pgWaits,
      window_s: round(spent.wall_s, 1),
      backlog: { dial_jobs: backlog[0].jobs, outbox: backlog[0].outbox },
    };
    log(`calls steady: ${calls} calls, ${steady.placed_per_s}/s placed, ${steady.answered_per_s}/s answered, setup p50 ${steady.setup.p50_ms} ms p99 ${steady.setup.p99_ms} ms, ${failed} failed`);
    const callee = await uas.stop();
    if (callee.failed > 0) errors.push(`the SIPp callee counted ${callee.failed} failed calls: ${callee.errors.slice(0, 300)}`);
  } finally {
    sql.restore();
    for (const f of cleanup.reverse()) await f().catch((err) => log(`calls cleanup: ${String(err)}`));
  }

  // --- The gateway's CPU per call against SIPp's caller, with the platform stopped.
  let gateway: GatewayCpu | null = null;
  try {
    if (cpuCalls > 0) gateway = await gatewayCpu(dir, rate, cpuCalls, log);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const sustained = steady.failed === 0 && warmFailed === 0 && steady.placed_per_s >= rate * (1 - RATE_TOLERANCE) && steady.answered_per_s >= rate * (1 - RATE_TOLERANCE) ? rate : 0;
  return {
    settings: { rate, seconds, warmup_s: warmupS, cpu_calls: cpuCalls, keys: keyCount, keys_at_once: spread },
    steady,
    gateway_cpu: gateway,
    sustained_calls_per_s: sustained,
    targets: CALL_TARGETS,
    met: {
      calls_per_s: sustained >= CALL_TARGETS.calls_per_s,
      p99_setup: steady.failed === 0 && steady.setup.p99_ms <= CALL_TARGETS.p99_setup_ms,
      cpu: steady.node_cpu_ms_per_call <= CALL_TARGETS.node_cpu_ms && (steady.pg_cpu_ms_per_call ?? Infinity) <= CALL_TARGETS.pg_cpu_ms,
    },
    failures: steady.failed + warmFailed + (gateway ? gateway.ours.failed + gateway.sipp.failed : 0),
    errors: [...errors, ...(gateway?.errors ?? [])],
  };
}

/** Prints the calls section of the report. */
export function printCallsReport(r: CallsResult): void {
  const s = r.steady;
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`\nCalls end to end (POST /v1/calls -> policy, actors -> SIP gateway -> SIPp callee answering, BYE after 1 s): ${s.placed} calls at ${r.settings.rate}/s, ${r.settings.keys_at_once === 1 ? `one test key at a time (${r.settings.keys} in turn)` : `${r.settings.keys_at_once} test keys at once, round robin`}`);
  const row = (l: LatencyStats) => ({ 'p50 ms': l.p50_ms, 'p90 ms': l.p90_ms, 'p99 ms': l.p99_ms, 'max ms': l.max_ms, n: l.n });
  console.table({
    'setup: POST sent -> answered_at': row(s.setup),
    'POST sent -> answer committed (client)': row(s.commit),
    'POST sent -> 201 received': row(s.post),
    '  sent -> accepted (created_at)': row(s.breakdown.accept),
    '  accepted -> ringing tx': row(s.breakdown.to_ringing),
    '  ringing tx -> answered_at': row(s.breakdown.to_answered),
    '  answered_at -> commit seen': row(s.breakdown.to_commit),
    '  answered_at -> ended_at (1 s talk)': row(s.breakdown.talk),
  });
  console.table({
    steady: {
      placed: s.placed, answered: s.answered, completed: s.completed, failed: s.failed, 'placed/s': s.placed_per_s, 'answered/s': s.answered_per_s,
      'node cpu ms/call': s.node_cpu_ms_per_call, 'pg cpu ms/call': s.pg_cpu_ms_per_call ?? 'n/a', 'callee cpu ms/call': s.callee_cpu_ms_per_call ?? 'n/a',
      'client cpu ms/call': s.client_cpu_ms_per_call ?? 'n/a', 'busy cores': s.machine_busy_cores ?? 'n/a', 'busy placing': s.placing_busy_cores ?? 'n/a', 'other cores': s.other_busy_cores ?? 'n/a',
      'sql/call': s.sql_per_call, 'tx/call': s.tx_per_call,
    },
  });
  console.log(`left when every call had ended: ${s.backlog.dial_jobs} dial jobs, ${s.backlog.outbox} outbox rows`);
  console.log(`(CPU and statements per call: from the first POST until every call had ended, ${s.window_s} s, over every call, the warm-up's too; ` +
    `less what the platform spends idle: node ${s.node_marginal_ms_per_call} ms, pg ${s.pg_marginal_ms_per_call ?? 'n/a'} ms. ` +
    `Idle: ${s.idle.node_cores} cores of this process, ${s.idle.pg_cores ?? 'n/a'} of its backends, ${s.idle.other_cores ?? 'n/a'} other. ` +
    `Busy placing: the machine's cores while the steady phase's POSTs were sent (2 = saturated). Other cores: used by none of the benchmark's processes, which skews the figures when well above 0.1)`);
  console.log(`platform process: event loop delay p50 ${s.loop_delay.p50_ms} ms, p99 ${s.loop_delay.p99_ms} ms, max ${s.loop_delay.max_ms} ms; ` +
    `pool (20) requests waiting for a connection: mean ${s.pool_waiting.mean}, max ${s.pool_waiting.max}, in ${Math.round(s.pool_waiting.busy_share * 100)}% of samples`);
  if (process.env.BENCH_CALLS_DIAG) {
    console.log('statements per call sent by the platform process (pg.Client#query):');
    for (const q of s.sql_top) console.log(`  ${String(q.per_call).padStart(6)}  ${q.sql}`);
    if (s.pg_waits) console.log(`database backends by state and wait event (mean over 100 ms samples): ${Object.entries(s.pg_waits).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  }
  console.log(`calls/s sustained with no failure: ${r.sustained_calls_per_s} (placed ${s.placed_per_s}/s, answered ${s.answered_per_s}/s; target >= ${r.targets.calls_per_s}) ${mark(r.met.calls_per_s)}`);
  console.log(`setup p99 (POST sent -> call.answered's answered_at): ${s.setup.p99_ms} ms, p50 ${s.setup.p50_ms} ms (target <= ${r.targets.p99_setup_ms} ms) ${mark(r.met.p99_setup)}; to the answer's commit p99 ${s.commit.p99_ms} ms`);
  console.log(`CPU per call: this process ${s.node_cpu_ms_per_call} ms (target <= ${r.targets.node_cpu_ms}), the database's backends ${s.pg_cpu_ms_per_call ?? 'n/a'} ms (target <= ${r.targets.pg_cpu_ms}) ${mark(r.met.cpu)}`);
  const g = r.gateway_cpu;
  if (g) {
    console.log(`gateway CPU per call (${g.calls} calls at ${g.rate}/s, same callee scenario): ours ${g.ours.cpu_ms_per_call} ms, SIPp's caller ${g.sipp.cpu_ms_per_call ?? 'n/a'} ms, ratio ours/SIPp ${g.ratio ?? 'n/a'} ` +
      `(in the kernel: ${Math.round(g.ours.sys_share * 100)}% of ours, ${g.sipp.sys_share === null ? 'n/a' : `${Math.round(g.sipp.sys_share * 100)}%`} of SIPp's; ` +
      `callee CPU per call: ${g.ours.callee_cpu_ms_per_call ?? 'n/a'} ms against ours, ${g.sipp.callee_cpu_ms_per_call ?? 'n/a'} ms against SIPp's)`);
  }
  if (r.errors.length) console.log(`calls ERRORS: ${r.errors.join('; ')}`);
}

const self = path.resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url);
if (self && process.send && process.argv[2] === '--client') await runClient();
if (self && process.send && process.argv[2] === '--signaling') await runSignaling();
