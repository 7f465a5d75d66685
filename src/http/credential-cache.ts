import pg from 'pg';
import type { Pool } from '../db/pool.ts';
import { CREDENTIALS_CHANNEL, findCredentialByHash, type Credential } from '../credentials.ts';

/**
 * In-process cache of credentials by secret hash, safe to lose.
 *
 * Every process LISTENs on CREDENTIALS_CHANNEL; whoever changes a key or an
 * organization (the CLI, another server) sends NOTIFY in the same transaction,
 * and each process drops its whole cache when the notification arrives. While
 * the listening connection is down the cache is bypassed, so a revoked key
 * can never be served from a stale entry for longer than a notification's
 * delivery; entries also expire after TTL_MS as a last resort.
 */
const TTL_MS = 60_000;

export class CredentialCache {
  private entries = new Map<string, { cred: Credential; at: number }>();
  // Bumped on every invalidation, so a lookup that raced a NOTIFY is not cached.
  private generation = 0;
  private listener: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly pool: Pool;
  private readonly url: string;

  constructor(pool: Pool, url: string) {
    this.pool = pool;
    this.url = url;
  }

  async start(): Promise<void> {
    await this.connect().catch(() => this.scheduleReconnect());
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    const down = () => {
      this.listening = false;
      this.clear();
      if (this.listener === client) this.listener = null;
      client.end().catch(() => {});
      this.scheduleReconnect();
    };
    client.on('error', down);
    client.on('end', () => { if (this.listener === client) down(); });
    client.on('notification', () => this.clear());
    await client.connect();
    await client.query(`LISTEN ${CREDENTIALS_CHANNEL}`);
    if (this.closed) { await client.end(); return; }
    this.listener = client;
    this.clear();
    this.listening = true;
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connect().catch(() => this.scheduleReconnect());
    }, 1000);
    this.retry.unref();
  }

  async get(hash: Buffer): Promise<Credential | null> {
    const k = hash.toString('hex');
    const now = Date.now();
    if (this.listening) {
      const hit = this.entries.get(k);
      if (hit && now - hit.at < TTL_MS) return hit.cred;
    }
    const gen = this.generation;
    const cred = await findCredentialByHash(this.pool, hash);
    if (cred && this.listening && gen === this.generation) {
      if (this.entries.size > 50_000) this.entries.clear();
      this.entries.set(k, { cred, at: now });
    }
    return cred;
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.listening = false;
    const l = this.listener;
    this.listener = null;
    if (l) await l.end().catch(() => {});
  }
}
