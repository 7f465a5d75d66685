import type { Client, Pool } from '../db/pool.ts';

// Which process speaks a room's interpretation channel in one language, where
// several processes share the room's Janus (TOLK_MEDIA_SERVER=janus=ws://...):
// every process with a listener of the channel follows the room, and only the
// one holding the channel's lease synthesizes and sends, so the mountpoint gets
// one stream, not one per process. A lease is a session-level PostgreSQL
// advisory lock, taken on one connection this process keeps while it holds
// any: a process that dies (or loses its connection) loses its leases with it,
// and another with listeners of the channel takes the lease on its next try
// (RoomInterpreter tries every LEASE_RETRY_MS).
//
// Where the service runs its own Janus, its rooms are its own: every process
// speaks its own channels and takes no lease.

export const LEASE_RETRY_MS = 2000;

export class ChannelLeases {
  private readonly pool: Pool;
  private client: Promise<Client> | null = null;
  private readonly held = new Set<string>();
  private readonly lost = new Set<() => void>();
  /** One statement at a time on the connection. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(pool: Pool) {
    this.pool = pool;
  }

  /** Called when this process's leases are lost together (its connection went). */
  onLost(f: () => void): () => void {
    this.lost.add(f);
    return () => this.lost.delete(f);
  }

  /** Takes `name`'s lease if no process holds it: whether this process holds it now. */
  take(name: string): Promise<boolean> {
    if (this.held.has(name)) return Promise.resolve(true);
    return this.run(async (c) => {
      const { rows } = await c.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok`, [lockName(name)]);
      if (rows[0]!.ok) this.held.add(name);
      return rows[0]!.ok;
    });
  }

  /** Gives `name`'s lease back (this process has no listener of it left). */
  async give(name: string): Promise<void> {
    if (!this.held.delete(name)) return;
    await this.run(async (c) => {
      await c.query(`SELECT pg_advisory_unlock(hashtextextended($1, 0))`, [lockName(name)]);
      // Nothing held: the connection goes back to the pool.
      if (this.held.size === 0 && this.client) {
        this.client = null;
        c.release();
      }
    }).catch(() => {});
  }

  holds(name: string): boolean {
    return this.held.has(name);
  }

  private run<T>(f: (c: Client) => Promise<T>): Promise<T> {
    const next = this.turn.then(async () => f(await this.connection()));
    this.turn = next.catch(() => {});
    return next;
  }

  private connection(): Promise<Client> {
    if (!this.client) {
      const p = this.pool.connect().then((c) => {
        c.on('error', () => this.drop(p, c, true));
        return c;
      });
      p.catch(() => { if (this.client === p) this.client = null; });
      this.client = p;
    }
    return this.client;
  }

  /** The connection is gone: so are the leases it held. */
  private drop(p: Promise<Client>, c: Client, broken: boolean): void {
    if (this.client !== p) return;
    this.client = null;
    c.release(broken);
    if (this.held.size === 0) return;
    this.held.clear();
    for (const f of this.lost) f();
  }
}

/** Advisory locks are shared by everything on the database: the name says whose it is. */
function lockName(name: string): string {
  return `tolk.interpretation:${name}`;
}
