import type { Pool } from '../db/pool.ts';

// Request and error counts per credential and day, for GET /v1/usage.
// Increments are summed in memory and written once a second (and on close) in
// one upsert, to keep a write off every request. A process killed hard loses
// at most the last second of counts: statistics, never budget (the rate
// limiter's counters are written before a request is served).

type Row = { orgId: string; livemode: boolean; day: string; requests: number; errors: number };

export class RequestStats {
  private pending = new Map<string, Row>();
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly pool: Pool;
  private readonly now: () => number;

  constructor(pool: Pool, now: () => number = Date.now) {
    this.pool = pool;
    this.now = now;
    this.timer = setInterval(() => void this.flush().catch(() => {}), 1000);
    this.timer.unref();
  }

  // The UTC day of the last record, recomputed when the clock leaves it (not a Date per request).
  private dayStart = 0;
  private dayEnd = 0;
  private dayName = '';

  private today(): string {
    const t = this.now();
    if (t < this.dayStart || t >= this.dayEnd) {
      this.dayStart = t - (t % 86_400_000);
      this.dayEnd = this.dayStart + 86_400_000;
      this.dayName = new Date(this.dayStart).toISOString().slice(0, 10);
    }
    return this.dayName;
  }

  record(credentialId: string, orgId: string, livemode: boolean, error: boolean): void {
    const day = this.today();
    const k = `${credentialId}|${day}`;
    let r = this.pending.get(k);
    if (!r) {
      r = { orgId, livemode, day, requests: 0, errors: 0 };
      this.pending.set(k, r);
    }
    r.requests++;
    if (error) r.errors++;
  }

  /** Writes what is pending; concurrent callers wait for the same write. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (const [k, r] of batch) {
      const credentialId = k.split('|')[0];
      const b = values.length;
      values.push(credentialId, r.orgId, r.livemode, r.day, r.requests, r.errors);
      tuples.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}::date, $${b + 5}::int, $${b + 6}::int)`);
    }
    try {
      await this.pool.query(
        `INSERT INTO request_counts (credential_id, org_id, livemode, day, requests, errors) VALUES ${tuples.join(', ')}
         ON CONFLICT (credential_id, day) DO UPDATE
         SET requests = request_counts.requests + EXCLUDED.requests, errors = request_counts.errors + EXCLUDED.errors`,
        values,
      );
    } catch (err) {
      // Put the counts back so the next flush retries them.
      for (const [k, r] of batch) {
        const cur = this.pending.get(k);
        if (cur) { cur.requests += r.requests; cur.errors += r.errors; } else this.pending.set(k, r);
      }
      throw err;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush().catch(() => {});
  }
}
