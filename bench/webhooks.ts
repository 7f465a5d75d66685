import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { OUTBOX_CHANNEL, notifyAfterCommit } from '../src/db/after-commit.ts';
import { startBoss, startWorkers, type Boss, type Workers } from '../src/jobs-registry.ts';
import { REACTIONS } from '../src/reactions.ts';
import { createOrg } from '../src/cli/admin.ts';
import { newId } from '../src/ids.ts';
import { newSecret } from '../src/webhooks/signing.ts';
import { procCpu } from './proc.ts';
import { envNumber, machineBusy, round, sleep, stats, type LatencyStats } from './stats.ts';
import { ignoreTimeout, until } from '../test/helpers/wait.ts';

// The `webhooks` target of npm run bench (bench/run.ts): webhook delivery from
// the outbox to a receiver, on one platform process. This process runs the
// worker side of the platform as src/platform.ts builds it (its own pool,
// pg-boss with workers, startWorkers: the outbox dispatcher and the
// webhook-deliver worker); the receiver (a node:http server answering 200)
// runs in a child process (this file with --receiver), so its clock readings
// do not wait on the platform's event loop and its work is not billed to it.
// State changes are outbox rows inserted as the services write them (the
// INSERT trigger NOTIFYs the dispatcher), for one org with one active endpoint
// subscribed to room.started.
//
// Phases, each waited out until every event has reached the receiver and
// every delivery is recorded as succeeded:
//   warm-up  BENCH_WEBHOOK_WARMUP events (default 200), paced, not reported;
//   paced    BENCH_WEBHOOK_RATE events/s (default 300) for BENCH_WEBHOOK_SECONDS
//            (default 5), one row per transaction like a stream of state
//            changes: latency of a loaded but not saturated system;
//   burst    BENCH_WEBHOOK_EVENTS events (default 5000), inserted at once in
//            statements of 100 rows: throughput = events / (first insert ->
//            last 2xx), and the latency under that backlog.
// Latency is from the outbox row's created_at (its transaction's time, i.e.
// the state change) to the first attempt's request arriving at the receiver.
// Duplicates (an event arriving more than once) are counted; events that
// never arrive are reported as missing and fail the run (exit 1).

export const WEBHOOK_TARGETS = { deliveries_per_s: 500, p99_ms: 500 } as const;

const EVENT_TYPE = 'room.started';
const BURST_STATEMENT_ROWS = 100;
/** A phase gives up when nothing new has arrived this long (the dispatcher's sweep runs every 3 s). */
const STALL_MS = 10_000;
const PHASE_CAP_MS = 180_000;

export type { LatencyStats };

export type WebhookPhase = {
  events: number;
  /** Rate at which events were produced (events/s over the production window). */
  produced_per_s: number;
  /** events / (first insert -> last 2xx of a first attempt). */
  delivered_per_s: number;
  /** first insert -> every delivery recorded as succeeded in webhook_deliveries. */
  recorded_s: number;
  /** outbox created_at -> first attempt arriving at the receiver. */
  latency: LatencyStats;
  /** outbox created_at -> its webhook_deliveries row (dispatch transaction). */
  dispatch: LatencyStats;
  /** webhook_deliveries created_at -> first attempt arriving (job queue and attempt). */
  queue: LatencyStats;
  duplicates: number;
  missing: number;
  failed_attempts: number;
  node_cpu_ms_per_event: number;
  pg_cpu_ms_per_event: number | null;
  /** CPU cores the whole machine was busy, and how much of it was not this benchmark (other work skews the figures). */
  machine_busy_cores: number | null;
  other_busy_cores: number | null;
};

export type WebhookResult = {
  paced: WebhookPhase;
  burst: WebhookPhase;
  settings: { warmup_events: number; paced_rate: number; paced_seconds: number; burst_events: number };
  targets: typeof WEBHOOK_TARGETS;
  met: { throughput: boolean; p99: boolean };
  missing: number;
  duplicates: number;
  errors: string[];
};


// ---------------------------------------------------------------------------
// The receiver (child process)

type Arrival = { id: string; at: number; answered: number };
type ToReceiver = { cmd: 'count' } | { cmd: 'collect' };
type FromReceiver = { port: number } | { count: number; distinct: number; last: number } | { arrivals: Arrival[] };

function runReceiver(): void {
  let arrivals: Arrival[] = [];
  const seen = new Set<string>();
  let last = 0;
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const id = String(req.headers['webhook-id'] ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      const answered = Date.now();
      arrivals.push({ id, at, answered });
      seen.add(id);
      last = answered;
    });
  });
  server.keepAliveTimeout = 1000;
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    process.send!({ port: typeof addr === 'object' && addr ? addr.port : 0 } satisfies FromReceiver);
  });
  process.on('message', (m: ToReceiver) => {
    if (m.cmd === 'count') {
      process.send!({ count: arrivals.length, distinct: seen.size, last } satisfies FromReceiver);
    } else {
      const out = arrivals;
      arrivals = [];
      seen.clear();
      process.send!({ arrivals: out } satisfies FromReceiver);
    }
  });
  process.on('disconnect', () => {
    server.close();
    server.closeAllConnections();
  });
}

function ask<T extends FromReceiver>(child: ChildProcess, m: ToReceiver): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`webhook receiver exited (${code})`));
    child.once('exit', onExit);
    child.once('message', (r: T) => {
      child.off('exit', onExit);
      resolve(r);
    });
    child.send(m);
  });
}

// ---------------------------------------------------------------------------
// The benchmark (bench/run.ts)

export async function runWebhookBench(databaseUrl: string, log: (m: string) => void): Promise<WebhookResult> {
  const settings = {
    warmup_events: Math.round(envNumber('BENCH_WEBHOOK_WARMUP', 200)),
    paced_rate: envNumber('BENCH_WEBHOOK_RATE', 300),
    paced_seconds: envNumber('BENCH_WEBHOOK_SECONDS', 5),
    burst_events: Math.round(envNumber('BENCH_WEBHOOK_EVENTS', 5000)),
  };
  if (settings.paced_rate <= 0) throw new Error('BENCH_WEBHOOK_RATE must be positive');
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    // --- The receiver, in its own process.
    const receiver = fork(fileURLToPath(import.meta.url), ['--receiver'], { execPath: process.execPath, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    cleanup.push(async () => {
      if (receiver.connected) receiver.disconnect();
      if (receiver.exitCode === null) await new Promise((r) => { receiver.once('exit', r); setTimeout(r, 2000).unref(); });
    });
    const port = await new Promise<number>((resolve, reject) => {
      receiver.once('message', (m: { port: number }) => resolve(m.port));
      receiver.once('exit', (code) => reject(new Error(`webhook receiver exited (${code}) at start`)));
    });
    const origin = `http://127.0.0.1:${port}`;

    // --- The platform's worker side, as src/platform.ts starts it.
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, { databaseUrl, workers: true, webhookAllowOrigins: [origin], sipListen: '127.0.0.1:0' });
    const pool: Pool = createPool(databaseUrl);
    cleanup.push(() => pool.end());
    const errors: string[] = [];
    const boss: Boss = await startBoss(databaseUrl, { workers: true, monitorSeconds: config.jobMonitorSeconds, onError: (e) => log(`webhooks pg-boss: ${String(e)}`) });
    cleanup.push(() => boss.stop({ graceful: false, timeout: 2000 }));
    const workerLog = { error: (o: object, m: string) => { errors.push(m); log(`webhooks worker: ${m} ${String((o as { err?: unknown }).err ?? '')}`); } };
    const workers: Workers = await startWorkers({ config, pool, boss, reactions: REACTIONS }, databaseUrl, workerLog);
    cleanup.push(() => workers.stop());

    // The producer: its own connections, as the API's many transactions would
    // be (with fewer, single-row commits cannot keep up 500/s on a small machine),
    // waking the dispatchers once its rows are committed as the platform's writers do
    // (src/db/after-commit.ts).
    const producer = createPool(databaseUrl, 16);
    cleanup.push(() => producer.end());

    const org = await createOrg(pool, { name: 'Bench webhooks org' });
    const endpointId = newId('we');
    await pool.query(
      `INSERT INTO webhook_endpoints (id, org_id, livemode, url, events, secret, status) VALUES ($1, $2, true, $3, $4, $5, 'active')`,
      [endpointId, org.id, `${origin}/hook`, [EVENT_TYPE], newSecret()],
    );

    // Rows left in the outbox (the HTTP targets' rooms) are dispatched first, unmeasured.
    await until('the outbox to be dispatched', async () => {
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM outbox_queue`);
      return rows[0].n === 0;
    }, { timeoutMs: 60_000, intervalMs: 200, retryErrors: false }).catch(ignoreTimeout);
    await pool.query('CHECKPOINT').catch(() => {}); // as before the HTTP POST targets

    const object = (id: string) => ({
      object: {
        id, url: `${config.publicBaseUrl}/r/${id}`, title: 'Bench room', visibility: 'private', status: 'live',
        created_at: new Date().toISOString(), expires_at: new Date(Date.now() + 86_400_000).toISOString(),
        starts_at: null, duration_min: null, invitees: [], langs: ['en', 'fr'], livemode: true,
      },
    });
    const insertRows = async (ids: string[]) => {
      const rooms = ids.map(() => newId('room'));
      const wake = notifyAfterCommit(producer, OUTBOX_CHANNEL);
      await producer.query(
        `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
         SELECT e.event_id, $1, true, $2, e.object_id, e.data::jsonb
           FROM unnest($3::text[], $4::text[], $5::text[]) AS e(event_id, object_id, data)`,
        [org.id, EVENT_TYPE, ids, rooms, rooms.map((r) => JSON.stringify(object(r)))],
      );
      wake.committed();
    };

    /** n events at `rate`/s, one row per transaction. */
    const paced = async (n: number, rate: number): Promise<string[]> => {
      const ids: string[] = [];
      const inflight = new Set<Promise<void>>();
      const start = performance.now();
      while (ids.length < n) {
        const due = Math.min(n, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
        while (ids.length < due) {
          const id = newId('evt');
          ids.push(id);
          const p: Promise<void> = insertRows([id]).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        await sleep(Math.max(1, Math.min(10, 1000 / rate)));
      }
      await Promise.all(inflight);
      return ids;
    };

    /** n events at once, in statements of BURST_STATEMENT_ROWS rows. */
    const burst = async (n: number): Promise<string[]> => {
      const ids = Array.from({ length: n }, () => newId('evt'));
      const chunks: string[][] = [];
      for (let i = 0; i < n; i += BURST_STATEMENT_ROWS) chunks.push(ids.slice(i, i + BURST_STATEMENT_ROWS));
      let next = 0;
      await Promise.all([0, 1, 2, 3].map(async () => {
        while (next < chunks.length) await insertRows(chunks[next++]!);
      }));
      return ids;
    };

    const succeeded = async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND status = 'succeeded'`, [endpointId])).rows[0].n as number;
    const phase = async (name: string, produce: () => Promise<string[]>): Promise<WebhookPhase> => {
      const before = await succeeded();
      const backends = async () => (await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)).rows.map((r) => r.pid as number);
      const pids = await backends();
      const cpu0 = process.cpuUsage();
      const pg0 = procCpu(pids);
      const rx0 = procCpu([receiver.pid!]);
      const m0 = machineBusy();
      const t0 = Date.now();
      const ids = await produce();
      const produced = Date.now();
      // Wait for every event at the receiver, giving up after a stall.
      let lastCount = -1;
      let arrived = 0;
      let progressAt = Date.now();
      for (;;) {
        const c = await ask<{ count: number; distinct: number; last: number }>(receiver, { cmd: 'count' });
        arrived = c.distinct;
        if (c.distinct >= ids.length) break;
        if (c.count !== lastCount) { lastCount = c.count; progressAt = Date.now(); }
        if (Date.now() - progressAt > STALL_MS || Date.now() - t0 > PHASE_CAP_MS) {
          log(`webhooks ${name}: giving up with ${c.distinct} of ${ids.length} events arrived`);
          break;
        }
        await sleep(20);
      }
      // Then for every delivery that arrived to be recorded (the attempt's transaction).
      let recordedAt = Date.now();
      await until(`webhooks ${name}: the deliveries that arrived to be recorded`, async () => {
        const n = await succeeded();
        recordedAt = Date.now();
        return n >= before + Math.min(arrived, ids.length);
      }, { timeoutMs: STALL_MS, intervalMs: 50, retryErrors: false }).catch(ignoreTimeout);
      // Backends that connected during the phase count whole (they lived only in it).
      const pidsAfter = [...new Set([...pids, ...(await backends())])];
      const cpu = process.cpuUsage(cpu0);
      const pg1 = procCpu(pidsAfter);
      const rx1 = procCpu([receiver.pid!]);
      const m1 = machineBusy();
      const wall = (Date.now() - t0) / 1000;
      const { arrivals } = await ask<{ arrivals: Arrival[] }>(receiver, { cmd: 'collect' });

      const first = new Map<string, Arrival>();
      let duplicates = 0;
      for (const a of arrivals) {
        const f = first.get(a.id);
        if (!f) first.set(a.id, a);
        else {
          duplicates++;
          if (a.at < f.at) first.set(a.id, a);
        }
      }
      const { rows } = await pool.query<{ event_id: string; created_ms: number; dispatched_ms: number | null; status: string | null }>(
        `SELECT o.event_id, extract(epoch FROM o.created_at) * 1000 AS created_ms,
                extract(epoch FROM d.created_at) * 1000 AS dispatched_ms, d.status
           FROM outbox o LEFT JOIN webhook_deliveries d ON d.event_id = o.event_id AND d.endpoint_id = $2
          WHERE o.event_id = ANY($1)`,
        [ids, endpointId],
      );
      const failed = await pool.query<{ n: number; errors: string[] | null }>(
        `SELECT count(*)::int AS n, array_agg(DISTINCT a.error) AS errors FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
          WHERE d.endpoint_id = $1 AND NOT a.ok AND d.event_id = ANY($2)`,
        [endpointId, ids],
      );
      const latency: number[] = [];
      const dispatch: number[] = [];
      const queue: number[] = [];
      let missing = 0;
      let lastAnswered = 0;
      for (const r of rows) {
        const a = first.get(r.event_id);
        if (r.dispatched_ms !== null) dispatch.push(Number(r.dispatched_ms) - Number(r.created_ms));
        if (!a) { missing++; continue; }
        latency.push(a.at - Number(r.created_ms));
        if (r.dispatched_ms !== null) queue.push(a.at - Number(r.dispatched_ms));
        lastAnswered = Math.max(lastAnswered, a.answered);
      }
      missing += ids.length - rows.length; // not even in the outbox (cannot happen unless an insert failed)
      const failedAttempts = failed.rows[0]?.n ?? 0;
      if (failedAttempts > 0) errors.push(`${name}: ${failedAttempts} failed attempts (${(failed.rows[0]?.errors ?? []).join('; ')})`);
      if (missing > 0) {
        const st = new Map<string, number>();
        for (const r of rows) if (!first.has(r.event_id)) st.set(r.status ?? 'not dispatched', (st.get(r.status ?? 'not dispatched') ?? 0) + 1);
        errors.push(`${name}: ${missing} of ${ids.length} events never reached the receiver (${[...st].map(([k, v]) => `${v} ${k}`).join(', ')})`);
      }
      const events = ids.length;
      const out: WebhookPhase = {
        events,
        produced_per_s: round(events / Math.max(0.001, (produced - t0) / 1000)),
        delivered_per_s: round(lastAnswered > 0 ? (events - missing) / Math.max(0.001, (lastAnswered - t0) / 1000) : 0),
        recorded_s: round((recordedAt - t0) / 1000, 2),
        latency: stats(latency),
        dispatch: stats(dispatch),
        queue: stats(queue),
        duplicates,
        missing,
        failed_attempts: failedAttempts,
        node_cpu_ms_per_event: round(((cpu.user + cpu.system) / 1000) / Math.max(1, events), 3),
        pg_cpu_ms_per_event: pg0 === null || pg1 === null ? null : round(((pg1 - pg0) * 1000) / Math.max(1, events), 3),
        machine_busy_cores: m0 === null || m1 === null ? null : round((m1 - m0) / wall, 2),
        other_busy_cores:
          m0 === null || m1 === null || pg0 === null || pg1 === null || rx0 === null || rx1 === null
            ? null
            : round(Math.max(0, (m1 - m0) - (cpu.user + cpu.system) / 1e6 - (pg1 - pg0) - (rx1 - rx0)) / wall, 2),
      };
      log(`webhooks ${name}: ${events} events, ${out.delivered_per_s}/s delivered, latency p50 ${out.latency.p50_ms} ms p99 ${out.latency.p99_ms} ms`);
      if (name !== 'burst' && out.produced_per_s < settings.paced_rate * 0.95) {
        log(`webhooks ${name}: the producer reached only ${out.produced_per_s} of ${settings.paced_rate} events/s (machine saturated?)`);
      }
      return out;
    };

    let warmMissing = 0;
    if (settings.warmup_events > 0) {
      log(`webhooks: warm-up ${settings.warmup_events} events`);
      warmMissing = (await phase('warm-up', () => paced(settings.warmup_events, settings.paced_rate))).missing;
    }
    const pacedEvents = Math.max(1, Math.round(settings.paced_rate * settings.paced_seconds));
    log(`webhooks: paced ${pacedEvents} events at ${settings.paced_rate}/s`);
    const pacedResult = await phase('paced', () => paced(pacedEvents, settings.paced_rate));
    log(`webhooks: burst ${settings.burst_events} events`);
    const burstResult = await phase('burst', () => burst(Math.max(1, settings.burst_events)));

    return {
      paced: pacedResult,
      burst: burstResult,
      settings,
      targets: WEBHOOK_TARGETS,
      met: {
        throughput: burstResult.missing === 0 && burstResult.delivered_per_s >= WEBHOOK_TARGETS.deliveries_per_s,
        p99: pacedResult.missing === 0 && pacedResult.latency.p99_ms < WEBHOOK_TARGETS.p99_ms,
      },
      missing: warmMissing + pacedResult.missing + burstResult.missing,
      duplicates: pacedResult.duplicates + burstResult.duplicates,
      errors,
    };
  } finally {
    for (const f of cleanup.reverse()) await f().catch((err) => log(`webhooks cleanup: ${String(err)}`));
  }
}

/** Prints the webhook section of the report. */
export function printWebhookReport(r: WebhookResult): void {
  const row = (p: WebhookPhase) => ({
    events: p.events,
    'produced/s': p.produced_per_s,
    'delivered/s': p.delivered_per_s,
    'recorded s': p.recorded_s,
    'p50 ms': p.latency.p50_ms,
    'p99 ms': p.latency.p99_ms,
    'max ms': p.latency.max_ms,
    'dispatch p99': p.dispatch.p99_ms,
    'queue p99': p.queue.p99_ms,
    dup: p.duplicates,
    missing: p.missing,
    'node cpu ms/ev': p.node_cpu_ms_per_event,
    'pg cpu ms/ev': p.pg_cpu_ms_per_event ?? 'n/a',
    'busy cores': p.machine_busy_cores ?? 'n/a',
    'other cores': p.other_busy_cores ?? 'n/a',
  });
  console.log(`\nWebhook delivery (outbox -> receiver 2xx, one process): latency from the outbox row's created_at to the first attempt's arrival`);
  console.table({ [`webhooks_paced (${r.settings.paced_rate}/s)`]: row(r.paced), webhooks_burst: row(r.burst) });
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(`webhooks throughput (burst of ${r.burst.events}): ${r.burst.delivered_per_s} deliveries/s (target >= ${r.targets.deliveries_per_s}) ${mark(r.met.throughput)}`);
  console.log(`webhooks latency p99 (paced ${r.settings.paced_rate}/s): ${r.paced.latency.p99_ms} ms, p50 ${r.paced.latency.p50_ms} ms (target < ${r.targets.p99_ms} ms) ${mark(r.met.p99)}; under the burst p99 ${r.burst.latency.p99_ms} ms`);
  console.log(`(busy cores: the whole machine's CPU use during the phase; other cores: the part not used by this process, its receiver or its database backends, which skews the figures when well above 0.1)`);
  if (r.errors.length) console.log(`webhooks ERRORS: ${r.errors.join('; ')}`);
}

if (process.argv[2] === '--receiver' && process.send && path.resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) runReceiver();
