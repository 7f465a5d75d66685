import pg from 'pg';

type Handlers = { onNotify: (payload: string) => void; onUp?: () => void; onDown?: () => void };

/**
 * A channel LISTENed on, with what to do on a notification, once listening
 * (again), and when the connection is lost. `onUp` runs once listening
 * (again): whatever was sent while down was missed, so callers re-check
 * there; `onDown` runs when the connection is lost, so callers stop trusting
 * what they cached.
 *
 * Every PgListener of a process on one database shares one connection
 * (Hub below), LISTENing on each of their channels, reconnecting every
 * second while it is down. PostgreSQL wakes every backend that LISTENs in a
 * database on each committed NOTIFY, whatever the channel: one listening
 * connection per process instead of one per channel spares the database
 * that many wake-ups per notification (the call path sends several per call).
 */
export class PgListener {
  private hub: Hub | null = null;
  private readonly url: string;
  readonly channel: string;
  readonly handlers: Handlers;

  constructor(url: string, channel: string, handlers: Handlers) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`PgListener: not a channel name: ${channel}`);
    this.url = url;
    this.channel = channel;
    this.handlers = handlers;
  }

  get up(): boolean {
    return this.hub?.listening(this) ?? false;
  }

  /** Resolves once the first attempt to listen is over (listening or retrying). */
  async start(): Promise<void> {
    if (this.hub) return;
    this.hub = Hub.of(this.url);
    await this.hub.add(this);
  }

  async close(): Promise<void> {
    const hub = this.hub;
    this.hub = null;
    if (hub) await hub.remove(this);
  }
}

/** One connection LISTENing for every PgListener of this process on a database. */
class Hub {
  private static readonly hubs = new Map<string, Hub>();

  static of(url: string): Hub {
    let h = Hub.hubs.get(url);
    if (!h) {
      h = new Hub(url);
      Hub.hubs.set(url, h);
    }
    return h;
  }

  private readonly url: string;
  private readonly subs = new Set<PgListener>();
  /** The subscribers that heard LISTEN succeed on the current connection. */
  private readonly live = new Set<PgListener>();
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | null = null;

  private constructor(url: string) {
    this.url = url;
  }

  listening(l: PgListener): boolean {
    return this.client !== null && this.live.has(l);
  }

  async add(l: PgListener): Promise<void> {
    this.subs.add(l);
    if (this.client) {
      // Already connected: LISTEN on its channel (a no-op when another listens on it), then it is up.
      try {
        await this.client.query(`LISTEN ${l.channel}`);
        if (!this.subs.has(l)) return;
        this.live.add(l);
        l.handlers.onUp?.();
      } catch {
        // The connection is failing: its 'error' handler reconnects, and onUp follows then.
      }
      return;
    }
    if (this.connecting) {
      // Opened with the channels wanted before this one: LISTEN on it too once open.
      await this.connecting.catch(() => {});
      if (this.client && this.subs.has(l) && !this.live.has(l)) await this.add(l);
      return;
    }
    if (this.retry) return;
    await this.connectNow();
  }

  async remove(l: PgListener): Promise<void> {
    this.subs.delete(l);
    this.live.delete(l);
    if (this.subs.size > 0) {
      // Stop listening on a channel nobody of this process wants any more.
      if (this.client && ![...this.subs].some((s) => s.channel === l.channel)) {
        await this.client.query(`UNLISTEN ${l.channel}`).catch(() => {});
      }
      return;
    }
    Hub.hubs.delete(this.url);
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    await this.connecting?.catch(() => {});
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => {});
  }

  private async connectNow(): Promise<void> {
    this.connecting = this.connect().finally(() => { this.connecting = null; });
    await this.connecting.catch(() => this.scheduleReconnect());
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    const down = () => {
      const wasUp = this.client === client;
      if (wasUp) {
        this.client = null;
        const heard = [...this.live];
        this.live.clear();
        for (const l of heard) l.handlers.onDown?.();
      }
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', down);
    client.on('end', () => { if (this.client === client) down(); });
    client.on('notification', (msg) => {
      for (const l of this.subs) if (l.channel === msg.channel && this.live.has(l)) l.handlers.onNotify(msg.payload ?? '');
    });
    await client.connect();
    const channels = [...new Set([...this.subs].map((l) => l.channel))];
    if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${c}`).join('; '));
    if (this.subs.size === 0) {
      await client.end();
      return;
    }
    this.client = client;
    const joined = [...this.subs].filter((l) => channels.includes(l.channel));
    for (const l of joined) this.live.add(l);
    for (const l of joined) l.handlers.onUp?.();
  }

  private scheduleReconnect(): void {
    if (this.subs.size === 0 || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.connectNow();
    }, 1000);
    this.retry.unref();
  }
}
