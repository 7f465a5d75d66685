import { EngineError } from '../errors.ts';
import type { SpeechRecognizer } from './recognizer.ts';
import { concatPcm, HeardQueue, samplesToMs, stopOn, type Heard, type RecognitionStream, type StreamOptions } from './streaming.ts';

// Hearing while the speaker speaks with an engine that reads whole utterances
// (SpeechRecognizer.recognize): the stream reads the audio heard so far again
// as it grows, with the engine's own decoders. Each reading is a partial, and
// at end() the whole of it is the final, the very answer recognize() gives
// for that audio. PocketSphinx is heard so (its library decodes as the audio
// comes, but Debian ships only its tools: pocketsphinx/recognizer.ts), and
// Whisper (whose model reads a window of audio at once: whisper/recognizer.ts).
// Reading again costs: a partial is read only when half again as much audio
// came since the last one (at least `everyMs`), which keeps the work within
// about three times the audio's length, and only when a decoder is idle, so
// that partials never hold up another speaker's final.

export type RereadStreamOptions = StreamOptions & {
  /** The least audio between two partials (default 500 ms). */
  everyMs?: number;
};

/** What the stream asks of the recognizer: its whole-utterance reading, and whether a decoder is free now. */
export type Decoders = SpeechRecognizer & { spare(): boolean };

export class RereadStream implements RecognitionStream {
  private readonly queue = new HeardQueue();
  private readonly chunks: Int16Array[] = [];
  private samples = 0;
  /** Samples read by the last partial's decoding (or being read). */
  private readSamples = 0;
  private reading = false;
  private ended = false;
  private lastPartial = '';
  private readonly engine: Decoders;
  private readonly o: RereadStreamOptions;
  private readonly everySamples: number;

  constructor(engine: Decoders, o: RereadStreamOptions) {
    this.engine = engine;
    this.o = o;
    this.everySamples = Math.round(((o.everyMs ?? 500) * o.rate) / 1000);
    stopOn(o.signal, this.queue, () => this.queue.fail(new EngineError(`${engine.name}: stopped`)));
  }

  private utterance(): { key: string; pcm: Int16Array; rate: number; audioMs: number; lang: string; at: number } {
    const pcm = concatPcm(this.chunks);
    // One chunk from now on: the next concatenation copies less.
    this.chunks.length = 0;
    this.chunks.push(pcm);
    return { key: this.o.key, pcm, rate: this.o.rate, audioMs: samplesToMs(pcm.length, this.o.rate), lang: this.o.lang, at: Date.now() };
  }

  write(pcm: Int16Array): void {
    if (this.ended || this.queue.settled || pcm.length === 0) return;
    this.chunks.push(pcm.slice());
    this.samples += pcm.length;
    this.maybePartial();
  }

  private maybePartial(): void {
    const grown = this.samples - this.readSamples;
    if (this.reading || this.ended || grown < Math.max(this.everySamples, this.readSamples / 2) || !this.engine.spare()) return;
    this.reading = true;
    const u = this.utterance();
    this.readSamples = u.pcm.length;
    this.engine.recognize(u, this.o.signal).then(
      ({ text }) => {
        this.reading = false;
        // After end() the final says it all.
        if (this.ended || this.queue.settled) return;
        if (text && text !== this.lastPartial) {
          this.lastPartial = text;
          this.queue.push({ kind: 'partial', text, startMs: 0, endMs: u.audioMs });
        }
        this.maybePartial();
      },
      // A partial that failed is only a partial: the final's reading says whether the engine can read it.
      () => { this.reading = false; },
    );
  }

  end(): void {
    if (this.ended || this.queue.settled) return;
    this.ended = true;
    const u = this.utterance();
    this.engine.recognize(u, this.o.signal).then(
      ({ text }) => {
        if (text) this.queue.push({ kind: 'final', text, startMs: 0, endMs: u.audioMs });
        this.queue.finish();
      },
      (err: unknown) => this.queue.fail(err),
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<Heard> {
    return this.queue[Symbol.asyncIterator]();
  }
}
