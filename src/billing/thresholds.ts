import type { Client } from '../db/pool.ts';
import { writeEvent } from '../actors/store.ts';
import { micro, periodStarts, round3, spentSeconds, type UsageEntry } from './usage.ts';

// Crossing 80% or 100% of a key's daily or monthly limit emits usage.threshold
// (api.md section 6) once per key, period and threshold: the row in
// usage_thresholds_sent is the "once", so two spends racing across the same
// threshold emit one event. Per-call limits have no period and send none.

export const THRESHOLDS = [80, 100] as const;

/** SQL: the api_keys row aliased `k` has a daily or monthly limit (only those send usage.threshold). */
export function hasPeriodLimit(k: string): string {
  return `(${k}.spend_day_minutes IS NOT NULL OR ${k}.spend_month_minutes IS NOT NULL)`;
}

export type ThresholdReached = { period: 'day' | 'month'; threshold: number; limitMinutes: number; spentMinutes: number };

/** Emits usage.threshold for every threshold of the keys' limits that their spending has reached and that was not sent yet. */
export async function checkUsageThresholds(
  tx: Client,
  entries: Array<Pick<UsageEntry, 'orgId' | 'credentialId' | 'livemode'>>,
  at: Date,
): Promise<ThresholdReached[]> {
  const ids = [...new Set(entries.map((e) => e.credentialId))];
  const { rows: limited } = await tx.query<{ id: string; spend_day_minutes: number | null; spend_month_minutes: number | null }>(
    `SELECT id, spend_day_minutes, spend_month_minutes FROM api_keys
      WHERE id = ANY($1) AND ${hasPeriodLimit('api_keys')} ORDER BY id`,
    [ids],
  );
  if (limited.length === 0) return [];
  const spent = await spentSeconds(tx, limited.map((k) => k.id), at);
  const { day, month } = periodStarts(at);
  const reached: ThresholdReached[] = [];
  for (const key of limited) {
    const e = entries.find((x) => x.credentialId === key.id)!;
    const s = spent.get(key.id) ?? { today: 0, month: 0 };
    const periods = [
      { period: 'day' as const, limit: key.spend_day_minutes, seconds: s.today, start: day.toISOString().slice(0, 10) },
      { period: 'month' as const, limit: key.spend_month_minutes, seconds: s.month, start: month.toISOString().slice(0, 10) },
    ];
    for (const p of periods) {
      if (p.limit === null || p.limit <= 0) continue;
      const spent = round3(p.seconds / 60);
      for (const threshold of THRESHOLDS) {
        // In whole microseconds, unrounded, as limits.ts compares: 100% is sent exactly when spending stops.
        if (micro(p.seconds) * 100 < micro(p.limit * 60) * threshold) continue;
        const ins = await tx.query(
          `INSERT INTO usage_thresholds_sent (credential_id, period, period_start, threshold) VALUES ($1, $2, $3, $4)
           ON CONFLICT DO NOTHING`,
          [key.id, p.period, p.start, threshold],
        );
        if (ins.rowCount !== 1) continue;
        const object = {
          id: key.id,
          object: 'usage_threshold',
          credential_id: key.id,
          period: p.period,
          period_start: p.start,
          threshold_percent: threshold,
          limit_minutes: p.limit,
          spent_minutes: spent,
        };
        await writeEvent(tx, { orgId: e.orgId, livemode: e.livemode }, 'usage.threshold', object);
        reached.push({ period: p.period, threshold, limitMinutes: p.limit, spentMinutes: spent });
      }
    }
  }
  return reached;
}
