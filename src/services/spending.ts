import type { Client } from '../db/pool.ts';
import { writeEvent } from '../actors/store.ts';
import { spentMinutes } from './account.ts';

// Spending: everything that costs minutes writes one usage_ledger row through
// recordUsage, in the transaction of the work it pays for. Crossing 80% or
// 100% of a key's daily or monthly limit emits usage.threshold (api.md
// section 6) once per key, period and threshold: the row in
// usage_thresholds_sent is the "once", so two spends racing across the same
// threshold emit one event. Per-call limits have no period and send none.

export const THRESHOLDS = [80, 100] as const;

export type UsageEntry = {
  orgId: string;
  credentialId: string;
  livemode: boolean;
  kind: string;
  seconds: number;
  ref?: string | null;
};

export type ThresholdReached = { period: 'day' | 'month'; threshold: number; limitMinutes: number; spentMinutes: number };

export async function recordUsage(tx: Client, e: UsageEntry): Promise<ThresholdReached[]> {
  await tx.query(
    `INSERT INTO usage_ledger (org_id, credential_id, livemode, kind, seconds, ref) VALUES ($1, $2, $3, $4, $5, $6)`,
    [e.orgId, e.credentialId, e.livemode, e.kind, e.seconds, e.ref ?? null],
  );
  return checkUsageThresholds(tx, e);
}

/** Emits usage.threshold for every threshold of the key's limits that its spending has reached and that was not sent yet. */
export async function checkUsageThresholds(tx: Client, e: Pick<UsageEntry, 'orgId' | 'credentialId' | 'livemode'>): Promise<ThresholdReached[]> {
  const { rows } = await tx.query(`SELECT spend_day_minutes, spend_month_minutes FROM api_keys WHERE id = $1`, [e.credentialId]);
  const key = rows[0];
  if (!key || (key.spend_day_minutes === null && key.spend_month_minutes === null)) return [];
  const spent = await spentMinutes(tx, e.credentialId);
  const now = new Date();
  const periods = [
    { period: 'day' as const, limit: key.spend_day_minutes as number | null, spent: spent.today, start: now.toISOString().slice(0, 10) },
    { period: 'month' as const, limit: key.spend_month_minutes as number | null, spent: spent.month, start: `${now.toISOString().slice(0, 7)}-01` },
  ];
  const reached: ThresholdReached[] = [];
  for (const p of periods) {
    if (p.limit === null || p.limit <= 0) continue;
    for (const threshold of THRESHOLDS) {
      if (p.spent * 100 < p.limit * threshold) continue;
      const ins = await tx.query(
        `INSERT INTO usage_thresholds_sent (credential_id, period, period_start, threshold) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [e.credentialId, p.period, p.start, threshold],
      );
      if (ins.rowCount !== 1) continue;
      const object = {
        id: e.credentialId,
        object: 'usage_threshold',
        credential_id: e.credentialId,
        period: p.period,
        period_start: p.start,
        threshold_percent: threshold,
        limit_minutes: p.limit,
        spent_minutes: p.spent,
      };
      await writeEvent(tx, { orgId: e.orgId, livemode: e.livemode }, 'usage.threshold', object);
      reached.push({ period: p.period, threshold, limitMinutes: p.limit, spentMinutes: p.spent });
    }
  }
  return reached;
}
