import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { metricsEnabled, setMetricsEnabled } from '../src/ops/metrics.ts';
import { runCallsBench, type CallsResult } from './calls.ts';
import type { LoadJob, LoadResult } from './load.ts';
import { runJob } from './http.ts';

// The cost of the Prometheus metrics on the hot paths (src/ops/metrics.ts), in
// one run: GET /v1/rooms/{id} on two apps of this process, identical but for
// TOLK_METRICS_TOKEN (the one without it has no request hook and counts
// nothing), in alternating rounds (off then on, then on then off, ...) so
// that a drift of the machine falls on both; the ratio is the throughput with
// metrics over without. Then the calls target (bench/calls.ts) run whole with
// counting off, then on: the ratio is this process's CPU per call without
// metrics over with them (the call rate is fixed, so CPU is what metrics
// could cost), with the sustained rates beside it. Target: >= 0.97 for both.
//
// Environment: BENCH_METRICS_ROUNDS (default 3), BENCH_METRICS_SECONDS per
// leg (default 5), BENCH_CONNECTIONS (default 64), BENCH_METRICS_CALLS=0
// leaves the calls out; BENCH_CALLS_* as for the calls target
// (BENCH_CALLS_CPU_N defaults to 100 here: its gateway-against-SIPp part is
// not what this measures).

export const METRICS_TARGET = 0.97;
const HERE = path.dirname(fileURLToPath(import.meta.url));

function envNumber(name: string, dflt: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, not ${raw}`);
  return n;
}

type Leg = { rps: number; p99_ms: number; requests: number; failed: number; cpu_ms_per_req: number };
type CallsLeg = { node_cpu_ms_per_call: number; answered_per_s: number; setup_p99_ms: number; failures: number };

export type MetricsResult = {
  /** ratio: throughput with metrics over without; cpu_ratio: this process's CPU per request without over with (less sensitive to the machine's other load). */
  get: { off: Leg; on: Leg; rounds: number; seconds: number; ratio: number; cpu_ratio: number };
  calls: { off: CallsLeg; on: CallsLeg; ratio: number } | null;
  target: number;
  met: { get: boolean; calls: boolean | null };
  failures: number;
};

async function platform(databaseUrl: string, metricsToken: string | undefined): Promise<{ app: FastifyInstance; url: string; pool: Pool; boss: Boss; close: () => Promise<void> }> {
  const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: false, metricsToken });
  const pool = createPool(databaseUrl, 20);
  const boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
  const app = await buildApp({ config, pool, boss, databaseUrl });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  config.publicBaseUrl = url;
  return { app, url, pool, boss, close: async () => { await app.close(); await boss.stop({ graceful: false }).catch(() => {}); await pool.end(); } };
}

function callsLeg(r: CallsResult): CallsLeg {
  return { node_cpu_ms_per_call: r.steady.node_cpu_ms_per_call, answered_per_s: r.steady.answered_per_s, setup_p99_ms: r.steady.setup.p99_ms, failures: r.failures };
}

export async function runMetricsBench(databaseUrl: string, log: (m: string) => void): Promise<MetricsResult> {
  const rounds = Math.max(1, Math.round(envNumber('BENCH_METRICS_ROUNDS', 3)));
  const seconds = Math.max(1, envNumber('BENCH_METRICS_SECONDS', 5));
  const connections = Math.max(1, Math.round(envNumber('BENCH_CONNECTIONS', 64)));
  const wasEnabled = metricsEnabled();
  const apps: Array<Awaited<ReturnType<typeof platform>>> = [];
  const child = fork(path.join(HERE, 'load.ts'), [], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    // Off first: an app installs the request hook when counting is on as it is built.
    setMetricsEnabled(false);
    const off = await platform(databaseUrl, undefined);
    apps.push(off);
    const on = await platform(databaseUrl, 'bench-metrics-token');
    apps.push(on);
    const org = await createOrg(off.pool, { name: 'Bench metrics org' });
    const key = await createKey(off.pool, { org: org.id, mode: 'live', name: 'bench-metrics', rpm: 100_000_000 });
    const auth = { authorization: `Bearer ${key.secret}` };
    const created = await fetch(`${off.url}/v1/rooms`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `metrics-${org.id}` },
      body: JSON.stringify({ title: 'Bench room', langs: ['en', 'fr'] }),
    });
    if (created.status !== 201) throw new Error(`setup: POST /v1/rooms answered ${created.status}`);
    const room = (await created.json()) as { id: string };
    for (const a of [off, on]) {
      const r = await fetch(`${a.url}/v1/rooms/${room.id}`, { headers: auth });
      if (r.status !== 200) throw new Error(`setup: GET /v1/rooms/{id} answered ${r.status}`);
      await r.arrayBuffer();
    }
    const job = (a: { url: string }, name: string, duration: number): LoadJob => ({ name, url: `${a.url}/v1/rooms/${room.id}`, method: 'GET', headers: auth, connections, duration });
    log(`metrics: warm-up of both apps`);
    await runJob(child, job(off, 'metrics-off-warmup', 2));
    await runJob(child, job(on, 'metrics-on-warmup', 2));
    const legs = { off: [] as LoadResult[], on: [] as LoadResult[] };
    const cpu = { off: 0, on: 0 };
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const side of order) {
        log(`metrics: GET /v1/rooms/{id}, metrics ${side}, round ${i + 1}/${rounds}, ${seconds} s`);
        const before = process.cpuUsage();
        legs[side].push(await runJob(child, job(side === 'on' ? on : off, `metrics-${side}-${i}`, seconds)));
        const spent = process.cpuUsage(before);
        cpu[side] += (spent.user + spent.system) / 1000;
      }
    }
    const sum = (rs: LoadResult[], cpuMs: number): Leg => {
      const requests = rs.reduce((n, r) => n + r.requests, 0);
      return {
        cpu_ms_per_req: Math.round((cpuMs / Math.max(1, requests)) * 1000) / 1000,
        rps: Math.round(rs.reduce((n, r) => n + r.rps, 0) / rs.length),
        p99_ms: Math.max(...rs.map((r) => r.p99_ms)),
        requests,
        failed: rs.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
      };
    };
    const getOff = sum(legs.off, cpu.off);
    const getOn = sum(legs.on, cpu.on);
    const get = {
      off: getOff, on: getOn, rounds, seconds,
      ratio: Math.round((getOn.rps / Math.max(1, getOff.rps)) * 1000) / 1000,
      cpu_ratio: Math.round((getOff.cpu_ms_per_req / Math.max(0.001, getOn.cpu_ms_per_req)) * 1000) / 1000,
    };
    for (const a of apps.splice(0)) await a.close();

    let calls: MetricsResult['calls'] = null;
    if (envNumber('BENCH_METRICS_CALLS', 1) > 0) {
      const cpuN = process.env.BENCH_CALLS_CPU_N;
      process.env.BENCH_CALLS_CPU_N ??= '100';
      try {
        setMetricsEnabled(false);
        log('metrics: the calls target with metrics off');
        const callsOff = callsLeg(await runCallsBench(databaseUrl, log));
        setMetricsEnabled(true);
        log('metrics: the calls target with metrics on');
        const callsOn = callsLeg(await runCallsBench(databaseUrl, log));
        calls = { off: callsOff, on: callsOn, ratio: Math.round((callsOff.node_cpu_ms_per_call / Math.max(0.001, callsOn.node_cpu_ms_per_call)) * 1000) / 1000 };
      } finally {
        if (cpuN === undefined) delete process.env.BENCH_CALLS_CPU_N;
        else process.env.BENCH_CALLS_CPU_N = cpuN;
      }
    }
    const failures = getOff.failed + getOn.failed + (calls ? calls.off.failures + calls.on.failures : 0);
    return { get, calls, target: METRICS_TARGET, met: { get: get.ratio >= METRICS_TARGET, calls: calls ? calls.ratio >= METRICS_TARGET : null }, failures };
  } finally {
    for (const a of apps) await a.close().catch(() => {});
    if (child.connected) child.disconnect();
    setMetricsEnabled(wasEnabled);
  }
}

export function printMetricsReport(r: MetricsResult): void {
  const mark = (ok: boolean | null) => (ok === null ? 'n/a' : ok ? 'met' : 'NOT MET');
  console.log(`\nThe cost of metrics (${r.get.rounds} alternating rounds of ${r.get.seconds} s):`);
  console.table({
    'GET /v1/rooms/{id} metrics off': { 'req/s': r.get.off.rps, 'p99 ms': r.get.off.p99_ms, 'node cpu ms/req': r.get.off.cpu_ms_per_req, requests: r.get.off.requests, failed: r.get.off.failed },
    'GET /v1/rooms/{id} metrics on': { 'req/s': r.get.on.rps, 'p99 ms': r.get.on.p99_ms, 'node cpu ms/req': r.get.on.cpu_ms_per_req, requests: r.get.on.requests, failed: r.get.on.failed },
  });
  console.log(`GET /v1/rooms/{id} with/without metrics throughput: ${r.get.ratio} (target >= ${r.target}) ${mark(r.met.get)}; CPU per request without/with: ${r.get.cpu_ratio}`);
  if (r.calls) {
    const c = r.calls;
    console.table({
      'calls metrics off': { 'node cpu ms/call': c.off.node_cpu_ms_per_call, 'answered/s': c.off.answered_per_s, 'setup p99 ms': c.off.setup_p99_ms, failures: c.off.failures },
      'calls metrics on': { 'node cpu ms/call': c.on.node_cpu_ms_per_call, 'answered/s': c.on.answered_per_s, 'setup p99 ms': c.on.setup_p99_ms, failures: c.on.failures },
    });
    console.log(`calls: CPU per call without/with metrics: ${c.ratio} (target >= ${r.target}) ${mark(r.met.calls)}`);
  }
}
