import type { EngineError } from './errors.ts';
import { watchBreaker } from '../ops/metrics.ts';

// A circuit breaker per engine (translation, recognition, speech): after
// `breakerFailures` failures in a row the engine is left alone for
// `breakerOpenMs`, or as long as its Retry-After asks; then one request at a
// time tries it again (half open), and a success closes it. Each change of
// state is a log line. Its state lives in the process: it is a guard, safe to lose.

export type BreakerOptions = {
  breakerFailures: number;
  breakerOpenMs: number;
  now: () => number;
  log?: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void } | undefined;
};

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Every breaker made with a metric, by kind and engine: what resetBreakers() closes. */
const made = new Map<string, Set<WeakRef<Breaker>>>();

/** Closes every breaker of engine (kind, name): what it runs is back (supervisor.ts). */
export function resetBreakers(kind: string, engine: string, why: string): void {
  const set = made.get(`${kind}\0${engine}`);
  for (const ref of set ?? []) {
    const b = ref.deref();
    if (b) b.reset(why);
    else set!.delete(ref);
  }
}

/** One engine's circuit breaker. */
export class Breaker {
  state: BreakerState = 'closed';
  private failures = 0;
  private openUntil = 0;
  private trial = false;
  private readonly engine: string;
  private readonly o: BreakerOptions;

  /** metric: the engine's kind and name in the metrics and readiness (ops/metrics.ts). */
  constructor(engine: string, o: BreakerOptions, metric?: { kind: string; engine: string }) {
    this.engine = engine;
    this.o = o;
    if (metric) {
      watchBreaker(metric.kind, metric.engine, this);
      const key = `${metric.kind}\0${metric.engine}`;
      if (!made.has(key)) made.set(key, new Set());
      made.get(key)!.add(new WeakRef(this));
    }
  }

  /** Whether a request may go to the engine now (half open: one trial at a time). */
  allow(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (this.o.now() < this.openUntil) return false;
      this.set('half_open', {});
    }
    if (this.trial) return false;
    this.trial = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.trial = false;
    if (this.state !== 'closed') this.set('closed', {});
  }

  failure(err: EngineError): void {
    this.failures++;
    this.trial = false;
    const asked = err.retryAfterMs ?? 0;
    if (this.state === 'half_open' || this.failures >= this.o.breakerFailures || asked > 0) {
      const ms = Math.max(this.o.breakerOpenMs, asked);
      this.openUntil = this.o.now() + ms;
      this.set('open', { for_ms: ms, error: err.message });
    }
  }

  /** What the engine runs is known to be down (its child died): open until reset(), no trial meanwhile. */
  hold(why: string): void {
    this.trial = false;
    this.openUntil = Number.POSITIVE_INFINITY;
    if (this.state !== 'open') this.set('open', { why });
  }

  /**
   * What the engine runs is known to be back (its child restarted, supervisor.ts): closed at
   * once, without waiting for a request to try it. Nothing else tries an engine that no request
   * reaches, and a process that /readyz calls not ready gets no request.
   */
  reset(why: string): void {
    this.failures = 0;
    this.trial = false;
    if (this.state !== 'closed') this.set('closed', { why });
  }

  /** Milliseconds until an open breaker lets a trial through (0 otherwise). */
  openFor(): number {
    return this.state === 'open' ? Math.max(0, this.openUntil - this.o.now()) : 0;
  }

  private set(state: BreakerState, detail: object): void {
    const from = this.state;
    this.state = state;
    const line = { engine: this.engine, breaker: state, was: from, ...detail };
    if (state === 'open') this.o.log?.warn(line, `${this.engine}: breaker open`);
    else this.o.log?.info(line, `${this.engine}: breaker ${state.replace('_', ' ')}`);
  }
}

