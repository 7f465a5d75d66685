// Fairness between people for the speech engines (recognition of room
// microphones, read-aloud synthesis). Each person (a key: a room
// participant's id) has at most one job of a kind with the engine at a time;
// their further jobs wait in their own line, not in the engine's. The engine
// therefore never holds more than one job per person, and the bound is:
// a person's job waits, before it reaches the engine, for at most one
// in-flight job of each other person (plus their own earlier ones), however
// much audio or how many phrases the others push. Without it one person's
// backlog (several sockets' phrases, many phrases read aloud at once) sat in
// the engine's first-come queue ahead of everyone else's.

export class FairQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly waiting = new Map<string, number>();
  /** Jobs of one key that may wait at once; more are refused (the caller drops or answers 429). */
  readonly maxWaiting: number;

  constructor(o: { maxWaiting?: number } = {}) {
    this.maxWaiting = o.maxWaiting ?? Infinity;
  }

  /** Jobs of `key` running or waiting now. */
  pending(key: string): number {
    return this.waiting.get(key) ?? 0;
  }

  /** Runs `job` once every earlier job of `key` has finished; null when `key` already has maxWaiting jobs. */
  run<T>(key: string, job: () => Promise<T>): Promise<T> | null {
    const n = this.pending(key);
    if (n >= this.maxWaiting) return null;
    this.waiting.set(key, n + 1);
    const prev = this.tails.get(key) ?? Promise.resolve();
    const p = prev.then(job, job);
    const tail = p.then(() => {}, () => {}).finally(() => {
      const left = this.pending(key) - 1;
      if (left <= 0) this.waiting.delete(key); else this.waiting.set(key, left);
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    this.tails.set(key, tail);
    return p;
  }
}

const queues = new WeakMap<object, FairQueue>();

/** The one FairQueue of an engine (a recognizer, a synthesizer) in this process. */
export function fairQueueOf(engine: object): FairQueue {
  let q = queues.get(engine);
  if (!q) queues.set(engine, (q = new FairQueue()));
  return q;
}
