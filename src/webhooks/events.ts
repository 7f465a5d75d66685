import { invalid, truncate } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import { EVENT_TYPES } from '../../machines/event-types.ts';
import { fromOutbox } from './envelope.ts';

// The event log (GET /v1/events, api.md section 6): the outbox itself, so an
// event is listed from the moment its state change commits. Scoped to the
// caller's organization and environment.

/** How long the log keeps events (the maintenance job prunes older ones, webhooks/jobs.ts). */
export const EVENT_RETENTION_DAYS = 30;

/** `since`: ISO 8601 date-time or Unix seconds. */
export function parseSince(since: string): Date {
  const d = /^\d{1,12}$/.test(since) ? new Date(Number(since) * 1000) : new Date(since);
  if (Number.isNaN(d.getTime()) || !/^\d{1,12}$|^\d{4}-\d{2}-\d{2}/.test(since)) {
    throw invalid('since', 'must be an ISO 8601 date-time or Unix seconds');
  }
  return d;
}

const KNOWN_TYPES = new Set<string>(EVENT_TYPES);

export async function listEvents(
  s: Services,
  cred: Caller,
  q: { type?: string; since?: string; limit: number; starting_after?: string },
) {
  const values: unknown[] = [cred.orgId, cred.livemode, q.limit + 1, EVENT_RETENTION_DAYS];
  const where: string[] = [];
  if (q.type !== undefined) {
    // An exact type, or a family with a wildcard (`call.*`), as Stripe's event list allows.
    const family = q.type.endsWith('.*') ? q.type.slice(0, -2) : null;
    if (family !== null ? !EVENT_TYPES.some((t) => t.startsWith(`${family}.`)) : !KNOWN_TYPES.has(q.type)) {
      throw invalid('type', `unknown event type '${q.type.slice(0, 60)}'`);
    }
    values.push(family !== null ? `${family}.%` : q.type);
    where.push(family !== null ? `type LIKE $${values.length}` : `type = $${values.length}`);
  }
  if (q.since !== undefined) {
    values.push(parseSince(q.since));
    where.push(`created_at >= $${values.length}`);
  }
  if (q.starting_after) {
    // Not an event of this list (unknown, another organization's, the other mode's): refused alike.
    const after = await s.pool.query(`SELECT 1 FROM outbox WHERE event_id = $1 AND org_id = $2 AND livemode = $3`, [q.starting_after, cred.orgId, cred.livemode]);
    if (!after.rowCount) throw invalid('starting_after', `no event '${truncate(q.starting_after, 64)}'`);
    values.push(q.starting_after);
    where.push(`(created_at, id) < (SELECT created_at, id FROM outbox WHERE event_id = $${values.length} AND org_id = $1 AND livemode = $2)`);
  }
  // The outbox is the log: an event is listed as soon as its state change commits.
  const { rows } = await s.pool.query(
    `SELECT event_id, type, object_id, created_at, livemode, org_id, data FROM outbox
      WHERE org_id = $1 AND livemode = $2 AND created_at > now() - make_interval(days => $4::int)
            ${where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    values,
  );
  return {
    data: rows
      .slice(0, q.limit)
      .map((r) => fromOutbox(r)),
    has_more: rows.length > q.limit,
  };
}
