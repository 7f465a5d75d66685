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
