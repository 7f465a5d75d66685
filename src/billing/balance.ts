import type { Queryable } from '../db/pool.ts';
import type { Credential } from '../credentials.ts';
import { round3 } from './usage.ts';

/** Below this many minutes a balance is reported as low (our choice). */
export const LOW_BALANCE_MINUTES = 30;

/**
 * The organization's balance (GET /v1/balance). Live usage debits it
 * (ledger.ts); test mode charges nothing and reports the organization's
 * balance with source `test`.
 */
export async function balance(db: Queryable, cred: Credential) {
  const { rows } = await db.query(`SELECT balance_seconds FROM organizations WHERE id = $1`, [cred.orgId]);
  const seconds = Math.max(0, Math.floor(Number(rows[0]?.balance_seconds ?? 0)));
  const minutes = round3(seconds / 60);
  return {
    minutes_left: minutes,
    seconds_left: seconds,
    low: minutes < LOW_BALANCE_MINUTES,
    source: cred.livemode ? ('organization' as const) : ('test' as const),
    livemode: cred.livemode,
  };
}
