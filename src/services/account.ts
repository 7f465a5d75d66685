import type { Queryable } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import type { Caller, Services } from './context.ts';
import { PRICING } from './pricing.ts';

function startOfDayUtc(d = new Date()): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}
function startOfMonthUtc(d = new Date()): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

const round = (n: number) => Math.round(n * 1000) / 1000;

/** Seconds each credential spent today and this month (UTC), from the usage ledger; absent = none. */
export async function spentSeconds(db: Queryable, credentialIds: string[]): Promise<Map<string, { today: number; month: number }>> {
  const { rows } = await db.query<{ credential_id: string; today: number; month: number }>(
    `SELECT credential_id,
            coalesce(sum(seconds) FILTER (WHERE created_at >= $2), 0) AS today,
            coalesce(sum(seconds), 0) AS month
       FROM usage_ledger WHERE credential_id = ANY($1) AND created_at >= $3
      GROUP BY credential_id`,
    [credentialIds, startOfDayUtc(), startOfMonthUtc()],
  );
  return new Map(rows.map((r) => [r.credential_id, { today: Number(r.today), month: Number(r.month) }]));
}

/** Minutes this credential spent today and this month (UTC), from the usage ledger. */
export async function spentMinutes(db: Queryable, credentialId: string): Promise<{ today: number; month: number }> {
  const spent = (await spentSeconds(db, [credentialId])).get(credentialId) ?? { today: 0, month: 0 };
  return { today: round(spent.today / 60), month: round(spent.month / 60) };
}

export async function me(s: Services, cred: Caller) {
  const spent = await spentMinutes(s.pool, cred.id);
  return {
    credential: { kind: cred.kind, id: cred.id, name: cred.name, mode: cred.mode, needs_review: cred.needsReview },
    organization: { id: cred.orgId, name: cred.orgName },
    // API keys belong to the organization, not to a person.
    user: null,
    permissions: [...cred.permissions].sort(),
    limits: {
      spend_day_minutes: cred.spendDayMinutes,
      spend_month_minutes: cred.spendMonthMinutes,
      per_call_minutes: cred.perCallMinutes,
      requests_per_minute: cred.requestsPerMinute,
      spent_today_minutes: spent.today,
      spent_month_minutes: spent.month,
    },
    pricing: { api_minute_factor: PRICING.apiMinuteFactor, listen_text_factor: PRICING.listenTextFactor },
  };
}

/** Below this many minutes a balance is reported as low (our choice). */
export const LOW_BALANCE_MINUTES = 30;

export async function balance(s: Services, cred: Caller) {
  const { rows } = await s.pool.query(`SELECT balance_seconds FROM organizations WHERE id = $1`, [cred.orgId]);
  const seconds = Math.max(0, Math.floor(Number(rows[0]?.balance_seconds ?? 0)));
  const minutes = round(seconds / 60);
  // Test mode charges nothing; it reports the organization's balance with source `test`.
  return {
    minutes_left: minutes,
    seconds_left: seconds,
    low: minutes < LOW_BALANCE_MINUTES,
    source: cred.livemode ? ('organization' as const) : ('test' as const),
    livemode: cred.livemode,
  };
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function parseDay(field: string, v: string | undefined, fallback: Date): Date {
  if (v === undefined || v === '') return fallback;
  const d = new Date(DATE.test(v) ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) throw new ApiError('invalid_request', `${field}: expected a date (YYYY-MM-DD) or ISO 8601 timestamp`);
  return startOfDayUtc(d);
}

export const MAX_USAGE_DAYS = 366;

export async function usage(
  s: Services,
  db: Queryable,
  cred: Caller,
  q: { from?: string; to?: string; group_by?: 'day' | 'credential' },
) {
  const to = parseDay('to', q.to, startOfDayUtc());
  const from = parseDay('from', q.from, startOfMonthUtc(to));
  if (from > to) throw new ApiError('invalid_request', 'from: must not be after to');
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days > MAX_USAGE_DAYS) throw new ApiError('invalid_request', `from: the range covers at most ${MAX_USAGE_DAYS} days`);
  const end = new Date(to.getTime() + DAY_MS);
  const args = [cred.orgId, cred.livemode, from, end];
  const groupBy = q.group_by ?? 'day';

  const minutesQ = groupBy === 'day'
    ? `SELECT to_char(date_trunc('day', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS k, sum(seconds) AS seconds
         FROM usage_ledger WHERE org_id = $1 AND livemode = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`
    : `SELECT credential_id AS k, sum(seconds) AS seconds
         FROM usage_ledger WHERE org_id = $1 AND livemode = $2 AND created_at >= $3 AND created_at < $4 GROUP BY 1`;
  const requestsQ = groupBy === 'day'
    ? `SELECT to_char(day, 'YYYY-MM-DD') AS k, sum(requests) AS requests, sum(errors) AS errors
         FROM request_counts WHERE org_id = $1 AND livemode = $2 AND day >= $3::date AND day < $4::date GROUP BY 1`
    : `SELECT credential_id AS k, sum(requests) AS requests, sum(errors) AS errors
         FROM request_counts WHERE org_id = $1 AND livemode = $2 AND day >= $3::date AND day < $4::date GROUP BY 1`;
  const [minutes, requests] = await Promise.all([db.query(minutesQ, args), db.query(requestsQ, args)]);

  const m = new Map<string, number>(minutes.rows.map((r) => [r.k, Number(r.seconds) / 60]));
  const r = new Map<string, { requests: number; errors: number }>(
    requests.rows.map((x) => [x.k, { requests: Number(x.requests), errors: Number(x.errors) }]),
  );
  let data: Array<Record<string, unknown> & { minutes: number }>;
  if (groupBy === 'day') {
    data = [];
    for (let i = 0; i < days; i++) {
      const day = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
      const rr = r.get(day);
      data.push({ day, minutes: round(m.get(day) ?? 0), requests: rr?.requests ?? 0, errors: rr?.errors ?? 0 });
    }
  } else {
    const ids = [...new Set([...m.keys(), ...r.keys()])];
    const names = ids.length
      ? await db.query(`SELECT id, name FROM api_keys WHERE id = ANY($1) AND org_id = $2`, [ids, cred.orgId])
      : { rows: [] };
    const nameOf = new Map<string, string>(names.rows.map((x: { id: string; name: string }) => [x.id, x.name]));
    data = ids.sort().map((id) => ({
      credential_id: id,
      name: nameOf.get(id) ?? id,
      minutes: round(m.get(id) ?? 0),
      requests: r.get(id)?.requests ?? 0,
      errors: r.get(id)?.errors ?? 0,
    }));
  }
  let totalRequests = 0;
  let totalErrors = 0;
  for (const v of r.values()) { totalRequests += v.requests; totalErrors += v.errors; }
  let totalMinutes = 0;
  for (const v of m.values()) totalMinutes += v;
  return {
    from: from.toISOString().slice(0, 10),
    to: to.toISOString().slice(0, 10),
    total_minutes: round(totalMinutes),
    requests: totalRequests,
    errors: totalErrors,
    data,
  };
}
