import type { Queryable } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { now, type Caller, type Services } from '../services.ts';
import { PRICING } from '../billing/pricing.ts';
import { periodStarts, round3 as round, spentMinutes, usageSeconds } from '../billing/usage.ts';

// GET /v1/me and GET /v1/usage: who the caller is, its limits and what it
// spent (from the billing ledger), and usage by day or credential.

const startOfDayUtc = (d: Date) => periodStarts(d).day;
const startOfMonthUtc = (d: Date) => periodStarts(d).month;

export async function me(s: Services, cred: Caller) {
  const spent = await spentMinutes(s.pool, cred.id, now(s));
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
  const to = parseDay('to', q.to, startOfDayUtc(now(s)));
  const from = parseDay('from', q.from, startOfMonthUtc(to));
  if (from > to) throw new ApiError('invalid_request', 'from: must not be after to');
  const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
  if (days > MAX_USAGE_DAYS) throw new ApiError('invalid_request', `from: the range covers at most ${MAX_USAGE_DAYS} days`);
  const end = new Date(to.getTime() + DAY_MS);
  const args = [cred.orgId, cred.livemode, from, end];
  const groupBy = q.group_by ?? 'day';

  const requestsQ = groupBy === 'day'
    ? `SELECT to_char(day, 'YYYY-MM-DD') AS k, sum(requests) AS requests, sum(errors) AS errors
         FROM request_counts WHERE org_id = $1 AND livemode = $2 AND day >= $3::date AND day < $4::date GROUP BY 1`
    : `SELECT credential_id AS k, sum(requests) AS requests, sum(errors) AS errors
         FROM request_counts WHERE org_id = $1 AND livemode = $2 AND day >= $3::date AND day < $4::date GROUP BY 1`;
  const [seconds, requests] = await Promise.all([
    usageSeconds(db, { orgId: cred.orgId, livemode: cred.livemode }, from, end, groupBy),
    db.query(requestsQ, args),
  ]);

  const m = new Map<string, number>([...seconds].map(([k, v]) => [k, v / 60]));
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
