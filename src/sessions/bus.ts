import pg from 'pg';

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
  private listener: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly url: string;

  constructor(url: string) {
    this.url = url;
  }

  get listening(): boolean {
    return this.listener !== null;
  }

  /** Number of requests waiting in this process (for the benchmark). */
  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  async start(): Promise<void> {
    await this.connect().catch(() => this.scheduleReconnect());
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    const down = () => {
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      this.wakeAll(); // they re-check the database, then wait on the fallback timer
      this.scheduleReconnect();
    };
    client.on('error', down);
    client.on('end', () => { if (this.listener === client) down(); });
    client.on('notification', (msg) => {
      if (msg.payload) this.wake(msg.payload);
    });
    await client.connect();
    await client.query(`LISTEN ${SESSION_CHANNEL}`);
    if (this.closed) { await client.end(); return; }
    this.listener = client;
    this.wakeAll(); // anything sent while we were not listening
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, 1000);
    this.retry.unref();
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
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.wakeAll();
    await this.listener?.end().catch(() => {});
    this.listener = null;
  }
}
