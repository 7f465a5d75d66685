import type { Pool } from '../db/pool.ts';

// Fixed-window request limits that hold across every server process.
//
// The count of each (key, window) lives in one PostgreSQL row,
// `rate_limit_counters`, incremented with an atomic upsert, so any number of
// processes behind a load balancer share one budget. To keep a database write
// off most requests of high-limit keys, a process reserves budget in leases
// and spends them locally:
//
// - A lease is max(1, limit/1000) requests, or as many as are waiting, if more.
//   Keys with limits of 1,000 or less (the 60/min default, the 1,000/day test
//   budget) reserve only what requests really ask for, so they are exact.
// - Reservations are coalesced per key in a process: while one is in flight,
//   other requests of the key wait for it instead of reserving their own, and
//   the next reservation is sized to the requests left waiting. So concurrent
//   requests never reserve more than they spend, beyond one lease per process
//   (whose unspent rest makes a 429 come that much early elsewhere, at worst).
// - The upsert only adds to a count still below the limit, and a lease covers
//   counts (count - size, count]: only those within the limit are usable, so
//   no key is ever allowed more than its limit in total.
//
// A lease is only a reservation of budget already counted in the database, so
// losing it (a process restart) can only under-spend, never over-spend.
// RateLimit-Remaining is the limit less what the database counted when this
// process last reserved, plus this process's unspent lease: within one lease
// per other process of the truth.

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

export type WindowLimit = { kind: WindowKind; limit: number };

/** One window of one key in this process. */
type Lease = {
  start: number;
  /** Reserved in the database and not spent yet. */
  left: number;
  /** The database's count after this process's last reservation. */
  counted: number;
  /** The database count reached the limit: deny without asking again until the window turns. */
  spent: boolean;
};

/** A key's leases, and the reservation in flight for it, if any. */
type KeyState = {
  leases: Map<WindowKind, Lease>;
  inflight: Promise<void> | null;
  /** Requests of this key waiting for budget. */
  waiting: number;
};

/** Most keys with state kept in this process; past it, idle keys' state is dropped (it is only a cache of leases). */
const MAX_KEYS = 100_000;

export class RateLimiter {
  private keys = new Map<string, KeyState>();
  private readonly pool: Pool;
  private readonly now: () => number;

  constructor(pool: Pool, now: () => number = Date.now) {
    this.pool = pool;
    this.now = now;
  }

  /** Takes one request from each of the given windows; all must allow it. */
  async take(keyId: string, windows: WindowLimit[]): Promise<Verdict[]> {
    const st = this.state(keyId);
    for (;;) {
      const now = this.now();
      const leases = windows.map((w) => this.lease(st, w.kind, now));
      const denied = windows.findIndex((_, i) => leases[i]!.left <= 0 && leases[i]!.spent);
      if (denied >= 0 || leases.every((l) => l.left > 0)) {
        return windows.map((w, i) => {
          const l = leases[i]!;
          const reset = Math.max(1, Math.ceil((l.start + WINDOW_MS[w.kind] - now) / 1000));
          // A denied request spends from no window; the windows that would allow it say so.
          if (denied >= 0 && l.left <= 0) return { allowed: !l.spent, kind: w.kind, limit: w.limit, remaining: 0, reset };
          if (denied < 0) l.left--;
          return { allowed: true, kind: w.kind, limit: w.limit, remaining: this.remaining(w, l), reset };
        });
      }
      st.waiting++;
      try {
        st.inflight ??= this.reserve(keyId, st, windows, now).finally(() => { st.inflight = null; });
        await st.inflight;
      } finally {
        st.waiting--;
      }
    }
  }

  private remaining(w: WindowLimit, l: Lease): number {
    return Math.max(0, w.limit - (l.counted - l.left));
  }

  private state(keyId: string): KeyState {
    let st = this.keys.get(keyId);
    if (!st) {
      if (this.keys.size >= MAX_KEYS) {
        for (const [k, s] of this.keys) if (!s.inflight && s.waiting === 0) this.keys.delete(k);
      }
      st = { leases: new Map(), inflight: null, waiting: 0 };
      this.keys.set(keyId, st);
    }
    return st;
  }

  /** The key's lease of the window that contains now (a new window starts empty). */
  private lease(st: KeyState, kind: WindowKind, now: number): Lease {
    const start = Math.floor(now / WINDOW_MS[kind]) * WINDOW_MS[kind];
    let l = st.leases.get(kind);
    if (!l || l.start !== start) {
      l = { start, left: 0, counted: 0, spent: false };
      st.leases.set(kind, l);
    }
    return l;
  }

  /**
   * One statement reserves, for every window short of budget, as much as the
   * waiting requests need (at least the base lease), adding only to counts
   * still below the limit.
   */
  private async reserve(keyId: string, st: KeyState, windows: WindowLimit[], now: number): Promise<void> {
    const need = windows
      .map((w) => ({ w, l: this.lease(st, w.kind, now) }))
      .filter(({ l }) => !l.spent && l.left < st.waiting)
      .map(({ w, l }) => ({ ...w, lease: l, size: Math.max(1, Math.floor(w.limit / 1000), st.waiting - l.left) }));
    if (need.length === 0) return;
    const values: unknown[] = [keyId];
    const tuples: string[] = [];
    const limits: string[] = [];
    for (const n of need) {
      values.push(n.kind, new Date(n.lease.start), n.size, n.limit);
      const k = values.length - 3;
      tuples.push(`($1, $${k}, $${k + 1}::timestamptz, $${k + 2}::int)`);
      limits.push(`WHEN $${k} THEN $${k + 3}::int`);
    }
    const { rows } = await this.pool.query<{ window_kind: WindowKind; count: number }>(
      `INSERT INTO rate_limit_counters AS c (key_id, window_kind, window_start, count) VALUES ${tuples.join(', ')}
       ON CONFLICT (key_id, window_kind, window_start)
       DO UPDATE SET count = c.count + EXCLUDED.count WHERE c.count < CASE c.window_kind ${limits.join(' ')} END
       RETURNING window_kind, count`,
      values,
    );
    for (const n of need) {
      const l = n.lease;
      // The window turned while the statement ran: this reservation is for a window nobody asks for now.
      if (st.leases.get(n.kind) !== l) continue;
      const row = rows.find((r) => r.window_kind === n.kind);
      if (!row) {
        // The count had already reached the limit; nothing was added.
        l.spent = true;
        l.counted = Math.max(l.counted, n.limit);
        continue;
      }
      // This reservation covers counts (count - size, count]; only those within the limit are usable.
      const usable = Math.max(0, Math.min(n.size, n.limit - (row.count - n.size)));
      l.left += usable;
      // Counts past the limit are budget nobody can use: the window's count, as far as it is usable.
      l.counted = row.count - n.size + usable;
      if (row.count >= n.limit) l.spent = true;
    }
  }
}
