import os from 'node:os';
import path from 'node:path';
import { EngineError } from '../errors.ts';
import type { InstalledModel } from '../models/store.ts';
import type { HeardUtterance, SpeechRecognizer } from '../speech/recognizer.ts';
import { RereadStream } from '../speech/reread-stream.ts';
import { failedStream, type RecognitionStream, type StreamOptions, type StreamingRecognizer } from '../speech/streaming.ts';
import { startModelProcess, type ModelProcess, type ModelReply } from '../model-process.ts';
import { Supervisor, type BackoffOptions } from '../supervisor.ts';
import { baseLang } from '../translate/engine.ts';
import { bcp47Of, whisperCode } from './languages.ts';

// The embedded multilingual recognizer: OpenAI's Whisper (MIT), as exported
// to ONNX by sherpa-onnx and run by its native runtime (sherpa-onnx-node,
// Apache-2.0, prebuilt per platform with onnxruntime: nothing is built or
// downloaded at install). Chosen over the whisper.cpp bindings: those build
// whisper.cpp from their sources at install (smart-whisper: node-gyp, about
// 30 s here) for the oldest x86-64 instructions unless the installer sets
// compiler flags, or ship a binary for macOS only (@napi-rs/whisper), while
// onnxruntime picks the processor's vector instructions at run time, and the
// same runtime already detects voices (gateway/media/vad.ts) and speaks
// Piper's voices (engines/piper). A model is one `npx tolk models pull`
// (engines/models/catalog.ts); the engine uses the installed one.
//
// Decoders are processes of their own (model-process.ts says why), each
// with the model loaded, reading one utterance at a time; a dead one fails
// what it was reading and is started again after a pause (supervisor.ts).
//
// The model reads at most 30 s at once: a longer utterance is read in pieces.
// Whisper reads a window of audio whole, so it is heard while the speaker
// speaks by reading the growing audio again (speech/reread-stream.ts).
// Where the speaker's language is not given (an empty lang), the model
// says which it heard (its language tokens) and reads it in that one.

/** Audio shorter than this has no words for the model (it reads 6 tokens a second at most): answered without decoding. */
const SHORTEST_MS = 200;
/** The model's window is 30 s; sherpa-onnx keeps 29.5 s of it: pieces of 28 s. */
const PIECE_S = 28;
/** The longest a reading waits for a decoder to come up (a model loading) when its caller gave no deadline. */
const WAIT_FOR_DECODER_MS = 30_000;

type Reply = ModelReply & { text: string; lang: string; ms: number };
type Slot = { supervisor: Supervisor<ModelProcess>; busy: number };

export type WhisperOptions = {
  /** Decoder processes side by side (default: the cores less one, at least 1, at most 4). */
  processes?: number;
  /** Threads of each decoding (default: the cores shared among the processes). */
  threads?: number;
  backoff?: BackoffOptions;
};

export class WhisperRecognizer implements SpeechRecognizer, StreamingRecognizer {
  readonly name = 'whisper';
  requests = 0;
  /** What the decoders did: utterances read, their audio and the time it took (the real-time factor is their ratio). */
  readonly timing = { decodings: 0, audioMs: 0, decodeMs: 0 };
  private readonly slots: Slot[] = [];
  private readonly languages: Set<string>;
  private readonly model: InstalledModel;
  private closed = false;
  /** Why the model did not load, once a decoder said so: every request fails with it. */
  private loadError: string | null = null;

  constructor(model: InstalledModel, o: WhisperOptions = {}) {
    this.model = model;
    this.languages = new Set(model.languages.map((l) => baseLang(l)));
    const cores = os.availableParallelism();
    const processes = Math.max(1, o.processes ?? Math.min(4, cores - 1));
    const threads = Math.max(1, o.threads ?? Math.floor(cores / processes));
    const setup = {
      encoder: path.join(model.dir, 'encoder.onnx'), decoder: path.join(model.dir, 'decoder.onnx'), tokens: path.join(model.dir, 'tokens.txt'), threads,
    };
    for (let i = 0; i < processes; i++) {
      const supervisor = new Supervisor<ModelProcess>({
        what: `whisper decoder (${model.name})`, kind: 'recognizer', engine: this.name,
        start: () => startModelProcess(new URL('./decoder.ts', import.meta.url), setup, 'whisper'),
        ...(o.backoff ? { backoff: o.backoff } : {}),
      });
      const slot: Slot = { supervisor, busy: 0 };
      this.slots.push(slot);
      // Loaded now, not at the first utterance: a model takes a second or more to load.
      supervisor.start().catch((err: Error) => { this.loadError = err.message; });
    }
  }

  /** The installed model it reads with. */
  get modelName(): string {
    return this.model.name;
  }

  hears(lang: string): boolean {
    return lang === '' || this.languages.has(baseLang(lang));
  }

  /** Whether a decoder would take an utterance now without waiting. */
  spare(): boolean {
    return !this.closed && this.slots.some((s) => s.busy === 0 && s.supervisor.child !== null);
  }

  open(o: StreamOptions): RecognitionStream {
    if (this.closed) return failedStream(new EngineError('whisper: closed', { permanent: true }));
    if (!this.hears(o.lang)) return failedStream(new EngineError(`whisper (${this.model.name}) does not hear ${o.lang}`, { permanent: true }));
    return new RereadStream(this, o);
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null; lang?: string }> {
    if (this.closed) throw new EngineError('whisper: closed', { permanent: true });
    if (!this.hears(u.lang)) throw new EngineError(`whisper (${this.model.name}) does not hear ${u.lang}`, { permanent: true });
    const rate = u.rate ?? 8000;
    if ((u.pcm.length / rate) * 1000 < SHORTEST_MS) return { text: null };
    this.requests++;
    const slot = await this.slot(signal);
    slot.busy++;
    try {
      let language = u.lang === '' ? '' : whisperCode(baseLang(u.lang));
      const texts: string[] = [];
      let heardIn: string | undefined;
      const piece = PIECE_S * rate;
      for (let at = 0; at < u.pcm.length; at += piece) {
        const pcm = u.pcm.subarray(at, Math.min(u.pcm.length, at + piece));
        if ((pcm.length / rate) * 1000 < SHORTEST_MS) break;
        const r = await this.ask(slot, pcm, rate, language, signal);
        if (r.text) texts.push(r.text);
        // The language heard in the first piece is the rest's.
        if (r.lang && !heardIn) {
          heardIn = bcp47Of(r.lang);
          language ||= r.lang;
        }
      }
      const text = texts.join(' ').trim();
      return { text: text === '' ? null : text, ...(u.lang === '' && heardIn ? { lang: heardIn } : {}) };
    } finally {
      slot.busy--;
    }
  }

  /**
   * The least busy decoder that is up; while none is (the model loading, a
   * dead decoder's replacement on its way), the first that comes up, unless
   * the signal ends the wait first. A model that did not load fails at once.
   */
  private async slot(signal?: AbortSignal): Promise<Slot> {
    for (let waited = 0; ; waited += 50) {
      const up = this.slots.filter((s) => s.supervisor.child !== null);
      if (up.length > 0) return up.reduce((a, b) => (b.busy < a.busy ? b : a));
      if (this.loadError) throw new EngineError(this.loadError, { permanent: true });
      if (this.closed || signal?.aborted || waited >= WAIT_FOR_DECODER_MS) {
        throw new EngineError(`whisper: no decoder is running (${this.model.name} is being loaded, or its decoder died and is being started again)`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async ask(slot: Slot, pcm: Int16Array, rate: number, language: string, signal?: AbortSignal): Promise<Reply> {
    const d = slot.supervisor.child;
    if (!d) throw new EngineError('whisper: its decoder stopped');
    const samples = new Float32Array(pcm.length);
    for (let i = 0; i < pcm.length; i++) samples[i] = pcm[i]! / 32768;
    const r = await d.ask<Reply>({ samples, rate, language }, signal);
    this.timing.decodings++;
    this.timing.audioMs += Math.round((pcm.length / rate) * 1000);
    this.timing.decodeMs += r.ms;
    return r;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.supervisor.stop()));
  }
}
