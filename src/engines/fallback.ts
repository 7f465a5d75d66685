import { Breaker, type BreakerOptions } from './breaker.ts';
import { asEngineError, type EngineError } from './errors.ts';
import { timedEngine } from '../ops/metrics.ts';

// The engines of one kind in the operator's order, each behind its circuit
// breaker (breaker.ts): one request has a time limit and retries of a
// failure that may pass; a failure counts against the engine's breaker; an
// answer refused by the guard (translate/guard.ts) does not, and is not asked
// again. What an engine could not do falls through to the next one that
// covers it (first()): a language for recognition (speech/recognizers.ts)
// and speech (speech/synthesizer.ts FirstThatSpeaks); translation's chain
// (translate/chain.ts) walks its engines itself, a pair being covered
// directly or through a pivot, several targets at once, and calls call().

export type EngineKind = 'translation' | 'recognizer' | 'speech';

export type FallbackOptions = Partial<BreakerOptions>;

export type CallOptions = {
  /** The request's limit (its signal aborts then); none: the engine keeps its own limits. */
  limitMs?: number;
  /** Retries of a failure that may pass: not permanent, no Retry-After, not a timeout (default 0). */
  retries?: number;
  /** The pause before retry n (1, 2, ...), in milliseconds (default none). */
  pauseMs?: (attempt: number) => number;
  /** The failure a rejection is for the breaker (default: an EngineError as it is, anything else by its message). */
  failureOf?: (raw: unknown) => EngineError;
  /** An answer refused by the guard (its breaker not moved): told, for a log line. */
  onRefused?: (err: EngineError) => void;
};

/** What one call came to: the answer, or the rejection (`refused`: the engine answered, and its answer was refused). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown; refused: boolean };

/** What first() came to: the answer and its engine, or how many engines took the work and the last failure (null: none was tried). */
export type FirstOutcome<T, E> = { ok: true; value: T; engine: E } | { ok: false; takers: number; error: unknown };

const NEVER = new AbortController().signal;

export class Fallback<E extends { readonly name: string }> {
  readonly engines: readonly E[];
  readonly breakers: Map<E, Breaker>;
  private readonly kind: EngineKind;

  /** `breakers`: another fallback's, shared (the same engines seen in another order, one breaker each). */
  constructor(kind: EngineKind, engines: readonly E[], o: FallbackOptions = {}, breakers?: Map<E, Breaker>) {
    this.kind = kind;
    this.engines = engines;
    this.breakers = breakers ?? new Map();
    const b: BreakerOptions = { breakerFailures: o.breakerFailures ?? 3, breakerOpenMs: o.breakerOpenMs ?? 15_000, now: o.now ?? Date.now, log: o.log };
    const label = kind === 'translation' ? 'translation engine' : kind === 'recognizer' ? 'speech recognizer' : 'speech engine';
    for (const e of engines) {
      if (!this.breakers.has(e)) this.breakers.set(e, new Breaker(`${label} ${e.name}`, b, { kind, engine: e.name }));
    }
  }

  /** Whether a request may go to e now (its breaker closed, or half open and free for a trial). */
  allows(e: E): boolean {
    return this.breakers.get(e)?.allow() ?? true;
  }

  /**
   * One request to e with its limit and retries, timed in the metrics; the
   * breaker is told how it went. Never rejects.
   */
  async call<T>(e: E, run: (signal: AbortSignal) => Promise<T>, o: CallOptions = {}): Promise<Outcome<T>> {
    const breaker = this.breakers.get(e)!;
    const retries = o.retries ?? 0;
    for (let attempt = 0; ; attempt++) {
      const ctl = o.limitMs === undefined ? null : new AbortController();
      const timer = ctl ? setTimeout(() => ctl.abort(), o.limitMs) : undefined;
      try {
        const value = await timedEngine(this.kind, e.name, run(ctl?.signal ?? NEVER));
        breaker.success();
        return { ok: true, value };
      } catch (raw) {
        const err = (o.failureOf ?? asEngineError)(raw);
        if (err.refused) {
          // The engine answered: not a failure, and asked again it would answer the same.
          breaker.success();
          o.onRefused?.(err);
          return { ok: false, error: raw, refused: true };
        }
        const timedOut = ctl?.signal.aborted ?? false;
        // A timeout is not retried: the listeners have waited long enough; the next engine may be quicker.
        if (attempt < retries && !err.permanent && err.retryAfterMs === null && !timedOut) {
          const pause = o.pauseMs?.(attempt + 1) ?? 0;
          if (pause > 0) await new Promise((r) => setTimeout(r, pause));
          continue;
        }
        breaker.failure(timedOut ? asEngineError(`no answer within ${o.limitMs} ms`) : err);
        return { ok: false, error: raw, refused: false };
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /**
   * The work done by the first engine, in order, that takes it and answers:
   * an engine whose breaker is open is passed over, a failure falls through
   * to the next. Never rejects.
   */
  async first<T>(takes: (e: E) => boolean, run: (e: E, signal: AbortSignal) => Promise<T>, o: CallOptions = {}): Promise<FirstOutcome<T, E>> {
    let takers = 0;
    let error: unknown = null;
    for (const e of this.engines) {
      if (!takes(e)) continue;
      takers++;
      if (!this.allows(e)) continue;
      const r = await this.call(e, (signal) => run(e, signal), o);
      if (r.ok) return { ok: true, value: r.value, engine: e };
      error = r.error;
    }
    return { ok: false, takers, error };
  }
}
