import { Worker } from 'node:worker_threads';
import { SpeechError, type Speech, type SpeechSynthesizer } from './synthesizer.ts';
import { Supervisor, type BackoffOptions, type Child } from '../supervisor.ts';

// An engine that synthesizes in a worker thread of its own (a sentence takes
// tens of milliseconds, which the API's event loop should not wait through).
// The thread starts at the first synthesis: a process that never speaks never
// loads the engine. Its worker answers { id, voice, text } with { id, pcm }
// (8 kHz 16-bit PCM, transferred) or { id, error }. A thread that dies (an
// engine's crash, out of memory, terminated) fails what it was asked, is
// logged and is started again (supervisor.ts: 0.5 s doubling to 30 s);
// meanwhile a request fails at once and /readyz counts the engine down.

type Thread = Child & { worker: Worker };

export abstract class ThreadedSynthesizer implements SpeechSynthesizer {
  abstract readonly name: string;
  private supervisor: Supervisor<Thread> | null = null;
  private starting: Promise<unknown> | null = null;
  private closed = false;
  private next = 1;
  private pending = new Map<number, { ok: (s: Speech) => void; fail: (e: Error) => void }>();
  private readonly workerUrl: URL;
  private readonly backoff: BackoffOptions | undefined;

  protected constructor(workerUrl: URL, o: { backoff?: BackoffOptions } = {}) {
    this.workerUrl = workerUrl;
    this.backoff = o.backoff;
  }

  abstract speaks(lang: string): boolean;
  abstract synthesize(text: string, lang: string, voice?: string): Promise<Speech>;

  /** The thread running now (its id), null while none is. */
  get threadId(): number | null {
    return this.supervisor?.child?.worker.threadId ?? null;
  }

  private thread(): Thread {
    const worker = new Worker(this.workerUrl);
    worker.unref();
    worker.on('message', (m: { id: number; pcm?: Int16Array; error?: string }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref();
      if (!p) return;
      if (m.error || !m.pcm) p.fail(new SpeechError(`${this.name}: ${m.error ?? 'no audio'}`));
      else p.ok({ pcm: m.pcm, ms: Math.round(m.pcm.length / 8) });
    });
    let error: Error | null = null;
    worker.on('error', (err) => { error = err; });
    const exited = new Promise<{ code: number; signal: string | null }>((resolve) => worker.once('exit', (code) => {
      // What it was asked fails now; the next request goes to the next thread.
      const err = new SpeechError(`${this.name}: its thread stopped (${error?.message ?? `exit ${code}`})`);
      for (const p of this.pending.values()) p.fail(err);
      this.pending.clear();
      resolve({ code, signal: null });
    }));
    return { worker, pid: worker.threadId, exited, stop: async () => { await worker.terminate(); } };
  }

  /** Asks the thread to speak `text` with `voice` (the engine's own voice name). */
  protected async request(voice: string, text: string): Promise<Speech> {
    if (!text.trim()) throw new SpeechError(`${this.name}: nothing to say`);
    if (this.closed) throw new SpeechError(`${this.name}: closed`);
    if (!this.supervisor) {
      const sup = new Supervisor<Thread>({
        what: `${this.name}'s thread`,
        kind: 'speech',
        engine: this.name,
        start: async () => this.thread(),
        ...(this.backoff ? { backoff: this.backoff } : {}),
      });
      this.supervisor = sup;
      this.starting = sup.start();
    }
    await this.starting;
    const t = this.supervisor.child;
    if (!t) throw new SpeechError(`${this.name}: its thread is being started again`);
    const id = this.next++;
    return new Promise<Speech>((ok, fail) => {
      this.pending.set(id, { ok, fail });
      t.worker.ref();
      t.worker.postMessage({ id, voice, text });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.supervisor?.stop();
  }
}
