import type { Client, Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import type { Credential } from '../credentials.ts';
import { micro, spentSeconds } from './usage.ts';

// Spending limits (api.md section 5: per day, per month, per call) and the
// live balance, with one rule for all of them:
//
//   an action is refused when the usage, with the action's own cost, would
//   pass the limit; every action counts as costing at least a microsecond,
//   so once a limit is reached exactly, everything metered is refused.
//
// So a say that brings the day to exactly its limit passes and the next one
// is refused, and reading events (whose listening was already charged as the
// phrases arrived, so its own cost is 0) is refused once the usage has
// reached the limit. Amounts are compared in whole microseconds, so minutes
// such as 0.05 (3 s) compare exactly.

/** Whether spending `costSeconds` more, on top of `usedSeconds`, is refused by a limit of `limitSeconds`. */
export function exceeds(limitSeconds: number, usedSeconds: number, costSeconds: number): boolean {
  return micro(usedSeconds) + Math.max(1, micro(costSeconds)) > micro(limitSeconds);
}

export type SpendCheck = {
  cred: Credential;
  /** What the action costs now, in seconds (0 for reading already-charged events). */
  seconds: number;
  /** Seconds already billed to the call or session the action belongs to (its per-call limit). */
  callSeconds?: number;
};

function spendLimit(what: string): ApiError {
  return new ApiError('spend_limit_reached', `This would exceed ${what}`);
}

/** The first limit the check breaks, as the 402 to answer, else null. */
function breaks(c: SpendCheck, spent: { today: number; month: number }, balanceSeconds: number | null): ApiError | null {
  const { cred } = c;
  const over = (limitMinutes: number | null, used: number) => limitMinutes !== null && exceeds(limitMinutes * 60, used, c.seconds);
  if (over(cred.spendDayMinutes, spent.today)) return spendLimit(`the daily limit of ${cred.spendDayMinutes} minutes`);
  if (over(cred.spendMonthMinutes, spent.month)) return spendLimit(`the monthly limit of ${cred.spendMonthMinutes} minutes`);
  if (over(cred.perCallMinutes, c.callSeconds ?? 0)) return spendLimit(`the per-call limit of ${cred.perCallMinutes} minutes`);
  if (balanceSeconds !== null && exceeds(balanceSeconds, 0, c.seconds)) return spendLimit('the minutes left on the balance');
  return null;
}

const limited = (c: Credential) => c.spendDayMinutes !== null || c.spendMonthMinutes !== null || c.perCallMinutes !== null;

/**
 * The 402 each check breaks (same order as `checks`; null = allowed), in at
 * most two queries whatever their number (none when no key has a limit and
 * none is live): the keys' spending, then the live balances. Test keys have
 * no balance to check.
 */
export async function spendVerdicts(db: Queryable, checks: SpendCheck[], at = new Date()): Promise<Array<ApiError | null>> {
  const keyIds = [...new Set(checks.filter((c) => limited(c.cred)).map((c) => c.cred.id))];
  const spent = keyIds.length > 0 ? await spentSeconds(db, keyIds, at) : new Map();
  const orgIds = [...new Set(checks.filter((c) => c.cred.livemode).map((c) => c.cred.orgId))];
  const balances = new Map<string, number>();
  if (orgIds.length > 0) {
    const { rows } = await db.query<{ id: string; balance_seconds: number }>(prepared(
      `SELECT id, balance_seconds FROM organizations WHERE id = ANY($1)`,
      [orgIds],
    ));
    for (const r of rows) balances.set(r.id, Number(r.balance_seconds));
  }
  return checks.map((c) =>
    breaks(c, spent.get(c.cred.id) ?? { today: 0, month: 0 }, c.cred.livemode ? (balances.get(c.cred.orgId) ?? 0) : null),
  );
}

/**
 * Serializes the spending of one key for the rest of tx, so two requests
 * cannot both pass a limit; a live key's spending also takes its
 * organization's (after the key's), since every live key of it spends one
 * balance. Take it first in the transaction, before any row lock, so every
 * spender of a key locks in the same order.
 */
export async function lockSpending(tx: Client, cred: Credential): Promise<void> {
  await tx.query(prepared(`SELECT pg_advisory_xact_lock(hashtext('spend:' || $1::text))`, [cred.id]));
  if (cred.livemode) await tx.query(prepared(`SELECT pg_advisory_xact_lock(hashtext('spend-org:' || $1::text))`, [cred.orgId]));
}

/**
 * Throws 402 spend_limit_reached if the spend breaks a limit of the key (day,
 * month, per call) or, for a live key, the organization's balance. Call it
 * under lockSpending, then record the spend in the same transaction.
 */
export async function assertCanSpend(tx: Client, check: SpendCheck, at = new Date()): Promise<void> {
  const [refused] = await spendVerdicts(tx, [check], at);
  if (refused) throw refused;
}

/**
 * How many seconds the key may still spend now (its day and month limits, and
 * for a live key its organization's balance), null when nothing limits it.
 * A live call is ended when it reaches this (with its per-call limit), so a
 * call never runs the balance below zero on its own.
 */
export async function spendableSeconds(db: Queryable, cred: Credential, at = new Date()): Promise<number | null> {
  const left: number[] = [];
  if (cred.spendDayMinutes !== null || cred.spendMonthMinutes !== null) {
    const spent = (await spentSeconds(db, [cred.id], at)).get(cred.id) ?? { today: 0, month: 0 };
    if (cred.spendDayMinutes !== null) left.push(cred.spendDayMinutes * 60 - spent.today);
    if (cred.spendMonthMinutes !== null) left.push(cred.spendMonthMinutes * 60 - spent.month);
  }
  if (cred.livemode) {
    const { rows } = await db.query<{ balance_seconds: number }>(prepared(`SELECT balance_seconds FROM organizations WHERE id = $1`, [cred.orgId]));
    left.push(Number(rows[0]?.balance_seconds ?? 0));
  }
  return left.length === 0 ? null : Math.max(0, Math.min(...left));
}
