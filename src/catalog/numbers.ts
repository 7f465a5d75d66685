import { prepared, type Queryable } from '../db/pool.ts';
import { invalid } from '../errors.ts';
import { ID_PATTERN } from '../ids.ts';
import type { Caller, Services } from '../services.ts';

/** The service's shared caller id, used by organizations without a number of their own. */
export const SHARED_NUMBER = { id: 'num_shared', e164: '+14155550000', label: 'Shared number' } as const;

export async function listNumbers(s: Services, cred: Caller, limit: number) {
  const { rows } = await s.pool.query(
    `SELECT id, e164, label, is_default FROM phone_numbers WHERE org_id = $1 ORDER BY is_default DESC, created_at, id LIMIT $2`,
    [cred.orgId, limit],
  );
  const own = rows.map((r) => ({ id: r.id, e164: r.e164, label: r.label, status: 'active' as const, shared: false, default: r.is_default }));
  const hasDefault = own.some((n) => n.default);
  const shared = { ...SHARED_NUMBER, status: 'active' as const, shared: true, default: !hasDefault };
  return own.length < limit ? [...own, shared] : own;
}

/**
 * A call's caller id: one of the organization's numbers by id, or its default
 * (the shared number when it has none); else 400 naming `from`. The calls read
 * it through the reactions' callerNumber port (calls/place.ts, quote.ts).
 */
export async function callerNumber(db: Queryable, cred: Caller, from: string | undefined): Promise<{ id: string; e164: string }> {
  if (from === undefined || from === '') {
    const { rows } = await db.query<{ id: string; e164: string }>(prepared(
      `SELECT id, e164 FROM phone_numbers WHERE org_id = $1 AND is_default LIMIT 1`, [cred.orgId]));
    return rows[0] ?? { id: SHARED_NUMBER.id, e164: SHARED_NUMBER.e164 };
  }
  if (from === SHARED_NUMBER.id) return { id: SHARED_NUMBER.id, e164: SHARED_NUMBER.e164 };
  if (ID_PATTERN.test(from)) {
    const { rows } = await db.query<{ id: string; e164: string }>(
      `SELECT id, e164 FROM phone_numbers WHERE id = $1 AND org_id = $2`, [from, cred.orgId]);
    if (rows[0]) return rows[0];
  }
  throw invalid('from', `'${from.slice(0, 40)}' is not one of your numbers; send the id of a number GET /v1/numbers lists, or omit it for your default`);
}

/**
 * The number people dial to join the organization's rooms by phone (operator.md, Phone
 * participants: `tolk number add ... --trunk T --inbound`): its default one when that takes
 * calls, else its oldest that does; null when none does. Read by the rooms through the
 * reactions' dialInNumber port.
 */
export async function dialInNumber(db: Queryable, orgId: string): Promise<{ id: string; e164: string } | null> {
  const { rows } = await db.query<{ id: string; e164: string }>(prepared(
    `SELECT id, e164 FROM phone_numbers WHERE org_id = $1 AND inbound AND trunk_id IS NOT NULL ORDER BY is_default DESC, created_at, id LIMIT 1`, [orgId]));
  return rows[0] ?? null;
}

/**
 * The inbound number `dialed` (E.164, or its digits without the +, as a trunk may write it) and the
 * trunk that brings its calls: null when no number of that value takes calls (operator.md, Phone
 * participants). Read by the rooms' dial-in through the reactions' inboundNumber port.
 */
export async function inboundNumberAt(db: Queryable, dialed: string): Promise<{ id: string; org_id: string; e164: string; trunk_id: string } | null> {
  const digits = dialed.replace(/^\+/, '');
  if (!/^\d{4,15}$/.test(digits)) return null;
  const { rows } = await db.query<{ id: string; org_id: string; e164: string; trunk_id: string }>(prepared(
    `SELECT id, org_id, e164, trunk_id FROM phone_numbers WHERE e164 = $1 AND inbound AND trunk_id IS NOT NULL AND org_id IS NOT NULL
      ORDER BY created_at, id LIMIT 1`, [`+${digits}`]));
  return rows[0] ?? null;
}
