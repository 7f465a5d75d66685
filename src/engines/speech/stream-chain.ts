import type { Fallback } from '../fallback.ts';
import { asEngineError } from '../errors.ts';
import type { SpeechRecognizer } from './recognizer.ts';
import { asStreaming, HeardQueue, samplesToMs, stopOn, type Heard, type RecognitionStream, type StreamOptions } from './streaming.ts';

// The recognizers of TOLK_RECOGNIZE heard as one stream, with the rules of
// their chain (recognizers.ts): the stream goes to the first engine that
// hears its language and whose breaker lets it; when that engine's stream
// fails (an EngineError: refused, dropped, no final in time), the failure
// counts against its breaker and the next engine takes over with the audio
// not yet settled by a final (kept for that), as if the speaker had started
// there; its times are moved to the stream's. After end() an engine has the
// chain's time limit plus the length of the audio it has to settle (as a
// whole utterance has in recognizers.ts), or it is stopped and counted as
// failed like any other. A stream that ends well counts as the engine's success. When no engine is left the results end with no
// more text, as a chain's utterance is reported with no text: the chain's
// stream never fails, except when its own signal aborts it.

type Kept = { at: number; pcm: Int16Array };

export class ChainStream implements RecognitionStream {
  private readonly queue = new HeardQueue();
  private readonly candidates: SpeechRecognizer[];
  /** Audio not yet settled by a final, each chunk with its first sample's place in the stream. */
  private kept: Kept[] = [];
  private written = 0;
  private current: { stream: RecognitionStream; base: number; stop: AbortController } | null = null;
  private limit: NodeJS.Timeout | null = null;
  private readonly timeoutMs: number;
  private next = 0;
  private ended = false;
  private readonly fallback: Fallback<SpeechRecognizer>;
  private readonly o: StreamOptions;

  /** `timeoutMs`: how long an engine may take to settle after end(), besides the audio's length. */
  constructor(fallback: Fallback<SpeechRecognizer>, o: StreamOptions, timeoutMs = 10_000) {
    this.fallback = fallback;
    this.o = o;
    this.timeoutMs = timeoutMs;
    this.candidates = fallback.engines.filter((e) => e.hears(o.lang));
    stopOn(o.signal, this.queue, () => {
      this.clearLimit();
      this.queue.fail(asEngineError('recognizer: stopped'));
      this.current?.stop.abort();
    });
    this.advance();
  }

  /** The next engine that may take the stream now, with the audio kept; none: the results end. */
  private advance(): void {
    this.current = null;
    this.clearLimit();
    if (this.queue.settled) return;
    while (this.next < this.candidates.length) {
      const engine = this.candidates[this.next++]!;
      if (!this.fallback.allows(engine)) continue;
      const base = this.kept[0]?.at ?? this.written;
      const stop = new AbortController();
      const signal = this.o.signal ? AbortSignal.any([this.o.signal, stop.signal]) : stop.signal;
      let stream: RecognitionStream;
      try {
        stream = asStreaming(engine).open({ ...this.o, signal });
      } catch (err) {
        this.fallback.breakers.get(engine)?.failure(asEngineError(err));
        continue;
      }
      this.current = { stream, base, stop };
      for (const k of this.kept) stream.write(k.pcm);
      if (this.ended) this.endCurrent();
      void this.pump(engine, stream, base);
      return;
    }
    this.queue.finish();
  }

  private async pump(engine: SpeechRecognizer, stream: RecognitionStream, base: number): Promise<void> {
    const baseMs = samplesToMs(base, this.o.rate);
    try {
      for await (const h of stream) {
        const moved: Heard = { ...h, ...(h.startMs !== undefined ? { startMs: h.startMs + baseMs } : {}), ...(h.endMs !== undefined ? { endMs: h.endMs + baseMs } : {}) };
        this.queue.push(moved);
        if (h.kind === 'final') this.settle(moved.endMs);
      }
      this.fallback.breakers.get(engine)?.success();
      this.clearLimit();
      this.queue.finish();
    } catch (raw) {
      if (this.queue.settled || this.o.signal?.aborted) return;
      this.fallback.breakers.get(engine)?.failure(asEngineError(raw));
      this.advance();
    }
  }

  /** A final settled the audio up to `endMs` (all of it when the engine did not say): it need not be kept. */
  private settle(endMs: number | undefined): void {
    const upTo = endMs === undefined ? this.written : Math.floor((endMs * this.o.rate) / 1000);
    this.kept = this.kept.filter((k) => k.at + k.pcm.length > upTo);
  }

  write(pcm: Int16Array): void {
    if (this.ended || this.queue.settled || pcm.length === 0) return;
    const copy = pcm.slice();
    this.kept.push({ at: this.written, pcm: copy });
    this.written += copy.length;
    this.current?.stream.write(copy);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.endCurrent();
  }

  /** The current engine's end, and its limit: the chain's, plus the length of the audio it has to settle. */
  private endCurrent(): void {
    const current = this.current;
    if (!current) return;
    current.stream.end();
    const audioMs = samplesToMs(this.written - current.base, this.o.rate);
    this.clearLimit();
    this.limit = setTimeout(() => current.stop.abort(), this.timeoutMs + audioMs);
    this.limit.unref();
  }

  private clearLimit(): void {
    if (this.limit) clearTimeout(this.limit);
    this.limit = null;
  }

  [Symbol.asyncIterator](): AsyncIterator<Heard> {
    return this.queue[Symbol.asyncIterator]();
  }
}
