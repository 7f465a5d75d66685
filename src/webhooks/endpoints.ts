import { ID_PATTERN, newId, type IdPrefix } from '../ids.ts';
import { invalid, notFound, truncate } from '../errors.ts';
import { now, type Caller, type Services } from '../services.ts';
import { newSecret } from './signing.ts';
import { vetUrl } from './outbound.ts';
import { envelope } from './envelope.ts';
import { attemptDeliveries, type AttemptOutcome } from './delivery.ts';

// Webhook endpoints and their deliveries (api.md sections 4 and 6).
// Every query is scoped to the caller's organization and environment: an
// endpoint made with a test key is invisible to live keys and hears only test
// events, and the other way round.

/** Endpoints per organization and environment (ours; api.md is silent; Stripe allows 16). */
export const MAX_ENDPOINTS = 20;
/** Rotation overlap: the replaced secret keeps signing this long (api.md section 8). */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;

type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'active' | 'disabled';
  livemode: boolean;
  created_at: Date;
};
const COLUMNS = 'id, url, events, description, status, livemode, created_at';

function toEndpoint(r: EndpointRow) {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    status: r.status,
    livemode: r.livemode,
    created_at: r.created_at.toISOString(),
    description: r.description,
  };
}

function outboundOptions(s: Services) {
  return { allowOrigins: s.config.webhookAllowOrigins, lookup: s.dnsLookup };
}

/**
 * What to do about a url refused for being local (http, a port other than
 * https's, a local name, a private or loopback address): the server's
 * allow-list, or `tolk listen`, which forwards the organization's test events
 * to any url while it runs. Empty for any other refusal.
 */
export function localWayOut(raw: string, reason: string, cred: Pick<Caller, 'orgId' | 'livemode'>): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return '';
  if (!/must use https|port \S+ is not allowed|local name|internal name|(points|resolves) to (?!an invalid)/.test(reason)) return '';
  const allow = `start the server with TOLK_WEBHOOK_ALLOW_ORIGINS=${url.origin} (local development only)`;
  if (cred.livemode) return `. To deliver to a local receiver, ${allow}`;
  return `. To deliver to a local receiver, ${allow}, or run \`npx tolk listen --org ${cred.orgId} --forward-to ${truncate(url.href, 200)}\`, ` +
    'which forwards this organization\'s test events to it, signed, while it runs (no restart, no endpoint to register)';
}

export async function listEndpoints(s: Services, cred: Caller) {
  const { rows } = await s.pool.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE org_id = $1 AND livemode = $2 ORDER BY created_at DESC, id DESC`,
    [cred.orgId, cred.livemode],
  );
  return { data: rows.map(toEndpoint) };
}

export async function createEndpoint(s: Services, cred: Caller, input: { url: string; events: string[]; description?: string }) {
  const vetted = await vetUrl(input.url, { ...outboundOptions(s), requireResolution: false });
  if (!vetted.ok) throw invalid('url', vetted.reason + localWayOut(input.url, vetted.reason, cred));
  const secret = newSecret();
  // The count and the insert in one statement, so parallel creates cannot pass the cap together
  // (the advisory lock serializes creates of one organization and environment).
  const { rows } = await s.pool.query<EndpointRow & { n: number }>(
    `WITH lock AS (SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints:' || $2::text || ':' || $3::boolean::text))),
          n AS (SELECT count(*)::int AS n FROM webhook_endpoints, lock WHERE org_id = $2 AND livemode = $3::boolean)
     INSERT INTO webhook_endpoints (id, org_id, livemode, url, events, description, secret)
     SELECT $1, $2, $3, $4, $5, $6, $7 FROM n WHERE n.n < $8
     RETURNING ${COLUMNS}`,
    [newId('we'), cred.orgId, cred.livemode, input.url, [...new Set(input.events)], input.description ?? null, secret, MAX_ENDPOINTS],
  );
  const row = rows[0];
  if (!row) throw invalid('url', `at most ${MAX_ENDPOINTS} webhook endpoints per environment; delete one first`);
  return { ...toEndpoint(row), secret };
}

async function ownEndpoint(s: Services, cred: Caller, id: string): Promise<EndpointRow> {
  if (!ID_PATTERN.test(id)) throw notFound('webhook endpoint', id);
  const { rows } = await s.pool.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND org_id = $2 AND livemode = $3`,
    [id, cred.orgId, cred.livemode],
  );
  if (!rows[0]) throw notFound('webhook endpoint', id);
  return rows[0];
}

export async function deleteEndpoint(s: Services, cred: Caller, id: string) {
  if (!ID_PATTERN.test(id)) throw notFound('webhook endpoint', id);
  // Its deliveries go with it (ON DELETE CASCADE); queued attempts find nothing and stop.
  const del = await s.pool.query(`DELETE FROM webhook_endpoints WHERE id = $1 AND org_id = $2 AND livemode = $3`, [id, cred.orgId, cred.livemode]);
  if (del.rowCount !== 1) throw notFound('webhook endpoint', id);
  return { id, deleted: true as const };
}

export async function rotateSecret(s: Services, cred: Caller, id: string) {
  if (!ID_PATTERN.test(id)) throw notFound('webhook endpoint', id);
  const secret = newSecret();
  // The current secret becomes the previous one and signs alongside the new one for 24 hours.
  const { rowCount } = await s.pool.query(
    `UPDATE webhook_endpoints
        SET previous_secret = secret, previous_secret_expires_at = $4::timestamptz, secret = $5
      WHERE id = $1 AND org_id = $2 AND livemode = $3`,
    [id, cred.orgId, cred.livemode, new Date(now(s).getTime() + ROTATION_OVERLAP_MS), secret],
  );
  if (rowCount !== 1) throw notFound('webhook endpoint', id);
  return { id, secret };
}

/** A plausible object id for a test event of each type. */
function sampleObjectId(type: string, cred: Caller): string {
  const prefix: Record<string, IdPrefix> = {
    room: 'room', meeting: 'room', session: 'ses', booking: 'bk', transcript: 'tr', summary: 'tr', call: 'call', voice: 'voice',
  };
  const p = prefix[type.split('.')[0]!];
  return p ? newId(p) : cred.id;
}

function deliveryResult(o: AttemptOutcome) {
  return { ok: o.ok, status: o.status, latency_ms: o.latencyMs, delivery_id: o.deliveryId, error: o.error };
}

/** POST /v1/webhook-endpoints/{id}/test: a signed test event now; recorded as a delivery, not retried, not in the log. */
export async function sendTestEvent(s: Services, cred: Caller, id: string, type: string) {
  const ep = await ownEndpoint(s, cred, id);
  const env = envelope({
    id: newId('evt'),
    type,
    created: now(s),
    livemode: ep.livemode,
    orgId: cred.orgId,
    object: { id: sampleObjectId(type, cred), test: true },
  });
  const deliveryId = newId('whd');
  await s.pool.query(
    `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, test, status, event_created_at)
     VALUES ($1, $2, $3, $4, $5, true, 'pending', $6)`,
    [deliveryId, ep.id, env.id, type, JSON.stringify(env), now(s)],
  );
  const [o] = await attemptDeliveries(s, [{ deliveryId, n: 1 }], 'test');
  return deliveryResult(o!);
}

/** Sends a recorded delivery again now, with the same body and event id. */
export async function resendDelivery(s: Services, cred: Caller, endpointId: string, deliveryId: string) {
  await ownEndpoint(s, cred, endpointId);
  if (!ID_PATTERN.test(deliveryId)) throw notFound('delivery', deliveryId);
  const { rows } = await s.pool.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2`, [deliveryId, endpointId]);
  if (!rows[0]) throw notFound('delivery', deliveryId);
  const [o] = await attemptDeliveries(s, [{ deliveryId, n: 0 }], 'resend');
  return deliveryResult(o!);
}

export async function listDeliveries(s: Services, cred: Caller, endpointId: string, limit: number, startingAfter?: string) {
  await ownEndpoint(s, cred, endpointId);
  const values: unknown[] = [endpointId, limit + 1];
  let cursor = '';
  if (startingAfter) {
    // Not a delivery of this endpoint (unknown, or another endpoint's): refused alike.
    const after = await s.pool.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2`, [startingAfter, endpointId]);
    if (!after.rowCount) throw invalid('starting_after', `no delivery '${truncate(startingAfter, 64)}' of this endpoint`);
    values.push(startingAfter);
    cursor = `AND (d.created_at, d.id) < (SELECT created_at, id FROM webhook_deliveries WHERE id = $3 AND endpoint_id = $1)`;
  }
  const { rows } = await s.pool.query(
    `SELECT d.id, d.event_id, d.event_type, d.test, d.status, d.next_attempt_at, d.created_at,
            COALESCE((SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'ok', a.ok, 'status', a.status,
                                                        'latency_ms', a.latency_ms, 'error', a.error, 'trigger', a.trigger) ORDER BY a.id)
                        FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]') AS attempts
       FROM webhook_deliveries d
      WHERE d.endpoint_id = $1 ${cursor}
      ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
    values,
  );
  return {
    data: rows.slice(0, limit).map((r) => ({
      id: r.id as string,
      endpoint_id: endpointId,
      event_id: r.event_id as string,
      type: r.event_type as string,
      test: r.test as boolean,
      status: r.status as 'pending' | 'succeeded' | 'failed',
      next_attempt_at: r.next_attempt_at ? (r.next_attempt_at as Date).toISOString() : null,
      created_at: (r.created_at as Date).toISOString(),
      attempts: (r.attempts as Array<Record<string, unknown>>).map((a) => ({
        attempt: a.attempt as number,
        at: new Date(a.at as string).toISOString(),
        ok: a.ok as boolean,
        status: (a.status ?? null) as number | null,
        latency_ms: a.latency_ms as number,
        error: (a.error ?? null) as string | null,
        trigger: a.trigger as 'schedule' | 'resend' | 'test',
      })),
    })),
    has_more: rows.length > limit,
  };
}
