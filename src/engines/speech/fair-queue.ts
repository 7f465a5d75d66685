// Fairness between people for the speech engines (recognition of room
// microphones, read-aloud synthesis). Each person (a key: a room
// participant's id) has at most one job of a kind with the engine at a time;
// their further jobs wait in their own line. Where the engine reads a fixed
// number of jobs side by side (the embedded PocketSphinx: its decoders), at
// most that many are handed to it (`concurrency`), and a free place goes to
// the people in turn (round-robin), not to whoever queued most. The bound:
// a person's job waits, before it reaches the engine, for at most one job of
// each other person (plus their own earlier ones), however much audio or how
// many phrases the others push; and it waits outside the engine, so the
// engine's time limit (TOLK_RECOGNIZE_TIMEOUT_MS) counts its own reading,
// not another person's backlog. A job of the embedded recognizer is a phrase
// of at most 30 s (gateway/media/hearing.ts), so for one decoder that is at
// most one 30 s phrase of each other person speaking at the same time.

type Job = { run: () => Promise<unknown>; resolve: (v: unknown) => void; reject: (e: unknown) => void };

export class FairQueue {
  /** Each key's waiting jobs; the Map's order is the turn (a key served goes to the end). */
  private readonly lines = new Map<string, Job[]>();
  private readonly running = new Set<string>();
  private readonly counts = new Map<string, number>();
  /** Jobs of one key that may wait or run at once; more are refused (the caller answers 429). */
  readonly maxWaiting: number;
  /** Jobs handed to the engine at once, whoever's. */
  readonly concurrency: number;

  constructor(o: { maxWaiting?: number; concurrency?: number } = {}) {
    this.maxWaiting = o.maxWaiting ?? Infinity;
    this.concurrency = Math.max(1, o.concurrency ?? Infinity);
  }

  /** Jobs of `key` running or waiting now. */
  pending(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Runs `job` in `key`'s turn; null when `key` already has maxWaiting jobs. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> | null {
    const n = this.pending(key);
    if (n >= this.maxWaiting) return null;
    this.counts.set(key, n + 1);
    return new Promise<T>((resolve, reject) => {
      let line = this.lines.get(key);
      if (!line) this.lines.set(key, (line = []));
      line.push({ run: job, resolve: resolve as (v: unknown) => void, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running.size < this.concurrency) {
      let next: string | undefined;
      for (const [key, line] of this.lines) if (line.length > 0 && !this.running.has(key)) { next = key; break; }
      if (next === undefined) return;
      const key = next;
      const line = this.lines.get(key)!;
      const job = line.shift()!;
      // Served: to the end of the turn.
      this.lines.delete(key);
      if (line.length > 0) this.lines.set(key, line);
      this.running.add(key);
      void Promise.resolve().then(job.run).then(job.resolve, job.reject).finally(() => {
        this.running.delete(key);
        const left = this.pending(key) - 1;
        if (left <= 0) this.counts.delete(key); else this.counts.set(key, left);
        if (left > 0 && !this.lines.has(key)) this.lines.set(key, []);
        this.pump();
      });
    }
  }
}

const queues = new WeakMap<object, FairQueue>();

/**
 * The one FairQueue of a recognizer (or synthesizer) in this process. Its concurrency is the
 * number of decoders of the embedded engine it runs, when it says (PocketSphinx's `size`);
 * a provider over HTTP takes jobs side by side without a fixed number: no limit then, only
 * one job per person.
 */
export function fairQueueOf(engine: object): FairQueue {
  let q = queues.get(engine);
  if (!q) {
    const engines = (engine as { engines?: readonly object[] }).engines ?? [engine];
    const sizes = engines.map((e) => (e as { size?: unknown }).size).filter((n): n is number => typeof n === 'number');
    queues.set(engine, (q = new FairQueue({ concurrency: sizes.length > 0 ? sizes.reduce((a, b) => a + b, 0) : Infinity })));
  }
  return q;
}
