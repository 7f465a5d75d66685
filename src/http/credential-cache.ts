import { PgListener } from '../db/listener.ts';
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
  private readonly pool: Pool;
  private readonly listener: PgListener;

  constructor(pool: Pool, url: string) {
    this.pool = pool;
    // Any change drops the whole cache; so does (re)connecting or losing the
    // connection, since notifications may have been missed meanwhile.
    this.listener = new PgListener(url, CREDENTIALS_CHANNEL, {
      onNotify: () => this.clear(),
      onUp: () => this.clear(),
      onDown: () => this.clear(),
    });
  }

  private get listening(): boolean {
    return this.listener.up;
  }

  async start(): Promise<void> {
    await this.listener.start();
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
    await this.listener.close();
  }
}
