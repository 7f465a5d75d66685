import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';

// What the ledger holds and how it is read: the entries, the spending periods,
// amounts in whole microseconds, and the seconds spent. The ledger (the only
// writer), the limits and the thresholds all read it from here.

/** Seconds as whole microseconds, the unit every amount is compared (and stored) in. */
export const micro = (seconds: number) => Math.round(seconds * 1e6);

export type UsageEntry = {
  orgId: string;
  credentialId: string;
  livemode: boolean;
  /** What was paid for: say, listen (later: call). */
  kind: string;
  seconds: number;
  ref?: string | null;
};

/** Spending periods are UTC days and months. */
export function periodStarts(at: Date): { day: Date; month: Date } {
  return {
    day: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate())),
    month: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1)),
  };
}

export type Spent = { today: number; month: number };

/** Seconds each credential spent today and this month (UTC) as of `at`, from the ledger; absent = none. */
export async function spentSeconds(db: Queryable, credentialIds: string[], at = new Date()): Promise<Map<string, Spent>> {
  const { day, month } = periodStarts(at);
  const { rows } = await db.query<{ credential_id: string; today: number; month: number }>(prepared(
    `SELECT credential_id,
            coalesce(sum(seconds) FILTER (WHERE created_at >= $2), 0) AS today,
            coalesce(sum(seconds), 0) AS month
       FROM usage_ledger WHERE credential_id = ANY($1) AND created_at >= $3
      GROUP BY credential_id`,
    [credentialIds, day, month],
  ));
  return new Map(rows.map((r) => [r.credential_id, { today: Number(r.today), month: Number(r.month) }]));
}

/** Minutes as reported: three decimals. */
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

/** Minutes one credential spent today and this month (UTC), to three decimals, as /v1/me reports them. */
export async function spentMinutes(db: Queryable, credentialId: string, at = new Date()): Promise<Spent> {
  const spent = (await spentSeconds(db, [credentialId], at)).get(credentialId) ?? { today: 0, month: 0 };
  return { today: round3(spent.today / 60), month: round3(spent.month / 60) };
}

/** Seconds of usage of an organization and environment in [from, end), by UTC day (YYYY-MM-DD) or by credential id. */
export async function usageSeconds(
  db: Queryable,
  owner: { orgId: string; livemode: boolean },
  from: Date,
  end: Date,
  groupBy: 'day' | 'credential',
): Promise<Map<string, number>> {
  const key = groupBy === 'day' ? `to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')` : 'credential_id';
  const { rows } = await db.query<{ k: string; seconds: number }>(
    `SELECT ${key} AS k, sum(seconds) AS seconds
       FROM usage_ledger WHERE org_id = $1 AND livemode = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`,
    [owner.orgId, owner.livemode, from, end],
  );
  return new Map(rows.map((r) => [r.k, Number(r.seconds)]));
}
