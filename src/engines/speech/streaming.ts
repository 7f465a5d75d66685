import { asEngineError, EngineError } from '../errors.ts';
import type { SpeechRecognizer } from './recognizer.ts';

// Hearing while the speaker speaks: a stream opened for one speaker takes
// their audio as it comes (write), and answers what it has heard so far
// (partials) and what it has settled (finals) as it goes, until end(). An
// engine whose provider streams (Deepgram live, vosk-server, OpenAI realtime
// transcription, PocketSphinx decoding as the audio comes) opens its own
// streams; one that only reads whole utterances (SpeechRecognizer.recognize)
// is heard through the same interface by WholeUtteranceStream: the audio is
// kept until end(), then read at once and answered as one final.
//
// A partial replaces the one before it (it is the text of the phrase so far,
// never a piece to append); a final settles that phrase, and the partials
// after it are of the next one. A stream that fails (the provider answered
// an error, dropped the connection, did not answer in time) ends its results
// with an EngineError (engines/errors.ts), for the chain to move on to the
// next engine (stream-chain.ts).

export type Heard = {
  kind: 'partial' | 'final';
  /** The phrase so far (partial), or as settled (final). */
  text: string;
  /** The language the engine says was spoken, where it says it. */
  lang?: string;
  /** Where the phrase starts and ends in the stream's audio, in milliseconds from its first sample, where the engine says it. */
  startMs?: number;
  endMs?: number;
};

export type StreamOptions = {
  /** The language the speaker is expected to speak (a BCP 47 tag). */
  lang: string;
  /** The sample rate of the audio written (a phone line: 8000). */
  rate: number;
  /** Whose audio it is (a call's dialog, a room's participant), for logs. */
  key: string;
  /** Aborting it stops the stream at once: its results end with an EngineError. */
  signal?: AbortSignal;
};

export interface RecognitionStream extends AsyncIterable<Heard> {
  /** More of the speaker's audio: 16-bit mono PCM at the stream's rate. Ignored once ended. */
  write(pcm: Int16Array): void;
  /** No more audio: the engine settles what it heard (its last final), then the results end. */
  end(): void;
}

export interface StreamingRecognizer {
  readonly name: string;
  hears(lang: string): boolean;
  /** A stream for one speaker. Never throws: a failure to open ends its results with an EngineError. */
  open(o: StreamOptions): RecognitionStream;
}

/**
 * The results of one stream as they come: pushed by the engine's side, read
 * once (for await) by the listener's. Ends when finished, or with the
 * failure; what came before a failure is read first.
 */
export class HeardQueue implements AsyncIterable<Heard> {
  private readonly items: Heard[] = [];
  private wake: (() => void) | null = null;
  private over = false;
  private error: EngineError | null = null;
  private readonly hooks: Array<() => void> = [];

  /** Whether it is finished or failed (nothing more is taken). */
  get settled(): boolean {
    return this.over;
  }

  push(h: Heard): void {
    if (this.over) return;
    this.items.push(h);
    this.poke();
  }

  finish(): void {
    if (this.over) return;
    this.over = true;
    this.poke();
  }

  fail(err: unknown): void {
    if (this.over) return;
    this.error = asEngineError(err);
    this.over = true;
    this.poke();
  }

  /** f once it is finished or failed. */
  onSettled(f: () => void): void {
    if (this.over) f();
    else this.hooks.push(f);
  }

  private poke(): void {
    if (this.over) for (const f of this.hooks.splice(0)) f();
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Heard> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift()!;
        continue;
      }
      if (this.over) {
        if (this.error) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => { this.wake = resolve; });
    }
  }
}

/**
 * onAbort when the signal aborts (at once if it has), until the queue
 * settles: a call's signal outlives its many streams, which must not leave
 * a listener each on it.
 */
export function stopOn(signal: AbortSignal | undefined, queue: HeardQueue, onAbort: () => void): void {
  if (!signal) return;
  if (signal.aborted) return queueMicrotask(onAbort);
  signal.addEventListener('abort', onAbort, { once: true });
  queue.onSettled(() => signal.removeEventListener('abort', onAbort));
}

/** Samples in milliseconds at a rate. */
export function samplesToMs(samples: number, rate: number): number {
  return Math.round((samples * 1000) / rate);
}

/** Chunks of audio as one. */
export function concatPcm(chunks: readonly Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * A whole-utterance recognizer heard as a stream: the audio is kept until
 * end(), then read by recognize() and answered as one final (none when it
 * heard no words). Its failure, or the signal's abort, fails the stream.
 */
export class WholeUtteranceStream implements RecognitionStream {
  private readonly queue = new HeardQueue();
  private readonly chunks: Int16Array[] = [];
  private ended = false;

  private readonly engine: SpeechRecognizer;
  private readonly o: StreamOptions;

  constructor(engine: SpeechRecognizer, o: StreamOptions) {
    this.engine = engine;
    this.o = o;
    stopOn(o.signal, this.queue, () => this.queue.fail(new EngineError(`${engine.name}: stopped`)));
  }

  write(pcm: Int16Array): void {
    if (!this.ended && pcm.length > 0) this.chunks.push(pcm.slice());
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    const pcm = concatPcm(this.chunks);
    this.chunks.length = 0;
    const audioMs = samplesToMs(pcm.length, this.o.rate);
    this.engine.recognize({ key: this.o.key, pcm, rate: this.o.rate, audioMs, lang: this.o.lang, at: Date.now() }, this.o.signal).then(
      ({ text }) => {
        if (text) this.queue.push({ kind: 'final', text, startMs: 0, endMs: audioMs });
        this.queue.finish();
      },
      (err: unknown) => this.queue.fail(err),
    );
  }

  [Symbol.asyncIterator](): AsyncIterator<Heard> {
    return this.queue[Symbol.asyncIterator]();
  }
}

/** A recognizer that opens streams of its own. */
export function opensStreams(r: SpeechRecognizer): r is SpeechRecognizer & StreamingRecognizer {
  return typeof (r as Partial<StreamingRecognizer>).open === 'function';
}

/** Any recognizer as a streaming one: its own streams, or its whole-utterance reading behind WholeUtteranceStream. */
export function asStreaming(r: SpeechRecognizer): StreamingRecognizer {
  if (opensStreams(r)) return r;
  return { name: r.name, hears: (lang) => r.hears(lang), open: (o) => new WholeUtteranceStream(r, o) };
}

/** A stream that could not open (a language the engine lacks): its results end with the error at once. */
export function failedStream(err: EngineError): RecognitionStream {
  const queue = new HeardQueue();
  queue.fail(err);
  return { write() {}, end() {}, [Symbol.asyncIterator]: () => queue[Symbol.asyncIterator]() };
}
