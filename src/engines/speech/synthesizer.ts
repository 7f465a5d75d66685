import { LRUCache } from 'lru-cache';
import type { BreakerOptions } from '../breaker.ts';
import { EngineError } from '../errors.ts';
import { Fallback } from '../fallback.ts';

// Speech for the line: text in, 8 kHz 16-bit mono PCM out, ready for G.711.
// An engine is a provider behind this interface; the gateway speaks what
// it answers (the AI disclosure first, then each `say`).

export type Speech = {
  /** 8 kHz 16-bit mono PCM. */
  pcm: Int16Array;
  /** Its length in milliseconds. */
  ms: number;
};

export interface SpeechSynthesizer {
  /** A name for logs and errors. */
  readonly name: string;
  /** Whether it speaks this language (a BCP 47 tag: `en`, `pt-BR`). */
  speaks(lang: string): boolean;
  /** The language tags it has voices for, where it can list them (`tolk engines`); a provider that takes any language has none. */
  languages?(): string[];
  /** The text spoken in `lang` (with `voice`, where the engine has several). Rejects with SpeechError when it cannot. */
  synthesize(text: string, lang: string, voice?: string): Promise<Speech>;
  close(): Promise<void>;
}

/** A language or a text the engine cannot speak. */
export class SpeechError extends Error {}

/**
 * Keeps what an engine said, per (text, language, voice): the disclosure and
 * common phrases are synthesized once per process. Concurrent requests for
 * the same speech share one synthesis. A cache: safe to lose.
 */
export class CachedSynthesizer implements SpeechSynthesizer {
  readonly name: string;
  private readonly inner: SpeechSynthesizer;
  private readonly cache: LRUCache<string, Speech>;
  private readonly inflight = new Map<string, Promise<Speech>>();
  /** Syntheses the engine was asked for (misses). */
  misses = 0;

  /** `maxSamples`: audio kept at most, 8 million samples (16 MB, about 17 minutes of speech) by default. */
  constructor(inner: SpeechSynthesizer, o: { maxSamples?: number } = {}) {
    this.inner = inner;
    this.name = inner.name;
    this.cache = new LRUCache<string, Speech>({ maxSize: o.maxSamples ?? 8_000_000, sizeCalculation: (v) => Math.max(1, v.pcm.length) });
  }

  speaks(lang: string): boolean {
    return this.inner.speaks(lang);
  }

  synthesize(text: string, lang: string, voice = ''): Promise<Speech> {
    const key = `${lang}\u0000${voice}\u0000${text}`;
    const kept = this.cache.get(key);
    if (kept) return Promise.resolve(kept);
    let p = this.inflight.get(key);
    if (!p) {
      this.misses++;
      // A failure is not kept: the next request tries again.
      p = this.inner.synthesize(text, lang, voice || undefined)
        .then((speech) => { this.cache.set(key, speech); return speech; })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  close(): Promise<void> {
    this.cache.clear();
    return this.inner.close();
  }
}

/**
 * Several engines as one: each language is spoken by the first engine that
 * speaks it (the operator's order, TOLK_SPEECH_ENGINES).
 */
export class FirstThatSpeaks implements SpeechSynthesizer {
  readonly name: string;
  private readonly engines: SpeechSynthesizer[];
  private readonly fallback: Fallback<SpeechSynthesizer>;

  constructor(engines: SpeechSynthesizer[], o: Partial<BreakerOptions> = {}) {
    this.engines = engines;
    this.name = engines.map((e) => e.name).join('+');
    this.fallback = new Fallback('speech', engines, o);
  }

  speaks(lang: string): boolean {
    return this.engines.some((e) => e.speaks(lang));
  }

  /** The engine that speaks `lang`, or undefined. */
  engineFor(lang: string): SpeechSynthesizer | undefined {
    return this.engines.find((e) => e.speaks(lang));
  }

  /**
   * The text spoken by the first engine that speaks `lang` and answers, as
   * translation's chain does: an engine whose breaker is open is passed
   * over, a failure (a provider down, 429, a timeout: each engine has its
   * own limit) counts against its breaker and falls through to the next.
   * Nothing left: SpeechError (the line then stays silent for that phrase).
   */
  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    // No limit of the chain's, nor retries: each engine has its own limit, and speech waits for no second try.
    const r = await this.fallback.first((e) => e.speaks(lang), (e) => e.synthesize(text, lang, voice), { failureOf: speechFailure });
    if (r.ok) return r.value;
    const last = r.error;
    if (last) throw last instanceof SpeechError ? last : new SpeechError(String((last as Error)?.message ?? last));
    throw new SpeechError(r.takers > 0 ? `every speech engine that speaks ${lang} is failing; retried after a pause` : `no speech engine speaks ${lang} (engines: ${this.name})`);
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close()));
  }
}

/** A synthesizer's SpeechError as its breaker sees it: the EngineError behind it (its cause), else its message. */
function speechFailure(err: unknown): EngineError {
  const cause = (err as { cause?: unknown }).cause;
  return cause instanceof EngineError ? cause : new EngineError(String((err as Error)?.message ?? err));
}
