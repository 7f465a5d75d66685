import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Stripe from 'stripe';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { createOrg, createKey } from '../../src/cli/admin.ts';

// Endpoints, the event log and signed delivery, end to end: the server with its
// workers (dispatcher and delivery queue) on its own database, a real receiver
// on 127.0.0.1 (allow-listed through TOLK_WEBHOOK_ALLOW_ORIGINS, as operators
// do for local development), and two independent verifiers: Stripe's
// constructEvent for Service-Signature and the standardwebhooks package for the
// Standard Webhooks headers.

const stripe = new Stripe('sk_test_verifier_only');

let t: TestApp;
let rx: Receiver;
let key: string;
let orgId: string;

function verifyStripe(r: { headers: Record<string, unknown>; body: string }, secret: string) {
  return stripe.webhooks.constructEvent(r.body, String(r.headers['service-signature']), secret) as unknown as Record<string, any>;
}
function verifyStandard(r: { headers: Record<string, unknown>; body: string }, secret: string) {
  const h = r.headers as Record<string, string>;
  return new Webhook(secret).verify(r.body, {
    'webhook-id': h['webhook-id']!,
    'webhook-timestamp': h['webhook-timestamp']!,
    'webhook-signature': h['webhook-signature']!,
  }) as Record<string, any>;
}

async function createEndpoint(events: string[], k = key, url = rx.url) {
  const res = await t.request('POST', '/v1/webhook-endpoints', { key: k, body: { url, events, description: 'tests' } });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function createRoom(k = key) {
  const res = await t.request('POST', '/v1/rooms', { key: k, body: { title: 'hook' }, headers: { 'idempotency-key': crypto.randomUUID() } });
  expect(res.status).toBe(201);
  return res.json();
}

/** The Node verification example of docs/webhooks.md, loaded as a module. */
async function readmeVerifier(): Promise<{ verify: (body: string, header: string, secrets: string[]) => boolean }> {
  const readme = fs.readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
  const code = readme.match(/```js\n(import crypto[\s\S]*?)```/)?.[1];
  expect(code, 'docs/webhooks.md has the verification example').toBeDefined();
  const file = path.join(os.tmpdir(), `tolk-readme-verify-${process.pid}.mjs`);
  fs.writeFileSync(file, code!);
  return import(pathToFileURL(file).href);
}

/** Deliveries of one event id in what the receiver got. */
const forEvent = (id: string) => rx.received.filter((r) => JSON.parse(r.body).id === id);

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ workers: true, config: { webhookAllowOrigins: [rx.origin] } });
  ({ secret: key, orgId } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('webhook endpoints', () => {
  it('create shows the whsec_ secret once; list, delete and rotate follow api.md', async () => {
    const ep = await createEndpoint(['room.started', 'meeting.created']);
    expect(ep).toMatchObject({ url: rx.url, events: ['room.started', 'meeting.created'], status: 'active', livemode: false, description: 'tests' });
    expect(ep.id).toMatch(/^we_/);
    expect(ep.secret).toMatch(/^whsec_/);
    expect(new Date(ep.created_at).toISOString()).toBe(ep.created_at);

    const list = await (await t.request('GET', '/v1/webhook-endpoints', { key })).json();
    const listed = list.data.find((e: any) => e.id === ep.id);
    expect(listed).toMatchObject({ id: ep.id, url: rx.url, status: 'active' });
    expect(JSON.stringify(list)).not.toContain(ep.secret);
    expect(listed).not.toHaveProperty('secret');

    const rot = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key });
    expect(rot.status).toBe(200);
    const rotated = await rot.json();
    expect(rotated.id).toBe(ep.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(ep.secret);

    const del = await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
    expect(del.status).toBe(200);
    expect(await del.json()).toEqual({ id: ep.id, deleted: true });
    expect((await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key })).status).toBe(404);
    expect((await t.request('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key })).status).toBe(404);
  });

  it.each([
    ['http://hooks.example.com/x', 'https'],
    ['https://127.0.0.1/x', 'address'],
    ['https://169.254.169.254/latest/meta-data/', 'address'],
    ['https://[::ffff:7f00:1]/x', 'address'],
    ['https://localhost/x', 'localhost'],
    ['https://hooks.example.com:22/x', 'port 22 is not allowed; webhooks go to port 443 or 8443'],
    ['not a url', 'url'],
    ['', 'url'],
  ])('refuses %s with 400 invalid_request naming url', async (url, word) => {
    const res = await t.request('POST', '/v1/webhook-endpoints', { key, body: { url, events: ['room.started'] } });
    expect(res.status).toBe(400);
    const p = await res.json();
    expect(p.code).toBe('invalid_request');
    expect(p.message).toMatch(/^url/);
    expect(p.message.toLowerCase()).toContain(word);
  });

  it('refuses unknown event types, a missing list, long urls and long descriptions, naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ url: rx.url, events: ['room.exploded'] }, 'events'],
      [{ url: rx.url }, 'events'],
      [{ url: rx.url, events: [] }, 'events'],
      [{ url: `https://hooks.example.com/${'a'.repeat(2000)}`, events: ['room.started'] }, 'url'],
      [{ url: rx.url, events: ['room.started'], description: 'd'.repeat(201) }, 'description'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/v1/webhook-endpoints', { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect((await res.json()).message).toContain(field);
    }
  });

  it('an unresolvable public name is accepted (delivery will retry), an allow-listed http origin too', async () => {
    const res = await t.request('POST', '/v1/webhook-endpoints', { key, body: { url: 'https://hooks.invalid-tld-for-tests.example/x', events: ['room.started'] } });
    expect(res.status).toBe(201);
    await t.request('DELETE', `/v1/webhook-endpoints/${(await res.json()).id}`, { key });
  });

  it('endpoints belong to one environment and one organization', async () => {
    const ep = await createEndpoint(['room.started']);
    const live = await t.key({ org: orgId, mode: 'live', rpm: 100_000 });
    const other = await t.key();
    for (const k of [live.secret, other.secret]) {
      const list = await (await t.request('GET', '/v1/webhook-endpoints', { key: k })).json();
      expect(list.data.map((e: any) => e.id)).not.toContain(ep.id);
      expect((await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key: k })).status).toBe(404);
      expect((await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: k })).status).toBe(404);
      expect((await t.request('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key: k })).status).toBe(404);
    }
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('POSTs with nothing to send accept an empty body sent as application/json; malformed JSON is a 400', async () => {
    const ep = await createEndpoint(['room.started']);
    for (const path of [`/v1/webhook-endpoints/${ep.id}/rotate-secret`, `/v1/webhook-endpoints/${ep.id}/test`]) {
      for (const rawBody of ['', '  ']) {
        const res = await t.request('POST', path, { key, headers: { 'content-type': 'application/json' }, rawBody });
        expect(res.status, `${path} ${JSON.stringify(rawBody)}`).toBe(200);
      }
    }
    const bad = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key, headers: { 'content-type': 'application/json' }, rawBody: '{"type":' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('invalid_request');
    // A create still needs its body.
    const empty = await t.request('POST', '/v1/webhook-endpoints', { key, headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(empty.status).toBe(400);
    expect((await empty.json()).message).toMatch(/^body/);
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('needs webhooks:write (403 insufficient_scope naming it)', async () => {
    const k = await t.key({ permissions: 'rooms:write,events:read' });
    const res = await t.request('GET', '/v1/webhook-endpoints', { key: k.secret });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('webhooks:write');
  });
});

describe('delivery', () => {
  it('room.started reaches the endpoint signed: Stripe and Standard Webhooks verifiers accept it; the log has the same event', async () => {
    const ep = await createEndpoint(['room.started']);
    const room = await createRoom();
    await until('room.started of the room at the receiver', async () => rx.received.some((r) => JSON.parse(r.body).data.object.id === room.id), { timeoutMs: 10_000, retryErrors: false });
    const got = rx.received.find((r) => JSON.parse(r.body).data.object.id === room.id)!;
    expect(got, 'delivered').toBeDefined();
    const event = verifyStripe(got, ep.secret);
    expect(event).toMatchObject({ type: 'room.started', livemode: false, org_id: orgId, api_version: 'v1', data: { object: { id: room.id } } });
    expect(event.id).toMatch(/^evt_/);
    expect(Number.isInteger(event.created)).toBe(true);
    expect(verifyStandard(got, ep.secret).id).toBe(event.id);
    expect(got.headers['webhook-id']).toBe(event.id);
    // The verifier the README shows agrees.
    const { verify } = await readmeVerifier();
    expect(verify(got.body, String(got.headers['service-signature']), [ep.secret])).toBe(true);
    expect(verify(got.body, String(got.headers['service-signature']), [`${ep.secret}x`])).toBe(false);
    expect(verify(`${got.body} `, String(got.headers['service-signature']), [ep.secret])).toBe(false);
    // A wrong secret fails both verifiers.
    expect(() => verifyStripe(got, `${ep.secret}x`)).toThrow();
    expect(() => verifyStandard(got, 'whsec_' + Buffer.from('another secret key!!').toString('base64'))).toThrow();

    const log = await (await t.request('GET', '/v1/events?type=room.started', { key })).json();
    const entry = log.data.find((e: any) => e.id === event.id);
    expect(entry).toEqual(event);

    const deliveries = await (await t.request('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key })).json();
    const d = deliveries.data.find((x: any) => x.event_id === event.id);
    expect(d).toMatchObject({ type: 'room.started', status: 'succeeded', test: false, next_attempt_at: null });
    expect(d.id).toMatch(/^whd_/);
    expect(d.attempts).toHaveLength(1);
    expect(d.attempts[0]).toMatchObject({ attempt: 1, ok: true, status: 200, error: null, trigger: 'schedule' });
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('an endpoint hears only its environment and the events it subscribed to', async () => {
    const live = await t.key({ org: orgId, mode: 'live', rpm: 100_000 });
    const testEp = await createEndpoint(['room.started']);
    const liveEp = await createEndpoint(['room.started'], live.secret);
    const meetingsOnly = await createEndpoint(['meeting.created']);
    const testRoom = await createRoom();
    const liveRoom = await createRoom(live.secret);
    const wanted = () => rx.received.filter((r) => [testRoom.id, liveRoom.id].includes(JSON.parse(r.body).data.object.id));
    await until('room.started of both rooms at the receiver', async () => wanted().length >= 2, { timeoutMs: 10_000, intervalMs: 50, retryErrors: false });
    // Nothing more is on its way once both rooms' events are dispatched and
    // every delivery made of them has had its attempt: an attempt is recorded
    // only after the receiver answered it, so anything wrongly sent (another
    // environment, an event not subscribed to) is in rx.received by then.
    await until('every delivery of both rooms\' events to be attempted', async () => {
      const { rows } = await t.pool.query(
        `SELECT (SELECT count(*) FROM outbox o JOIN outbox_queue q ON q.id = o.id WHERE o.object_id = ANY($1))
              + (SELECT count(*) FROM webhook_deliveries d JOIN outbox o ON o.event_id = d.event_id
                  WHERE o.object_id = ANY($1) AND d.status = 'pending' AND d.attempts = 0) AS waiting`,
        [[testRoom.id, liveRoom.id]],
      );
      return Number(rows[0].waiting) === 0;
    }, { timeoutMs: 10_000, retryErrors: false });
    const got = wanted();
    expect(got).toHaveLength(2);
    const byRoom = new Map(got.map((r) => [JSON.parse(r.body).data.object.id, r]));
    expect(verifyStripe(byRoom.get(testRoom.id)!, testEp.secret).livemode).toBe(false);
    expect(verifyStripe(byRoom.get(liveRoom.id)!, liveEp.secret).livemode).toBe(true);
    expect(() => verifyStripe(byRoom.get(testRoom.id)!, liveEp.secret)).toThrow();
    expect(() => verifyStripe(byRoom.get(liveRoom.id)!, meetingsOnly.secret)).toThrow();
    // The log keeps the environments apart too.
    const liveLog = await (await t.request('GET', '/v1/events', { key: live.secret })).json();
    expect(liveLog.data.every((e: any) => e.livemode === true)).toBe(true);
    expect(liveLog.data.map((e: any) => e.data.object.id)).toContain(liveRoom.id);
    expect(liveLog.data.map((e: any) => e.data.object.id)).not.toContain(testRoom.id);
    for (const ep of [testEp, meetingsOnly]) await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
    await t.request('DELETE', `/v1/webhook-endpoints/${liveEp.id}`, { key: live.secret });
  });

  it('after rotate-secret both secrets sign: two v1 values, each verifier accepts either secret', async () => {
    const ep = await createEndpoint(['room.started']);
    const { secret: next } = await (await t.request('POST', `/v1/webhook-endpoints/${ep.id}/rotate-secret`, { key })).json();
    const res = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key, body: { type: 'room.started' } });
    expect(res.status).toBe(200);
    const result = await res.json();
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    const got = rx.received.at(-1)!;
    expect(String(got.headers['service-signature']).match(/v1=/g)).toHaveLength(2);
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [ep.secret, next]) {
      expect(verifyStripe(got, secret).type).toBe('room.started');
      expect(verifyStandard(got, secret).type).toBe('room.started');
    }
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('test sends a signed event now and answers {ok, status, latency_ms, delivery_id, error}; failures are reported, not retried', async () => {
    const ep = await createEndpoint(['room.started']);
    const res = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key });
    const ok = await res.json();
    expect(ok, JSON.stringify(ok)).toMatchObject({ ok: true, status: 200, error: null });
    expect(ok.delivery_id).toMatch(/^whd_/);
    expect(typeof ok.latency_ms).toBe('number');
    const sent = verifyStripe(rx.received.at(-1)!, ep.secret);
    expect(sent.type).toBe('meeting.created');
    expect(sent.data.object.id).toMatch(/^room_/);

    rx.respond.status = 503;
    try {
      const bad = await (await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key, body: { type: 'call.blocked' } })).json();
      expect(bad).toMatchObject({ ok: false, status: 503 });
      expect(bad.error).toBeTruthy();
      const list = await (await t.request('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key })).json();
      const d = list.data.find((x: any) => x.id === bad.delivery_id);
      expect(d).toMatchObject({ test: true, status: 'failed', next_attempt_at: null, type: 'call.blocked' });
    } finally {
      rx.respond.status = 200;
    }
    const bad = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key, body: { type: 'nope.nope' } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('type');
    // Test events are not in the log.
    const log = await (await t.request('GET', '/v1/events', { key })).json();
    expect(log.data.map((e: any) => e.id)).not.toContain(sent.id);
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('a failed attempt is retried after 1 minute; resend delivers now with the same event id and body', async () => {
    const ep = await createEndpoint(['room.started']);
    rx.respond.status = 500;
    let room: any;
    try {
      room = await createRoom();
      const d: any = await until('the first attempt to be recorded', async () => {
        const list = await (await t.request('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key })).json();
        return list.data[0]?.attempts.length ? list.data[0] : undefined;
      }, { timeoutMs: 10_000, intervalMs: 50, retryErrors: false });
      expect(d).toMatchObject({ status: 'pending' });
      expect(d.attempts[0]).toMatchObject({ ok: false, status: 500 });
      const wait = new Date(d.next_attempt_at).getTime() - new Date(d.attempts[0].at).getTime();
      expect(wait).toBe(60_000);
      rx.respond.status = 200;
      const before = forEvent(d.event_id);
      const r = await (await t.request('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/${d.id}/resend`, { key })).json();
      expect(r).toMatchObject({ ok: true, status: 200, delivery_id: d.id, error: null });
      const after = forEvent(d.event_id);
      expect(after.length).toBe(before.length + 1);
      expect(after.at(-1)!.body).toBe(before[0]!.body);
      expect(verifyStripe(after.at(-1)!, ep.secret).data.object.id).toBe(room.id);
      const list = await (await t.request('GET', `/v1/webhook-endpoints/${ep.id}/deliveries`, { key })).json();
      expect(list.data[0]).toMatchObject({ id: d.id, status: 'succeeded', next_attempt_at: null });
      expect(list.data[0].attempts.map((a: any) => a.trigger)).toEqual(['schedule', 'resend']);
    } finally {
      rx.respond.status = 200;
    }
    expect((await t.request('POST', `/v1/webhook-endpoints/${ep.id}/deliveries/whd_nope/resend`, { key })).status).toBe(404);
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });
});

describe('event log', () => {
  it('newest first, filtered by type (exact or family) and since, bounded by limit, 30 days only', async () => {
    const a = await createRoom();
    const b = await createRoom();
    const log = await (await t.request('GET', '/v1/events?limit=2', { key })).json();
    expect(log.data.map((e: any) => e.data.object.id)).toEqual([b.id, a.id]);
    expect(log.has_more).toBe(true);
    for (const e of log.data) expect(e).toMatchObject({ type: 'room.started', livemode: false, org_id: orgId, api_version: 'v1' });
    const page2 = await (await t.request('GET', `/v1/events?limit=1&starting_after=${log.data[0].id}`, { key })).json();
    expect(page2.data[0].id).toBe(log.data[1].id);

    const family = await (await t.request('GET', '/v1/events?type=room.*', { key })).json();
    expect(family.data.length).toBeGreaterThanOrEqual(2);
    expect((await (await t.request('GET', '/v1/events?type=call.blocked', { key })).json()).data).toEqual([]);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await (await t.request('GET', `/v1/events?since=${future}`, { key })).json()).data).toEqual([]);
    const since = new Date(Date.now() - 3600_000).toISOString();
    expect((await (await t.request('GET', `/v1/events?since=${since}`, { key })).json()).data.length).toBeGreaterThanOrEqual(2);

    for (const [q, field] of [['type=bogus', 'type'], ['since=yesterday', 'since'], ['limit=0', 'limit'], ['limit=101', 'limit']]) {
      const res = await t.request('GET', `/v1/events?${q}`, { key });
      expect(res.status, q).toBe(400);
      expect((await res.json()).message, q).toContain(field);
    }
  });

  it('entries older than 30 days are not listed and the maintenance job deletes them', async () => {
    await t.pool.query(
      `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data, created_at, processed_at)
       VALUES ('evt_old0000000000000000000', $1, false, 'room.started', 'room_old', '{"object":{"id":"room_old"}}', now() - interval '31 days', now() - interval '31 days')`,
      [orgId],
    );
    const log = await (await t.request('GET', '/v1/events?limit=100', { key })).json();
    expect(log.data.map((e: any) => e.id)).not.toContain('evt_old0000000000000000000');
    const { pruneExpired } = await import('../../src/jobs-registry.ts');
    expect((await pruneExpired(t.services)).events).toBeGreaterThanOrEqual(1);
    expect((await t.pool.query(`SELECT 1 FROM outbox WHERE event_id = 'evt_old0000000000000000000'`)).rowCount).toBe(0);
  });

  it('phone numbers are masked and transcript text never leaves, in the log and in deliveries', async () => {
    const ep = await createEndpoint(['call.blocked', 'transcript.ready']);
    await t.pool.query(
      `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data) VALUES
        ('evt_mask000000000000000000', $1, false, 'call.blocked', 'call_x', $2),
        ('evt_text000000000000000000', $1, false, 'transcript.ready', 'tr_x', $3)`,
      [
        orgId,
        JSON.stringify({ object: { id: 'call_x', to: '+14155550123', from: '+442071838750', reason: 'destination_not_allowed' } }),
        JSON.stringify({ object: { id: 'tr_x', room_id: 'room_x', segments: [{ text: 'secret words' }], text: 'secret words' } }),
      ],
    );
    await t.workers!.kickDispatcher();
    const got = await until('both events to be delivered', async () => {
      const [mask, text] = [forEvent('evt_mask000000000000000000')[0], forEvent('evt_text000000000000000000')[0]];
      return mask && text ? [mask, text] : undefined;
    }, { timeoutMs: 10_000, intervalMs: 50, retryErrors: false });
    const log = await (await t.request('GET', '/v1/events?limit=100', { key })).json();
    const call = log.data.find((e: any) => e.id === 'evt_mask000000000000000000');
    expect(call.data.object).toEqual({ id: 'call_x', to: '+141******23', from: '+442*******50', reason: 'destination_not_allowed' });
    expect(verifyStripe(got[0]!, ep.secret).data.object).toEqual(call.data.object);
    const tr = log.data.find((e: any) => e.id === 'evt_text000000000000000000');
    expect(tr.data.object).toEqual({ id: 'tr_x', room_id: 'room_x' });
    expect(got[1]!.body).not.toContain('secret words');
    expect(got[0]!.body).not.toContain('5550123');
    await t.request('DELETE', `/v1/webhook-endpoints/${ep.id}`, { key });
  });

  it('needs events:read', async () => {
    const k = await t.key({ permissions: 'webhooks:write' });
    const res = await t.request('GET', '/v1/events', { key: k.secret });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('events:read');
  });
});

describe('endpoint owner mail', () => {
  it('createOrg with an owner e-mail is where disabling notices go (see schedule test)', async () => {
    const org = await createOrg(t.pool, { name: 'Mail org', ownerEmail: 'owner@example.com' });
    const k = await createKey(t.pool, { org: org.id, mode: 'test' });
    expect(k.secret).toMatch(/^sk_test_/);
  });
});
