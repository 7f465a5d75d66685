import pg from 'pg';

/**
 * One dedicated connection LISTENing on a channel, reconnecting every second
 * while it is down. `onUp` runs once listening (again): whatever was sent
 * while down was missed, so callers re-check there; `onDown` runs when the
 * connection is lost, so callers stop trusting what they cached.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly url: string;
  private readonly channel: string;
  private readonly handlers: { onNotify: (payload: string) => void; onUp?: () => void; onDown?: () => void };

  constructor(url: string, channel: string, handlers: PgListener['handlers']) {
    this.url = url;
    this.channel = channel;
    this.handlers = handlers;
  }

  get up(): boolean {
    return this.client !== null;
  }

  /** Resolves once the first attempt to listen is over (listening or retrying). */
  async start(): Promise<void> {
    await this.connect().catch(() => this.scheduleReconnect());
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    const down = () => {
      const wasUp = this.client === client;
      if (wasUp) this.client = null;
      client.end().catch(() => {});
      if (wasUp) this.handlers.onDown?.();
      this.scheduleReconnect();
    };
    client.on('error', down);
    client.on('end', () => { if (this.client === client) down(); });
    client.on('notification', (msg) => this.handlers.onNotify(msg.payload ?? ''));
    await client.connect();
    await client.query(`LISTEN ${this.channel}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
    this.handlers.onUp?.();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, 1000);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => {});
  }
}
