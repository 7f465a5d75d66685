import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';

// The load generator, run as a child process of bench/run.ts so autocannon
// does not share an event loop with the servers it measures. It receives one
// job at a time over IPC and answers with the summarised result.

export type LoadJob = {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Sets a fresh Idempotency-Key on every request. */
  idempotencyKey?: boolean;
  connections: number;
  duration: number;
};

export type LoadResult = {
  name: string;
  rps: number;
  requests: number;
  mean_ms: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  status_2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
};

type Histogram = { average: number; p50: number; p90: number; p99: number; max: number; total: number };
type AutocannonResult = {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
};
type RawRequest = { headers: Record<string, string>; [k: string]: unknown };
type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  requests: Array<{
    method: string;
    headers: Record<string, string>;
    body?: string;
    setupRequest?: (req: RawRequest) => RawRequest;
  }>;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (o: AutocannonOptions) => Promise<AutocannonResult>;

const prefix = `bench-${randomBytes(6).toString('hex')}`;
let counter = 0;

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const setupRequest = job.idempotencyKey
    ? (req: RawRequest) => {
        req.headers = { ...req.headers, 'idempotency-key': `${prefix}-${job.name}-${++counter}` };
        return req;
      }
    : undefined;
  const r = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.duration,
    // autocannon calls setupRequest whenever the key is present, so leave it out when unused.
    requests: [{ method: job.method, headers: job.headers, ...(job.body === undefined ? {} : { body: job.body }), ...(setupRequest ? { setupRequest } : {}) }],
  });
  const total = r['2xx'] + r.non2xx;
  return {
    name: job.name,
    // Completed responses over the measured time; autocannon's `requests.average`
    // is the mean of per-second samples, which is the same thing for a steady run.
    rps: Math.round((total / r.duration) * 10) / 10,
    requests: total,
    mean_ms: r.latency.average,
    p50_ms: r.latency.p50,
    p90_ms: r.latency.p90,
    p99_ms: r.latency.p99,
    max_ms: r.latency.max,
    status_2xx: r['2xx'],
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
  };
}

if (process.send) {
  process.on('message', (job: LoadJob) => {
    runLoad(job).then(
      (result) => process.send!({ ok: true, result }),
      (err: unknown) => process.send!({ ok: false, error: String((err as Error)?.stack ?? err) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
