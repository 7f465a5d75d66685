import { LRUCache } from 'lru-cache';

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

  constructor(engines: SpeechSynthesizer[]) {
    this.engines = engines;
    this.name = engines.map((e) => e.name).join('+');
  }

  speaks(lang: string): boolean {
    return this.engines.some((e) => e.speaks(lang));
  }

  /** The engine that speaks `lang`, or undefined. */
  engineFor(lang: string): SpeechSynthesizer | undefined {
    return this.engines.find((e) => e.speaks(lang));
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const engine = this.engineFor(lang);
    if (!engine) return Promise.reject(new SpeechError(`no speech engine speaks ${lang} (engines: ${this.name})`));
    return engine.synthesize(text, lang, voice);
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close()));
  }
}
