import { isDatabaseDown, withTx, type Client } from '../db/pool.ts';
import type { Services } from '../services.ts';

// What the gateway learns about a call while PostgreSQL is away (answered,
// hung up, a digit, a phrase heard) is kept and written once it is back: each
// write is tried again, with backoff, for as long as the database cannot be
// reached. Any other error (a refused transition, a bug) is not retried.

/** The first wait after a failed write, and the longest: the database is tried at least every 5 s. */
export const FIRST_WAIT_MS = 100;
export const LONGEST_WAIT_MS = 5_000;

/**
 * Wakes the writes waiting for the database as soon as something in the
 * process sees it back (the gateway's heartbeat, the LISTEN connection), so a
 * call's events are written within moments of its return, not at the next
 * backoff step.
 */
export class DatabaseBack {
  private waiters = new Set<() => void>();
  /** The database answered again. */
  back(): void {
    const w = [...this.waiters];
    this.waiters.clear();
    for (const f of w) f();
  }
  /** Waits ms, or until back() or the signal, whichever comes first. */
  wait(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}

export type Retrying = {
  /** The first failure: the write waits for the database. */
  waiting?: (err: unknown) => void;
  /** Written after waiting waitedMs. */
  written?: (waitedMs: number) => void;
  /** Aborted: the next failure is thrown (the process is stopping). */
  signal?: AbortSignal;
};

/** Runs write until it succeeds or fails for a reason other than the database being away. */
export async function whenDatabaseBack<T>(write: () => Promise<T>, back: DatabaseBack, o: Retrying = {}): Promise<T> {
  let waitMs = FIRST_WAIT_MS;
  let since: number | null = null;
  for (;;) {
    try {
      const out = await write();
      if (since !== null) o.written?.(Date.now() - since);
      return out;
    } catch (err) {
      if (!isDatabaseDown(err) || o.signal?.aborted) throw err;
      if (since === null) {
        since = Date.now();
        o.waiting?.(err);
      }
      await back.wait(waitMs, o.signal);
      waitMs = Math.min(LONGEST_WAIT_MS, waitMs * 2);
    }
  }
}

/** What a call's line needs to write what happens on it (call-line.ts LineDeps). */
export type LineWriter = {
  s: Services;
  back: DatabaseBack;
  signal: AbortSignal;
  log: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void };
};

/** One transaction of a call's line (a phrase heard, a say's progress, speech activity), tried again while the database is away, logged as `what`. */
export function writeOnLine<T>(d: LineWriter, callId: string, what: string, w: (tx: Client) => Promise<T>): Promise<T> {
  return whenDatabaseBack(() => withTx(d.s.pool, w), d.back, {
    signal: d.signal,
    waiting: () => d.log.warn({ callId, what }, 'the database is away: what happened on the line waits to be written'),
    written: (waitedMs) => d.log.info({ callId, what, waitedMs }, 'what happened on the line was written once the database came back'),
  });
}
