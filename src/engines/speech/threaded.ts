import { Worker } from 'node:worker_threads';
import { SpeechError, type Speech, type SpeechSynthesizer } from './synthesizer.ts';

// An engine that synthesizes in a worker thread of its own (a sentence takes
// tens of milliseconds, which the API's event loop should not wait through).
// The thread starts at the first synthesis: a process that never speaks never
// loads the engine. Its worker answers { id, voice, text } with { id, pcm }
// (8 kHz 16-bit PCM, transferred) or { id, error }.

export abstract class ThreadedSynthesizer implements SpeechSynthesizer {
  abstract readonly name: string;
  private thread: Worker | null = null;
  private closed = false;
  private next = 1;
  private pending = new Map<number, { ok: (s: Speech) => void; fail: (e: Error) => void }>();
  private dead: Error | null = null;
  private readonly workerUrl: URL;

  protected constructor(workerUrl: URL) {
    this.workerUrl = workerUrl;
  }

  abstract speaks(lang: string): boolean;
  abstract synthesize(text: string, lang: string, voice?: string): Promise<Speech>;

  private get worker(): Worker {
    if (this.thread) return this.thread;
    const worker = new Worker(this.workerUrl);
    this.thread = worker;
    worker.unref();
    worker.on('message', (m: { id: number; pcm?: Int16Array; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (!p) return;
      if (m.error || !m.pcm) p.fail(new SpeechError(`${this.name}: ${m.error ?? 'no audio'}`));
      else p.ok({ pcm: m.pcm, ms: Math.round(m.pcm.length / 8) });
    });
    const die = (err: Error) => {
      this.dead ??= err;
      for (const p of this.pending.values()) p.fail(err);
      this.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`${this.name}: its thread exited (${code})`)));
    return worker;
  }

  /** Asks the thread to speak `text` with `voice` (the engine's own voice name). */
  protected request(voice: string, text: string): Promise<Speech> {
    if (!text.trim()) return Promise.reject(new SpeechError(`${this.name}: nothing to say`));
    if (this.dead) return Promise.reject(this.dead);
    if (this.closed) return Promise.reject(new SpeechError(`${this.name}: closed`));
    const id = this.next++;
    return new Promise<Speech>((ok, fail) => {
      this.pending.set(id, { ok, fail });
      this.worker.ref();
      this.worker.postMessage({ id, voice, text });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.thread?.terminate();
  }
}
