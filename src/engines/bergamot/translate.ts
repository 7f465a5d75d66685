import { Worker } from 'node:worker_threads';
import { EngineError } from '../errors.ts';
import type { InstalledModel } from '../models/store.ts';
import { Supervisor, type BackoffOptions, type Child } from '../supervisor.ts';
import { baseLang, eachTarget, type TranslationEngine } from '../translate/engine.ts';

// Neural translation on this machine: Mozilla's Firefox Translations models
// (Bergamot: Marian transformers distilled to run on a CPU; MPL-2.0 runtime,
// models per direction) as `npx tolk models pull bergamot-en-es` installs
// them, run by the runtime Firefox runs (@browsermt/bergamot-translator's
// WebAssembly build, wasm.ts). Each pair translates in a worker thread of its
// own (worker.ts), started at its first phrase and kept: a tiny model takes
// about 400 MB there, so only the pairs in use cost memory. A pair without a
// model goes through English where both halves are installed (the chain
// pivots: translate/chain.ts). A phrase longer than MAX_CHARS is cut into
// sentences by the runtime; past that, refused (it costs up to twice its
// length in output tokens).

const MAX_CHARS = 2000;

type PairThread = Child & { worker: Worker; waiting: Map<number, { ok: (out: string[]) => void; fail: (e: Error) => void }> };

export class BergamotEngine implements TranslationEngine {
  readonly name = 'bergamot';
  readonly url = 'embedded';
  requests = 0;
  private readonly models: Map<string, InstalledModel>;
  private readonly threads = new Map<string, { supervisor: Supervisor<PairThread>; starting: Promise<unknown> }>();
  private readonly backoff: BackoffOptions | undefined;
  private next = 1;
  private closed = false;

  constructor(models: InstalledModel[], o: { backoff?: BackoffOptions } = {}) {
    this.models = new Map(models.filter((m) => m.languages.length === 2).map((m) => [`${baseLang(m.languages[0]!)}\n${baseLang(m.languages[1]!)}`, m]));
    this.backoff = o.backoff;
  }

  async load(): Promise<void> {}

  pairs(): ReadonlyArray<readonly [string, string]> {
    return [...this.models.keys()].map((k) => k.split('\n') as [string, string]);
  }

  covers(from: string, to: string): boolean {
    return this.models.has(`${baseLang(from)}\n${baseLang(to)}`);
  }

  translate(text: string, from: string, to: readonly string[], signal: AbortSignal): Promise<Record<string, string>> {
    if (text.length > MAX_CHARS) return Promise.reject(new EngineError(`bergamot: a phrase of ${text.length} characters is longer than ${MAX_CHARS}`, { permanent: true }));
    return eachTarget(this.name, from, to, (lang) => this.models.get(`${baseLang(from)}\n${baseLang(lang)}`), (m) => this.ask(m, text, signal));
  }

  private thread(m: InstalledModel): Promise<PairThread> {
    let t = this.threads.get(m.name);
    if (!t) {
      const supervisor = new Supervisor<PairThread>({
        what: `bergamot ${m.languages.join('→')}`, kind: 'translate', engine: this.name,
        start: () => startPair(m.dir),
        ...(this.backoff ? { backoff: this.backoff } : {}),
      });
      t = { supervisor, starting: supervisor.start() };
      // A model that does not load is tried again at the pair's next phrase.
      t.starting.catch(() => this.threads.delete(m.name));
      this.threads.set(m.name, t);
    }
    const entry = t;
    return entry.starting.then(async () => {
      for (let i = 0; i < 100 && !entry.supervisor.child && !this.closed; i++) await new Promise((r) => setTimeout(r, 50));
      if (!entry.supervisor.child) throw new EngineError(`bergamot ${m.languages.join('→')}: its thread is being started again`);
      return entry.supervisor.child;
    });
  }

  private async ask(m: InstalledModel, text: string, signal: AbortSignal): Promise<string> {
    if (this.closed) throw new EngineError('bergamot: closed', { permanent: true });
    let t: PairThread;
    try {
      t = await this.thread(m);
    } catch (err) {
      throw err instanceof EngineError ? err : new EngineError((err as Error).message);
    }
    this.requests++;
    const id = this.next++;
    return new Promise<string>((resolve, reject) => {
      const onAbort = () => {
        t.waiting.delete(id);
        reject(new EngineError('bergamot: no answer in time'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      t.waiting.set(id, {
        ok: (out) => { signal.removeEventListener('abort', onAbort); resolve(out[0] ?? ''); },
        fail: (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
      });
      t.worker.postMessage({ id, texts: [text] });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.threads.values()].map((t) => t.supervisor.stop()));
  }
}

/** A pair's thread, resolved once its model loaded and translated a word (rejected with the runtime's reason else). */
function startPair(dir: string): Promise<PairThread> {
  const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: { dir } });
  const waiting: PairThread['waiting'] = new Map();
  let fatal = '';
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => worker.once('exit', (code) => {
    const err = new EngineError(`bergamot: its thread stopped${fatal ? ` (${fatal})` : ''}`);
    for (const w of waiting.values()) w.fail(err);
    waiting.clear();
    resolve({ code, signal: null });
  }));
  worker.on('error', (err) => { fatal ||= err.message; });
  const t: PairThread = { worker, waiting, pid: worker.threadId, exited, stop: async () => { await worker.terminate(); await exited; } };
  return new Promise<PairThread>((resolve, reject) => {
    worker.on('message', (m: { ready?: boolean; fatal?: string; id?: number; out?: string[]; error?: string }) => {
      if (m.ready) return resolve(t);
      if (m.fatal) {
        fatal = m.fatal;
        return reject(new EngineError(`bergamot: ${m.fatal}`));
      }
      const w = waiting.get(m.id!);
      waiting.delete(m.id!);
      if (m.error !== undefined) w?.fail(new EngineError(`bergamot: ${m.error}`));
      else w?.ok(m.out ?? []);
    });
    void exited.then(() => reject(new EngineError(`bergamot: its thread ended before its model was ready${fatal ? ` (${fatal})` : ''}`)));
  });
}
