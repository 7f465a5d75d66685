import type { Client } from '../db/pool.ts';
import { Writes } from '../db/writes.ts';
import { checkUsageThresholds, hasPeriodLimit, type ThresholdReached } from './thresholds.ts';
import { micro, type UsageEntry } from './usage.ts';

// The usage ledger: everything that costs minutes writes its rows here, in the
// transaction of the work it pays for, and nothing else writes them. A live
// key's usage also debits the organization's balance by the same seconds; a
// test key's usage moves no balance but counts against the key's own limits
// (so 402 can be exercised in test mode). Crossing a threshold of a key's
// daily or monthly limit emits usage.threshold (thresholds.ts).

/**
 * Writes the entries (one statement), debits live balances, and emits the
 * usage.threshold events the spending crossed. `at` is the service clock's
 * time, so the rows fall in the periods the limits are checked against.
 */
export async function recordUsage(tx: Client, entries: UsageEntry | UsageEntry[], at = new Date()): Promise<ThresholdReached[]> {
  const w = new Writes();
  const planned = planUsage(w, entries, at);
  if (!planned) return [];
  return afterUsage(tx, planned, await w.run(tx), at);
}

export type PlannedUsage = { list: UsageEntry[]; limited: string };

/**
 * recordUsage's writes as parts of w: the ledger rows, the live balances, and
 * an output telling whether any of the keys has a daily or monthly limit
 * (then afterUsage, once w has run, emits the thresholds crossed). null when
 * there is nothing to write.
 */
export function planUsage(w: Writes, entries: UsageEntry | UsageEntry[], at: Date): PlannedUsage | null {
  // Amounts are kept to the microsecond, so the ledger holds 0.3, not 0.30000000000000004.
  const list = (Array.isArray(entries) ? entries : [entries])
    .map((e) => ({ ...e, seconds: micro(e.seconds) / 1e6 }))
    .filter((e) => e.seconds > 0);
  if (list.length === 0) return null;
  w.with(w.name('ledger'), `INSERT INTO usage_ledger (org_id, credential_id, livemode, kind, seconds, ref, created_at)
     SELECT org_id, credential_id, livemode, kind, seconds, ref, ${w.p(at)}::timestamptz
       FROM unnest(${w.p(list.map((e) => e.orgId))}::text[], ${w.p(list.map((e) => e.credentialId))}::text[],
                   ${w.p(list.map((e) => e.livemode))}::boolean[], ${w.p(list.map((e) => e.kind))}::text[],
                   ${w.p(list.map((e) => e.seconds))}::numeric[], ${w.p(list.map((e) => e.ref ?? null))}::text[])
            AS e(org_id, credential_id, livemode, kind, seconds, ref)`);
  const live = list.filter((e) => e.livemode);
  if (live.length > 0) {
    // Summed in SQL (numeric, exact): the balance moves by exactly what the ledger rows say.
    w.with(w.name('balance'), `UPDATE organizations o SET balance_seconds = o.balance_seconds - d.seconds
         FROM (SELECT id, sum(seconds) AS seconds FROM unnest(${w.p(live.map((e) => e.orgId))}::text[], ${w.p(live.map((e) => e.seconds))}::numeric[])
               AS e(id, seconds) GROUP BY id) d
        WHERE o.id = d.id`);
  }
  const limited = w.out(`EXISTS (SELECT 1 FROM api_keys WHERE id = ANY(${w.p([...new Set(list.map((e) => e.credentialId))])}::text[])
     AND ${hasPeriodLimit('api_keys')})`, 'limited');
  return { list, limited };
}

/** After planUsage's statement ran (its outputs): the usage.threshold events, when a key has a limit. */
export async function afterUsage(tx: Client, planned: PlannedUsage, outputs: Record<string, unknown>, at: Date): Promise<ThresholdReached[]> {
  return outputs[planned.limited] === true ? checkUsageThresholds(tx, planned.list, at) : [];
}
