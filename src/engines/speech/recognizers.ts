import { Breaker, type BreakerOptions } from '../breaker.ts';
import { EngineError } from '../translate/engine.ts';
import type { HeardUtterance, SpeechRecognizer } from './recognizer.ts';
import { timedEngine } from '../../ops/metrics.ts';

// The recognizers of TOLK_RECOGNIZE in their order, as one: an utterance goes
// to the first engine that hears its language, with the translation chain's
// rules (engines/translate/chain.ts): a time limit (TOLK_RECOGNIZE_TIMEOUT_MS
// plus the utterance's own length: reading takes longer the longer it is), one retry of a failure
// that may pass, a breaker per engine, and falling through to the next
// engine that hears the language. When none could read it the answer is no
// text (never invented words): the utterance is still reported, with its
// length. It never rejects, and never takes longer than the engines' limits.

export type RecognizerChainOptions = Partial<BreakerOptions> & { timeoutMs?: number; retries?: number };

export class RecognizerChain implements SpeechRecognizer {
  readonly name: string;
  readonly engines: readonly SpeechRecognizer[];
  readonly breakers = new Map<SpeechRecognizer, Breaker>();
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(engines: SpeechRecognizer[], o: RecognizerChainOptions = {}) {
    this.engines = engines;
    this.name = engines.map((e) => e.name).join('+') || 'none';
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.retries = o.retries ?? 1;
    const b: BreakerOptions = { breakerFailures: o.breakerFailures ?? 3, breakerOpenMs: o.breakerOpenMs ?? 15_000, now: o.now ?? Date.now, log: o.log };
    for (const e of engines) this.breakers.set(e, new Breaker(`speech recognizer ${e.name}`, b, { kind: 'recognizer', engine: e.name }));
  }

  get requests(): number {
    return this.engines.reduce((n, e) => n + (e.requests ?? 0), 0);
  }

  hears(lang: string): boolean {
    return this.engines.some((e) => e.hears(lang));
  }

  /** The engine that reads a language now (its name), null when none hears it. */
  engineFor(lang: string): string | null {
    return this.engines.find((e) => e.hears(lang))?.name ?? null;
  }

  async recognize(u: HeardUtterance): Promise<{ text: string | null; engine?: string | null }> {
    for (const e of this.engines) {
      if (!e.hears(u.lang)) continue;
      const breaker = this.breakers.get(e)!;
      if (!breaker.allow()) continue;
      for (let attempt = 0; ; attempt++) {
        const ctl = new AbortController();
        // Reading takes longer the longer the speech: the limit is the base one plus the utterance's length.
        const limit = this.timeoutMs + Math.max(0, u.audioMs);
        const timer = setTimeout(() => ctl.abort(), limit);
        try {
          const r = await timedEngine('recognizer', e.name, e.recognize(u, ctl.signal));
          breaker.success();
          return { text: r.text, engine: e.name };
        } catch (raw) {
          const err = raw instanceof EngineError ? raw : new EngineError(String((raw as Error)?.message ?? raw));
          const timedOut = ctl.signal.aborted;
          if (attempt < this.retries && !err.permanent && err.retryAfterMs === null && !timedOut) continue;
          breaker.failure(timedOut ? new EngineError(`no answer within ${limit} ms`) : err);
          break;
        } finally {
          clearTimeout(timer);
        }
      }
    }
    return { text: null, engine: null };
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close().catch(() => {})));
  }
}
