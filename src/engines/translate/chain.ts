import type { Breaker } from '../breaker.ts';
import { Fallback } from '../fallback.ts';
import { baseLang, type TranslationEngine } from './engine.ts';
import { refusal } from './guard.ts';

// The engines of TOLK_TRANSLATE in their order, as one translator: a
// language pair goes to the first engine that covers it, directly or through
// a pivot language (Apertium has en→es and es→pt but no en→pt: en→es→pt).
// Every request has a timeout and at most one retry (a failure that may
// pass, no Retry-After); each engine has a circuit breaker (fallback.ts: after
// BREAKER_FAILURES failures in a row it is left alone for BREAKER_OPEN_MS,
// or as long as its Retry-After asks, then one request tries it again), and
// what an engine could not do falls through to the next engine that covers
// it. What no engine did comes back null: the caller passes the text on
// untranslated and flagged. The breakers' state lives in this process (it is
// only a guard, safe to lose); each change of state is a log line.
//
// A generative engine (a language model, openai/translate.ts) can be talked by the
// text into writing something else: while it is asked, the first other
// engine covering the pair is asked too, and the model's answer is refused
// where it is unlike that engine's translation (guard.ts); that translation
// is then the one used. A refused answer is not an engine failure (its
// breaker does not move) and is a log line, without the text.

export type ChainOptions = {
  /** One request's limit (default 5 s). */
  timeoutMs?: number;
  /** Retries of a request that failed in a way that may pass (default 1). */
  retries?: number;
  breakerFailures?: number;
  breakerOpenMs?: number;
  log?: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };
  now?: () => number;
};

/** A translation, and the engine that made it. */
export type Translated = { text: string; engine: string };

/** How a pair is translated by one engine: directly (via null) or through a pivot language. */
export type Route = { engine: TranslationEngine; via: string | null };

/** The translations each engine gave of one text, within one translate() call. */
type Answered = Map<TranslationEngine, Record<string, string>>;

/** Pivot languages tried, in order, when no engine has the pair itself. */
const PIVOTS = ['en', 'es', 'fr', 'de', 'pt', 'it'];

export class TranslationChain {
  readonly engines: readonly TranslationEngine[];
  readonly breakers: Map<TranslationEngine, Breaker>;
  private readonly fallback: Fallback<TranslationEngine>;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly log: ChainOptions['log'];

  /** `shared`: a chain of the same engines whose breakers this one shares (test mode's, with the simulator first). */
  constructor(engines: TranslationEngine[], o: ChainOptions = {}, shared?: TranslationChain) {
    this.engines = engines;
    this.log = o.log;
    this.timeoutMs = o.timeoutMs ?? 5000;
    this.retries = o.retries ?? 1;
    // An engine that answers at once (the simulator's phrasebook) is never asked a request: no breaker.
    this.fallback = new Fallback('translation', engines.filter((e) => !e.instant), o, shared?.breakers);
    this.breakers = this.fallback.breakers;
  }

  /**
   * `text` from → to at once, without a request, where an engine has it at
   * hand (instant: test mode's simulator, for the phrasebook's lines); null otherwise.
   */
  instant(text: string, from: string, to: string): Translated | null {
    for (const e of this.engines) {
      const got = e.instant?.(text, from, to) ?? null;
      if (got !== null) return { text: got, engine: e.name };
    }
    return null;
  }

  /** How an engine would translate from → to: directly, else through a pivot it covers both ways. */
  private routeIn(e: TranslationEngine, from: string, to: string, prefer: readonly string[] = []): Route | null {
    if (e.covers(from, to)) return { engine: e, via: null };
    for (const via of [...prefer, ...PIVOTS]) {
      if (baseLang(via) === baseLang(from) || baseLang(via) === baseLang(to)) continue;
      if (e.covers(from, via) && e.covers(via, to)) return { engine: e, via };
    }
    return null;
  }

  /** The first engine (in TOLK_TRANSLATE's order) that covers from → to, directly or through a pivot; null: none. */
  route(from: string, to: string): Route | null {
    if (baseLang(from) === baseLang(to)) return null;
    for (const e of this.engines) {
      const r = this.routeIn(e, from, to);
      if (r) return r;
    }
    return null;
  }

  /** Whether some engine translates from → to (whatever its breaker says now). */
  covers(from: string, to: string): boolean {
    return this.route(from, to) !== null;
  }

  /**
   * `text` in each language of `targets`: the translation and its engine, or
   * null where no engine could (none covers the pair, or every one that does failed).
   * Never rejects. A language equal to `from` is the text itself.
   */
  async translate(text: string, from: string, targets: readonly string[]): Promise<Record<string, Translated | null>> {
    const out: Record<string, Translated | null> = {};
    /** What each engine answered for `text` in this call. */
    const answered: Answered = new Map();
    let left = [...new Set(targets)].filter((t) => {
      if (baseLang(t) !== baseLang(from)) return true;
      out[t] = { text, engine: 'none' };
      return false;
    });
    for (const e of this.engines) {
      if (left.length === 0) break;
      const direct = left.filter((t) => e.covers(from, t));
      // Through a pivot: a target of this phrase first (its translation is made anyway).
      const pivoted = new Map<string, string[]>();
      for (const t of left) {
        if (direct.includes(t)) continue;
        const r = this.routeIn(e, from, t, direct);
        if (r?.via) pivoted.set(r.via, [...(pivoted.get(r.via) ?? []), t]);
      }
      if (direct.length === 0 && pivoted.size === 0) continue;
      if (!this.fallback.allows(e)) continue;
      const first = [...new Set([...direct, ...pivoted.keys()])];
      // A second engine's translation to check a generative engine's against, asked at the same time.
      const checks = e.generative ? this.references(e, text, from, first, answered) : null;
      const got = await this.ask(e, text, from, first, answered);
      if (got === null) continue;
      if (checks) {
        const refs = await checks;
        for (const t of first) {
          const reference = refs[t];
          if (typeof got[t] !== 'string' || reference === undefined) continue;
          const why = refusal({ text, from, lang: t, answer: got[t]!, reference });
          if (why === null) continue;
          this.log?.warn({ engine: e.name, from, to: t, reason: why }, 'translation refused');
          delete got[t];
        }
      }
      for (const t of direct) out[t] = typeof got[t] === 'string' ? { text: got[t]!, engine: e.name } : null;
      for (const [via, group] of pivoted) {
        const mid = got[via];
        if (typeof mid !== 'string') continue;
        if (!this.fallback.allows(e)) continue;
        const second = await this.call(e, mid, via, group);
        if (second) for (const t of group) if (typeof second[t] === 'string') out[t] = { text: second[t]!, engine: e.name };
      }
      left = left.filter((t) => !out[t]);
    }
    for (const t of left) out[t] = null;
    return out;
  }

  /**
   * `text` in `targets` by engine e, once per translate() call: what an
   * engine already answered (as another's reference) is not asked again.
   */
  private async ask(e: TranslationEngine, text: string, from: string, targets: string[], answered: Answered): Promise<Record<string, string> | null> {
    const had = answered.get(e);
    const missing = targets.filter((t) => !had || !(t in had));
    const got = missing.length === 0 ? {} : await this.call(e, text, from, missing);
    if (got === null && !had) return null;
    const all = { ...(had ?? {}), ...(got ?? {}) };
    answered.set(e, all);
    return Object.fromEntries(targets.filter((t) => typeof all[t] === 'string').map((t) => [t, all[t]!]));
  }

  /**
   * Another engine's translations of `text` into those of `targets` it covers
   * directly (the first non-generative engine after or before `e` that does,
   * its breaker permitting); {} where none does or it failed.
   */
  private async references(e: TranslationEngine, text: string, from: string, targets: string[], answered: Answered): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    let left = targets;
    for (const r of this.engines) {
      if (r === e || r.generative || left.length === 0) continue;
      const mine = left.filter((t) => r.covers(from, t));
      if (mine.length === 0) continue;
      if (!this.fallback.allows(r)) continue;
      const got = await this.ask(r, text, from, mine, answered);
      if (got) Object.assign(out, got);
      left = left.filter((t) => !(t in out));
    }
    return out;
  }

  /** One engine request with its timeout and retry; null when it failed (the breaker told) or its answer was refused. */
  private async call(e: TranslationEngine, text: string, from: string, to: string[]): Promise<Record<string, string> | null> {
    const r = await this.fallback.call(e, (signal) => e.translate(text, from, to, signal), {
      limitMs: this.timeoutMs,
      retries: this.retries,
      pauseMs: (attempt) => 50 * attempt,
      onRefused: (err) => this.log?.warn({ engine: e.name, from, to, reason: err.message }, 'translation refused'),
    });
    return r.ok ? r.value : null;
  }
}
