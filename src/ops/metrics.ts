import client from 'prom-client';

// The Prometheus metrics of this process (GET /metrics, ops/routes.ts). A
// low shared layer: the HTTP hooks, the calls, the gateway's media plane, the
// engines and the webhooks count here, and it imports nothing of theirs.
// Label values are bounded: route templates (never paths), outcomes, SIP
// codes, engine and queue names; never an id or a phone number. What can be
// read when Prometheus scrapes (calls in progress, queue depths, the outbox's
// backlog, pool waits, open connections) is read then, not counted on the
// hot paths (sources, below).

export const registry = new client.Registry();

/**
 * Counting is on once an app of this process serves /metrics
 * (TOLK_METRICS_TOKEN set): without anyone to read them, the hot paths
 * count nothing. The benchmark turns it off and on to measure its cost.
 */
let enabled = false;

export function setMetricsEnabled(on: boolean): void {
  enabled = on;
}

export function metricsEnabled(): boolean {
  return enabled;
}

// Node's own: CPU, memory, event loop lag, GC, handles.
client.collectDefaultMetrics({ register: registry });

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const callsPlaced = new client.Counter({
  name: 'tolk_calls_placed_total',
  help: 'Calls placed (POST /v1/calls accepted), by mode',
  labelNames: ['mode'] as const,
  registers: [registry],
});

export const callsAnswered = new client.Counter({
  name: 'tolk_calls_answered_total',
  help: 'Calls answered, by mode and SIP code of the answer',
  labelNames: ['mode', 'sip_code'] as const,
  registers: [registry],
});

export const callsEnded = new client.Counter({
  name: 'tolk_calls_ended_total',
  help: 'Calls ended, by mode, outcome (the call status) and final SIP code (none: no SIP answer)',
  labelNames: ['mode', 'outcome', 'sip_code'] as const,
  registers: [registry],
});

export const callSetup = new client.Histogram({
  name: 'tolk_call_setup_seconds',
  help: 'From a call placed to its answer',
  labelNames: ['mode'] as const,
  buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60],
  registers: [registry],
});

/** What this process's media planes add at each scrape: their open streams' packets since the last one. */
const rtpSources = new Set<() => Promise<void>>();

/** A media plane's open streams, read when Prometheus scrapes; returns what stops it. */
export function addRtpSource(countOpen: () => Promise<void>): () => void {
  rtpSources.add(countOpen);
  return () => { rtpSources.delete(countOpen); };
}

export const rtpPackets = new client.Counter({
  name: 'tolk_rtp_packets_total',
  help: 'RTP packets of the calls\' media streams (open streams read at each scrape, the rest when each closes): sent, received, lost, late',
  labelNames: ['kind'] as const,
  registers: [registry],
  async collect() {
    await Promise.all([...rtpSources].map((f) => f().catch(() => {})));
  },
});

export const engineRequests = new client.Counter({
  name: 'tolk_engine_requests_total',
  help: 'Requests to an engine (each attempt), by kind (translation, recognizer, speech) and engine',
  labelNames: ['kind', 'engine'] as const,
  registers: [registry],
});

export const engineErrors = new client.Counter({
  name: 'tolk_engine_errors_total',
  help: 'Engine requests that failed or timed out, by kind and engine',
  labelNames: ['kind', 'engine'] as const,
  registers: [registry],
});

export const engineDuration = new client.Histogram({
  name: 'tolk_engine_request_duration_seconds',
  help: 'Time an engine took to answer (or fail), by kind and engine',
  labelNames: ['kind', 'engine'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [registry],
});

export const webhookDeliveries = new client.Counter({
  name: 'tolk_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by result: succeeded, retrying (will be tried again), failed (given up)',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** Counts a webhook delivery attempt by its result (webhooks/delivery.ts). */
export function countWebhook(result: 'succeeded' | 'retrying' | 'failed'): void {
  if (enabled) webhookDeliveries.inc({ result });
}

/** A breaker as the metrics and readiness see it (engines/breaker.ts registers each). */
export type WatchedBreaker = { readonly state: 'closed' | 'open' | 'half_open' };

/** The engines' breakers by kind and engine name; a newer one of the same engine replaces the older. */
export const breakers = new Map<string, { kind: string; engine: string; breaker: WatchedBreaker }>();

export function watchBreaker(kind: string, engine: string, breaker: WatchedBreaker): void {
  breakers.set(`${kind}\0${engine}`, { kind, engine, breaker });
}

const BREAKER_STATE = { closed: 0, half_open: 1, open: 2 } as const;

new client.Gauge({
  name: 'tolk_engine_breaker_state',
  help: 'Each engine\'s circuit breaker: 0 closed, 1 half open (trying again), 2 open (left alone)',
  labelNames: ['kind', 'engine'] as const,
  registers: [registry],
  collect() {
    this.reset();
    for (const b of breakers.values()) this.set({ kind: b.kind, engine: b.engine }, BREAKER_STATE[b.breaker.state]);
  },
});

/** What is read when Prometheus scrapes: set by the app serving /metrics (ops/routes.ts). */
export type Sources = {
  /** Calls whose SIP dialog this process's gateway holds. */
  callsInProgress?: () => number;
  /** The pool's connections: total, idle, and requests waiting for one. */
  pool?: { totalCount: number; idleCount: number; waitingCount: number };
  /** Events not yet dispatched to webhooks (one cheap query). */
  outboxBacklog?: () => Promise<number>;
  /** Jobs waiting per pg-boss queue. */
  queueDepths?: () => Promise<Array<{ name: string; queued: number }>>;
  /** Open long-polls, room page streams (SSE) and audio sockets. */
  connections?: () => { long_poll: number; page_stream: number; audio_socket: number };
};

let sources: Sources = {};

/** The sources read at each scrape (the app's; the last app built in a process wins). */
export function setSources(s: Sources): void {
  sources = s;
}

export function clearSources(s: Sources): void {
  if (sources === s) sources = {};
}

new client.Gauge({
  name: 'tolk_calls_in_progress',
  help: 'Calls whose SIP dialog this process\'s gateway holds now',
  registers: [registry],
  collect() {
    this.set(sources.callsInProgress?.() ?? 0);
  },
});

new client.Gauge({
  name: 'tolk_db_pool_connections',
  help: 'The database pool\'s connections: total and idle, and requests waiting for one (waiting)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    const p = sources.pool;
    this.set({ state: 'total' }, p?.totalCount ?? 0);
    this.set({ state: 'idle' }, p?.idleCount ?? 0);
    this.set({ state: 'waiting' }, p?.waitingCount ?? 0);
  },
});

new client.Gauge({
  name: 'tolk_outbox_backlog',
  help: 'Domain events not yet dispatched to webhooks',
  registers: [registry],
  async collect() {
    this.set(sources.outboxBacklog ? await sources.outboxBacklog().catch(() => 0) : 0);
  },
});

new client.Gauge({
  name: 'tolk_job_queue_depth',
  help: 'Jobs waiting in each pg-boss queue',
  labelNames: ['queue'] as const,
  registers: [registry],
  async collect() {
    this.reset();
    const depths = sources.queueDepths ? await sources.queueDepths().catch(() => []) : [];
    for (const q of depths) this.set({ queue: q.name }, q.queued);
  },
});

new client.Gauge({
  name: 'tolk_open_connections',
  help: 'Open long-polls (agent sessions\' events), room page streams (SSE) and audio sockets',
  labelNames: ['kind'] as const,
  registers: [registry],
  collect() {
    const c = sources.connections?.() ?? { long_poll: 0, page_stream: 0, audio_socket: 0 };
    this.set({ kind: 'long_poll' }, c.long_poll);
    this.set({ kind: 'page_stream' }, c.page_stream);
    this.set({ kind: 'audio_socket' }, c.audio_socket);
  },
});

/** A call's row as the call counters read it. */
type CallCounted = { livemode: boolean; status: string; sip_code: number | null; created_at: Date; answered_at: Date | null };

const ENDED = new Set(['completed', 'failed', 'busy', 'no_answer', 'canceled', 'voicemail', 'blocked']);

/** Counts a call's change of status (calls/events.ts, after the transition): answered, or ended with its outcome. */
export function countCall(row: CallCounted): void {
  if (!enabled) return;
  const mode = row.livemode ? 'live' : 'test';
  const sip = row.sip_code === null ? 'none' : String(row.sip_code);
  if (row.status === 'answered') {
    callsAnswered.inc({ mode, sip_code: sip });
    if (row.answered_at) callSetup.observe({ mode }, Math.max(0, (row.answered_at.getTime() - row.created_at.getTime()) / 1000));
  } else if (ENDED.has(row.status)) {
    callsEnded.inc({ mode, outcome: row.status, sip_code: sip });
  }
}

/** Counts a call placed; a blocked one ends at once (`blocked`, no SIP answer). */
export function countPlaced(livemode: boolean, blocked: boolean): void {
  if (!enabled) return;
  const mode = livemode ? 'live' : 'test';
  callsPlaced.inc({ mode });
  if (blocked) callsEnded.inc({ mode, outcome: 'blocked', sip_code: 'none' });
}

export type RtpCounts = { sent: number; received: number; lost: number; late: number };

/** Adds a media stream's packets since they were last counted (gateway/media/plane.ts). */
export function countRtp(d: RtpCounts): void {
  if (!enabled) return;
  // Every kind is a series from the first stream on, zero included.
  rtpPackets.inc({ kind: 'sent' }, Math.max(0, d.sent));
  rtpPackets.inc({ kind: 'received' }, Math.max(0, d.received));
  rtpPackets.inc({ kind: 'lost' }, Math.max(0, d.lost));
  rtpPackets.inc({ kind: 'late' }, Math.max(0, d.late));
}

/** Times one engine request: counted, and as an error when it rejects. */
export async function timedEngine<T>(kind: string, engine: string, p: Promise<T>): Promise<T> {
  if (!enabled) return p;
  const start = performance.now();
  engineRequests.inc({ kind, engine });
  try {
    return await p;
  } catch (err) {
    engineErrors.inc({ kind, engine });
    throw err;
  } finally {
    engineDuration.observe({ kind, engine }, (performance.now() - start) / 1000);
  }
}

/**
 * The HTTP requests' counts and latency histogram, kept as plain numbers per
 * method, route template and status, and handed to prom-client only when
 * Prometheus scrapes: prom-client hashes its labels on every observation
 * (about 4 µs a request here), this costs a few map lookups and additions.
 */
type HttpCell = { count: number; sum: number; buckets: Float64Array };
const httpCells = new Map<string, Map<string, Map<number, HttpCell>>>();

/** Counts one answered request (the app's onResponse hook while metrics are on). */
export function countHttp(method: string, route: string, status: number, seconds: number): void {
  let byRoute = httpCells.get(method);
  if (!byRoute) httpCells.set(method, (byRoute = new Map()));
  let byStatus = byRoute.get(route);
  if (!byStatus) byRoute.set(route, (byStatus = new Map()));
  let c = byStatus.get(status);
  if (!c) byStatus.set(status, (c = { count: 0, sum: 0, buckets: new Float64Array(SECONDS.length) }));
  c.count++;
  c.sum += seconds;
  for (let i = 0; i < SECONDS.length; i++) {
    if (seconds <= SECONDS[i]!) {
      c.buckets[i]!++;
      break;
    }
  }
}

type Sample = { labels: Record<string, string | number>; value: number; metricName?: string };

/** A metric prom-client's registry writes out as it does its own (name, help, type and the samples of get()). */
function exposed(name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]) {
  const metric = { name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: samples() }), reset: () => {} };
  registry.registerMetric(metric as never);
}

exposed('tolk_http_requests_total', 'HTTP requests answered, by method, route template and status', 'counter', () => {
  const out: Sample[] = [];
  for (const [method, byRoute] of httpCells) {
    for (const [route, byStatus] of byRoute) for (const [status, c] of byStatus) out.push({ labels: { method, route, status }, value: c.count });
  }
  return out;
});

exposed('tolk_http_request_duration_seconds', 'Time to answer an HTTP request, by method and route template', 'histogram', () => {
  const out: Sample[] = [];
  const name = 'tolk_http_request_duration_seconds';
  for (const [method, byRoute] of httpCells) {
    for (const [route, byStatus] of byRoute) {
      const buckets = new Float64Array(SECONDS.length);
      let count = 0;
      let sum = 0;
      for (const c of byStatus.values()) {
        count += c.count;
        sum += c.sum;
        for (let i = 0; i < SECONDS.length; i++) buckets[i]! += c.buckets[i]!;
      }
      let acc = 0;
      for (let i = 0; i < SECONDS.length; i++) {
        acc += buckets[i]!;
        out.push({ labels: { method, route, le: SECONDS[i]! }, value: acc, metricName: `${name}_bucket` });
      }
      out.push({ labels: { method, route, le: '+Inf' }, value: count, metricName: `${name}_bucket` });
      out.push({ labels: { method, route }, value: sum, metricName: `${name}_sum` });
      out.push({ labels: { method, route }, value: count, metricName: `${name}_count` });
    }
  }
  return out;
});
