import type { Pool } from '../db/pool.ts';

// Fixed-window request limits that hold across every server process.
//
// The count of each (key, window) lives in one PostgreSQL row,
// `rate_limit_counters`, incremented with an atomic upsert, so any number of
// processes behind a load balancer share one budget. To keep a database write
// off most requests of high-limit keys, a process reserves a lease of several
// requests at once and spends it locally: the lease is max(1, limit/1000), so
// keys with limits of 1,000 or less (the 60/min default, the 1,000/day test
// budget) write on every request and are exact, and a key with a higher limit
// is never allowed more than its limit in total; at worst another process's
// unspent lease (0.1% of the limit each) makes a 429 come that much early.
// A lease is only a reservation of budget already counted in the database, so
// losing it (a process restart) can only under-spend, never over-spend.

export type WindowKind = 'minute' | 'day';

const WINDOW_MS: Record<WindowKind, number> = { minute: 60_000, day: 86_400_000 };

export type Verdict = {
  allowed: boolean;
  kind: WindowKind;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
};

type Lease = { windowStart: number; left: number; counted: number };

export class RateLimiter {
  private leases = new Map<string, Lease>();
  private readonly pool: Pool;
  private readonly now: () => number;

  constructor(pool: Pool, now: () => number = Date.now) {
    this.pool = pool;
    this.now = now;
  }

  /** Takes one request from each of the given windows; all must allow it. */
  async take(keyId: string, windows: Array<{ kind: WindowKind; limit: number }>): Promise<Verdict[]> {
    const now = this.now();
    const need: Array<{ kind: WindowKind; limit: number; start: number; size: number }> = [];
    for (const w of windows) {
      const start = Math.floor(now / WINDOW_MS[w.kind]) * WINDOW_MS[w.kind];
      const lease = this.leases.get(`${keyId}:${w.kind}`);
      // A window already spent in the database is denied without asking again.
      const spent = lease && lease.windowStart === start && lease.left <= 0 && lease.counted >= w.limit;
      if (!spent && (!lease || lease.windowStart !== start || lease.left <= 0)) {
        need.push({ ...w, start, size: Math.max(1, Math.floor(w.limit / 1000)) });
      }
    }
    if (need.length > 0) {
      const values: unknown[] = [keyId];
      const tuples = need.map((n, i) => {
        values.push(n.kind, new Date(n.start), n.size);
        return `($1, $${i * 3 + 2}, $${i * 3 + 3}, $${i * 3 + 4})`;
      });
      const { rows } = await this.pool.query(
        `INSERT INTO rate_limit_counters (key_id, window_kind, window_start, count) VALUES ${tuples.join(', ')}
         ON CONFLICT (key_id, window_kind, window_start)
         DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
         RETURNING window_kind, count`,
        values,
      );
      for (const n of need) {
        const count: number = rows.find((r) => r.window_kind === n.kind)!.count;
        // This lease covers counts (count - size, count]; only those within the limit are usable.
        const usable = Math.max(0, Math.min(n.size, n.limit - (count - n.size)));
        if (this.leases.size > 100_000) this.leases.clear();
        this.leases.set(`${keyId}:${n.kind}`, { windowStart: n.start, left: usable, counted: count });
      }
    }
    return windows.map((w) => {
      const lease = this.leases.get(`${keyId}:${w.kind}`)!;
      const reset = Math.max(1, Math.ceil((lease.windowStart + WINDOW_MS[w.kind] - now) / 1000));
      if (lease.left <= 0) return { allowed: false, kind: w.kind, limit: w.limit, remaining: 0, reset };
      lease.left--;
      const used = lease.counted - lease.left;
      return { allowed: true, kind: w.kind, limit: w.limit, remaining: Math.max(0, w.limit - used), reset };
    });
  }
}
