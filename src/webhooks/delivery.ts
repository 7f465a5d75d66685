import type { Client } from '../db/pool.ts';
import { commitWith, prepared, withTx } from '../db/pool.ts';
import { newId } from '../ids.ts';
import { inTx } from '../jobs/in-tx.ts';
import { now, type Services } from '../services.ts';
import { fromOutbox } from './envelope.ts';
import { postWebhook, type PostResult } from './outbound.ts';
import { signatureHeaders } from './signing.ts';
import { countWebhook } from '../ops/metrics.ts';

// From the outbox to the endpoints (api.md section 6, Delivery).
//
// 1. dispatchOutbox turns committed outbox rows (which are also the event log)
//    into one delivery per subscribed endpoint, and queues the first attempt of each as
//    a pg-boss job, all in one transaction (SKIP LOCKED lets every process
//    dispatch at once without taking the same rows).
// 2. attemptDeliveries POSTs, records each attempt, and for a failure queues
//    the next attempt as a pg-boss job with the wait of RETRY_DELAYS_S, so a
//    retry survives any process. A process killed mid-attempt leaves its job
//    active; pg-boss hands it to another worker once its heartbeat lapses, and
//    the receiver may then see the event twice, with the same event id
//    (api.md: deduplicate by id).

/** pg-boss queue of delivery attempts (webhooks/jobs.ts). */
export const WEBHOOK_DELIVER_QUEUE = 'webhook-deliver';

/** Waits before attempts 2..9 (1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h). */
export const RETRY_DELAYS_S = [60, 300, 1800, 7200, 21600, 43200, 86400, 86400] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;
/** An endpoint failing continuously this long is disabled and its owner e-mailed. */
export const DISABLE_AFTER_MS = 3 * 24 * 3600_000;

export type DeliveryJob = { deliveryId: string; n: number };
export type Trigger = 'schedule' | 'resend' | 'test';

/**
 * The next events to dispatch ($1 at most). The queue holds only the ids of
 * events not dispatched yet (the event log's rows are never updated): its
 * rows are locked, the log's are read by those ids, one index probe each.
 * Joined instead, the planner merged the queue with the whole log from its
 * first row: every event ever dispatched was read again on each dispatch
 * (3,000 rows to find 117, 4 ms, a minute into the calls benchmark).
 */
export const DISPATCH_SQL = `WITH q AS (SELECT id FROM outbox_queue ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
  SELECT o.id, o.event_id, o.org_id, o.livemode, o.type, o.object_id, o.data, o.created_at
    FROM outbox o WHERE o.id = ANY (ARRAY(SELECT id FROM q))
   ORDER BY o.id`;

/** Moves up to `limit` outbox rows to the delivery queue. Returns how many it took. */
export async function dispatchOutbox(s: Services, limit = 500): Promise<number> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`dispatchOutbox: limit ${limit}`);
  return withTx(s.pool, async (tx) => {
    const { rows } = await tx.query(prepared(DISPATCH_SQL, [limit]));
    if (rows.length === 0) return 0;
    const events = rows.map((r) => ({
      row: r,
      env: fromOutbox(r),
    }));
    const orgs = [...new Set(events.map((e) => e.env.org_id))];
    const eps = await tx.query(
      `SELECT id, org_id, livemode, events FROM webhook_endpoints WHERE status = 'active' AND org_id = ANY($1)`,
      [orgs],
    );
    const deliveries: Array<{ id: string; endpointId: string; eventId: string; type: string; payload: string; created: Date }> = [];
    for (const e of events) {
      let payload: string | undefined;
      for (const ep of eps.rows) {
        // An endpoint hears only its own environment's events (test keys' endpoints: test events).
        if (ep.org_id !== e.env.org_id || ep.livemode !== e.env.livemode || !ep.events.includes(e.env.type)) continue;
        payload ??= JSON.stringify(e.env);
        deliveries.push({ id: newId('whd'), endpointId: ep.id, eventId: e.env.id, type: e.env.type, payload, created: e.row.created_at });
      }
    }
    if (deliveries.length > 0) {
      const ins = await tx.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, event_id, event_type, payload, status, event_created_at)
         SELECT d.id, d.endpoint_id, d.event_id, d.event_type, d.payload, 'pending', d.created
           FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
             AS d(id, endpoint_id, event_id, event_type, payload, created)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING RETURNING id`,
        [
          deliveries.map((d) => d.id), deliveries.map((d) => d.endpointId), deliveries.map((d) => d.eventId),
          deliveries.map((d) => d.type), deliveries.map((d) => d.payload), deliveries.map((d) => d.created),
        ],
      );
      const jobs = ins.rows.map((r) => ({ data: { deliveryId: r.id as string, n: 1 } satisfies DeliveryJob }));
      if (jobs.length > 0) await s.boss.insert(WEBHOOK_DELIVER_QUEUE, jobs, inTx(tx));
    }
    await commitWith(tx, { text: `DELETE FROM outbox_queue WHERE id = ANY($1)`, values: [rows.map((r) => r.id)] });
    return rows.length;
  });
}

type Target = {
  id: string;
  event_id: string;
  payload: string;
  status: 'pending' | 'succeeded' | 'failed';
  first_attempt_at: Date | null;
  endpoint_id: string;
  url: string;
  endpoint_status: 'active' | 'disabled';
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  org_id: string;
};

export type AttemptOutcome = PostResult & { deliveryId: string; skipped?: string };

/**
 * One attempt for each delivery, in parallel, then one transaction that
 * records them, queues the retries and disables endpoints that have failed
 * for too long. `n` is the scheduled attempt number (1 = first); resends and
 * tests are extra attempts outside the schedule.
 */
export async function attemptDeliveries(s: Services, jobs: DeliveryJob[], trigger: Trigger): Promise<AttemptOutcome[]> {
  if (jobs.length === 0) return [];
  const at = now(s);
  const { rows } = await s.pool.query<Target>(
    `SELECT d.id, d.event_id, d.payload, d.status, d.first_attempt_at, e.id AS endpoint_id, e.url,
            e.status AS endpoint_status, e.secret, e.previous_secret, e.previous_secret_expires_at, e.org_id
       FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.id = ANY($1)`,
    [jobs.map((j) => j.deliveryId)],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const planned = jobs.map((job) => {
    const t = byId.get(job.deliveryId);
    // A scheduled attempt runs only while the delivery still waits for one:
    // a resend may have succeeded meanwhile, or the endpoint gone or disabled.
    let skipped: string | undefined;
    if (!t) skipped = 'delivery or endpoint deleted';
    else if (trigger === 'schedule' && t.status !== 'pending') skipped = `delivery already ${t.status}`;
    else if (trigger === 'schedule' && t.endpoint_status !== 'active') skipped = 'endpoint disabled';
    return { job, t, skipped };
  });
  const outcomes = await Promise.all(
    planned.map(async ({ job, t, skipped }): Promise<AttemptOutcome> => {
      if (!t || skipped) return { deliveryId: job.deliveryId, ok: false, status: null, latencyMs: 0, error: skipped ?? null, skipped };
      const secrets = [t.secret];
      if (t.previous_secret && t.previous_secret_expires_at && t.previous_secret_expires_at > at) secrets.push(t.previous_secret);
      const headers = signatureHeaders(secrets, t.event_id, Math.floor(at.getTime() / 1000), t.payload);
      const r = await postWebhook(t.url, t.payload, headers, {
        allowOrigins: s.config.webhookAllowOrigins,
        lookup: s.dnsLookup,
        timeoutMs: s.config.webhookTimeoutMs,
      });
      return { deliveryId: job.deliveryId, ...r };
    }),
  );
  await withTx(s.pool, (tx) => record(s, tx, at, trigger, planned, outcomes));
  return outcomes;
}

async function record(
  s: Services,
  tx: Client,
  at: Date,
  trigger: Trigger,
  planned: Array<{ job: DeliveryJob; t: Target | undefined; skipped?: string }>,
  outcomes: AttemptOutcome[],
): Promise<void> {
  const retries: Array<{ data: DeliveryJob; startAfter: number }> = [];
  const attempts: Array<{ id: string; ok: boolean; status: number | null; latency: number; error: string | null; final: string | null; delay: number }> = [];
  // Per endpoint: did anything get through, and which deliveries ran out of attempts.
  const endpoints = new Map<string, { orgId: string; url: string; ok: boolean; failed: boolean; exhaustedSince: Date[] }>();
  for (let i = 0; i < planned.length; i++) {
    const { job, t, skipped } = planned[i]!;
    const o = outcomes[i]!;
    if (!t) continue;
    if (skipped) {
      // A pending delivery of a disabled endpoint will never be attempted again.
      if (t.status === 'pending' && trigger === 'schedule') {
        await tx.query(`UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL WHERE id = $1 AND status = 'pending'`, [t.id]);
      }
      continue;
    }
    const scheduled = trigger === 'schedule';
    const exhausted = scheduled && !o.ok && job.n >= MAX_ATTEMPTS;
    const retry = scheduled && !o.ok && !exhausted;
    const delay = retry ? RETRY_DELAYS_S[job.n - 1]! : 0;
    // succeeded once = succeeded; otherwise a test gives up at once and the schedule after its last attempt.
    const status = o.ok ? 'succeeded' : trigger === 'test' || exhausted ? 'failed' : null;
    attempts.push({ id: t.id, ok: o.ok, status: o.status, latency: o.latencyMs, error: o.error, final: status, delay });
    countWebhook(status ?? 'retrying');
    if (retry) retries.push({ data: { deliveryId: t.id, n: job.n + 1 }, startAfter: delay });
    const ep = endpoints.get(t.endpoint_id) ?? { orgId: t.org_id, url: t.url, ok: false, failed: false, exhaustedSince: [] };
    if (o.ok) ep.ok = true;
    else if (scheduled) ep.failed = true;
    if (exhausted) ep.exhaustedSince.push(t.first_attempt_at ?? at);
    endpoints.set(t.endpoint_id, ep);
  }
  // Every attempt of the batch in one statement: its webhook_attempts row and
  // the delivery's new state (succeeded once = succeeded; failed when the
  // schedule ran out or a test failed; else the time of the next attempt).
  if (attempts.length > 0) {
    await tx.query(
      `WITH v AS (
         SELECT * FROM unnest($1::text[], $2::boolean[], $3::int[], $4::int[], $5::text[], $6::text[], $7::int[])
           AS v(id, ok, status, latency, error, final, delay)
       ), a AS (
         INSERT INTO webhook_attempts (delivery_id, attempt, at, ok, status, latency_ms, error, trigger)
         SELECT v.id, d.attempts + 1, $8, v.ok, v.status, v.latency, v.error, $9 FROM v JOIN webhook_deliveries d ON d.id = v.id
       )
       UPDATE webhook_deliveries d SET
         attempts = d.attempts + 1,
         first_attempt_at = COALESCE(d.first_attempt_at, $8),
         status = CASE WHEN d.status = 'succeeded' THEN 'succeeded' ELSE COALESCE(v.final, d.status) END,
         next_attempt_at = CASE WHEN v.ok OR v.final IS NOT NULL THEN NULL
                                WHEN v.delay > 0 THEN $8::timestamptz + make_interval(secs => v.delay)
                                ELSE d.next_attempt_at END
       FROM v WHERE d.id = v.id`,
      [
        attempts.map((r) => r.id), attempts.map((r) => r.ok), attempts.map((r) => r.status), attempts.map((r) => r.latency),
        attempts.map((r) => r.error), attempts.map((r) => r.final), attempts.map((r) => r.delay), at, trigger,
      ],
    );
  }
  if (retries.length > 0) await s.boss.insert(WEBHOOK_DELIVER_QUEUE, retries, inTx(tx));
  for (const [id, ep] of endpoints) {
    if (ep.ok) {
      await tx.query(`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1`, [id]);
      continue;
    }
    if (!ep.failed) continue;
    const { rows } = await tx.query<{ failing_since: Date }>(
      `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, $2) WHERE id = $1 RETURNING failing_since`,
      [id, at],
    );
    const since = rows[0]?.failing_since;
    if (!since) continue;
    // Failing continuously for 3 days; or a delivery used its whole schedule
    // (about 3 days) without the endpoint answering 2xx to anything meanwhile.
    const tooLong = at.getTime() - since.getTime() >= DISABLE_AFTER_MS;
    const gaveUp = ep.exhaustedSince.some((first) => since.getTime() <= first.getTime());
    if (tooLong || gaveUp) await disableEndpoint(s, tx, id, ep.orgId, ep.url, since, at);
  }
}

async function disableEndpoint(s: Services, tx: Client, id: string, orgId: string, url: string, since: Date, at: Date): Promise<void> {
  const reason = `failing continuously since ${since.toISOString()}`;
  const upd = await tx.query<{ livemode: boolean; owner_email: string | null }>(
    `UPDATE webhook_endpoints e SET status = 'disabled', disabled_at = $2, disabled_reason = $3
       FROM organizations o WHERE e.id = $1 AND e.status = 'active' AND o.id = e.org_id
     RETURNING e.livemode, o.owner_email`,
    [id, at, reason],
  );
  const ep = upd.rows[0];
  if (upd.rowCount !== 1 || !ep?.owner_email) return;
  // The owner hears of it by mail (reactions.ts).
  await s.reactions.webhookEndpointDisabled(s, tx, {
    orgId,
    livemode: ep.livemode,
    to: ep.owner_email,
    subject: `Webhook endpoint disabled: ${url.slice(0, 200)}`,
    text:
      `Your webhook endpoint ${id} (${url}) has been disabled because every delivery to it has failed since ${since.toISOString()}.\n\n` +
      `Events are still in the event log (GET /v1/events) for 30 days. Fix the endpoint, then create it again ` +
      `or resend the deliveries you need (POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/resend).\n`,
  });
}
