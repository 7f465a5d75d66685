import type { Breaker, BreakerOptions } from '../breaker.ts';
import { Fallback } from '../fallback.ts';
import type { HeardUtterance, SpeechRecognizer } from './recognizer.ts';
import { ChainStream } from './stream-chain.ts';
import type { RecognitionStream, StreamOptions, StreamingRecognizer } from './streaming.ts';

// The recognizers of TOLK_RECOGNIZE in their order, as one: an utterance goes
// to the first engine that hears its language, with the rules of every
// engine's fallback (engines/fallback.ts): a time limit (TOLK_RECOGNIZE_TIMEOUT_MS
// plus the utterance's own length: reading takes longer the longer it is), one retry of a failure
// that may pass, a breaker per engine, and falling through to the next
// engine that hears the language. When none could read it the answer is no
// text (never invented words): the utterance is still reported, with its
// length. It never rejects, and never takes longer than the engines' limits.
// open() hears a speaker as a stream by the same rules (stream-chain.ts).

export type RecognizerChainOptions = Partial<BreakerOptions> & { timeoutMs?: number; retries?: number };

export class RecognizerChain implements SpeechRecognizer, StreamingRecognizer {
  readonly name: string;
  readonly engines: readonly SpeechRecognizer[];
  readonly breakers: Map<SpeechRecognizer, Breaker>;
  private readonly fallback: Fallback<SpeechRecognizer>;
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(engines: SpeechRecognizer[], o: RecognizerChainOptions = {}) {
    this.engines = engines;
    this.name = engines.map((e) => e.name).join('+') || 'none';
    this.timeoutMs = o.timeoutMs ?? 10_000;
    this.retries = o.retries ?? 1;
    this.fallback = new Fallback('recognizer', engines, o);
    this.breakers = this.fallback.breakers;
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

  /** Whether the engine that reads a language now streams it as the audio comes (SpeechRecognizer.streamsAsSpoken). */
  streamsAsSpoken(lang: string): boolean {
    return this.engines.find((e) => e.hears(lang))?.streamsAsSpoken?.(lang) ?? false;
  }

  async recognize(u: HeardUtterance): Promise<{ text: string | null; engine?: string | null }> {
    // Reading takes longer the longer the speech: the limit is the base one plus the utterance's length.
    const limitMs = this.timeoutMs + Math.max(0, u.audioMs);
    const r = await this.fallback.first((e) => e.hears(u.lang), (e, signal) => e.recognize(u, signal), { limitMs, retries: this.retries });
    if (r.ok) return { text: r.value.text, engine: r.engine.name };
    return { text: null, engine: null };
  }

  /** A stream for one speaker, heard by the first engine that can, the next taking over when it fails (stream-chain.ts). */
  open(o: StreamOptions): RecognitionStream {
    return new ChainStream(this.fallback, o, this.timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((e) => e.close().catch(() => {})));
  }
}
