import { PgListener } from '../db/listener.ts';

// Wakes long-polling listeners (GET /v1/sessions/{id}/events) the moment a
// room's sessions get events, in whichever process they were produced: writers
// send NOTIFY SESSION_CHANNEL with the room id in their transaction, every
// process LISTENs on one connection and wakes its local waiters of that room.
// The waiters themselves are only the open requests of this process (safe to
// lose: the client simply polls again). While the listening connection is
// down, waiters re-check the database every FALLBACK_MS instead.

export const SESSION_CHANNEL = 'tolk_session_events';
const FALLBACK_MS = 500;

export class SessionBus {
  private waiters = new Map<string, Set<() => void>>();
  private readonly listener: PgListener;

  constructor(url: string) {
    this.listener = new PgListener(url, SESSION_CHANNEL, {
      onNotify: (key) => { if (key) this.wake(key); },
      // Anything sent while we were not listening: everyone re-checks the database.
      onUp: () => this.wakeAll(),
      // Waiters re-check now, then wait on the fallback timer until we are back.
      onDown: () => this.wakeAll(),
    });
  }

  get listening(): boolean {
    return this.listener.up;
  }

  /** Number of requests waiting in this process (for the benchmark). */
  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  async start(): Promise<void> {
    await this.listener.start();
  }

  private wake(key: string): void {
    const set = this.waiters.get(key);
    if (!set) return;
    this.waiters.delete(key);
    for (const fn of set) fn();
  }

  private wakeAll(): void {
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const set of all) for (const fn of set) fn();
  }

  /**
   * Resolves at the next notification for key (a room id), after ms, or when the
   * request goes away (signal), whichever comes first. Register before
   * reading the database, so an event committed in between is not missed.
   */
  waitFor(key: string, ms: number, signal?: AbortSignal): { promise: Promise<void>; cancel: () => void } {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => { done = resolve; });
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    const limit = this.listening ? ms : Math.min(ms, FALLBACK_MS);
    const finish = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', finish);
      const s = this.waiters.get(key);
      if (s) {
        s.delete(finish);
        if (s.size === 0) this.waiters.delete(key);
      }
      done();
    };
    const timer = setTimeout(finish, limit);
    set.add(finish);
    signal?.addEventListener('abort', finish, { once: true });
    return { promise, cancel: finish };
  }

  async close(): Promise<void> {
    await this.listener.close();
    this.wakeAll();
  }
}
