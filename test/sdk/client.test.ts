import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { until } from '../helpers/wait.ts';
import { createEventType } from '../../src/cli/admin.ts';
import { AVATARS } from '../../src/catalog/data.ts';
import { Tolk, TolkConflictError, TolkInvalidRequestError, TolkNotFoundError, TolkPermissionError, type SessionEvent } from '../../sdk/src/index.ts';
import openapi from '../../openapi.json' with { type: 'json' };

// The client library (sdk/) against the real app: every operation of the
// OpenAPI document goes through a client method at least once, on the server
// the other tests use (real HTTP, its own database, workers and the simulator
// on), and what the client hands back is what the API answered: objects as
// they are, lists as arrays, errors typed with their code and request id.

vi.setConfig({ testTimeout: 60_000 });

// Inside every country's calling window, whatever time the suite runs (as test/calls/calls.test.ts).
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let t: TestApp;
let rx: Receiver;
let tolk: Tolk;
let orgId: string;
/** Each request the client sent, as "METHOD /v1/template" of the OpenAPI document. */
const sent = new Set<string>();

const templates = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
  Object.keys(ops).map((m) => ({ op: `${m.toUpperCase()} ${path}`, method: m.toUpperCase(), re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`) })));

function record(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = new URL(String(input));
  const method = init?.method ?? 'GET';
  // The most specific template first: /v1/voices/catalog before /v1/voices/{id}.
  const hit = templates.filter((x) => x.method === method && x.re.test(url.pathname)).sort((a, b) => a.op.split('{').length - b.op.split('{').length)[0];
  if (hit) sent.add(hit.op);
  return fetch(input, init);
}

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ workers: true, clock, config: { simSpeed: 20, webhookAllowOrigins: [rx.origin] } });
  const k = await t.key({ rpm: 100_000 });
  orgId = k.orgId;
  await t.pool.query(`UPDATE organizations SET owner_email = 'owner@host.example' WHERE id = $1`, [orgId]);
  tolk = new Tolk(k.secret, { baseUrl: t.url, fetch: record });
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

describe('the client, one method per operation', () => {
  it('account: me, balance, usage', async () => {
    const me = await tolk.me.retrieve();
    expect(me.credential).toMatchObject({ kind: 'key', mode: 'test' });
    expect(me.organization?.id).toBe(orgId);
    // The answer's details ride along, out of the way of JSON.
    expect(me.lastResponse.status).toBe(200);
    expect(me.lastResponse.requestId).toMatch(/^req_/);
    expect(me.lastResponse.rateLimit).toMatchObject({ limit: 100_000 });
    expect(tolk.rateLimit?.remaining).toBe(me.lastResponse.rateLimit!.remaining);
    expect(Object.keys(me)).not.toContain('lastResponse');

    const balance = await tolk.balance.retrieve();
    expect(balance).toMatchObject({ source: 'test', livemode: false });
    const usage = await tolk.usage.retrieve({ group_by: 'credential' });
    expect(usage.requests).toBeGreaterThanOrEqual(2);
  });

  it('rooms: create (with its own Idempotency-Key), retrieve, list, join links, end', async () => {
    const room = await tolk.rooms.create({ title: 'Standup', langs: ['en', 'es'] });
    expect(room).toMatchObject({ title: 'Standup', status: 'live', langs: ['en', 'es'], livemode: false });
    expect(room.lastResponse.status).toBe(201);
    expect(room.lastResponse.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);

    // The same key again is the same room, replayed; a new call is a new key and a new room.
    const again = await tolk.rooms.create({ title: 'Standup', langs: ['en', 'es'] }, { idempotencyKey: room.lastResponse.idempotencyKey! });
    expect(again.id).toBe(room.id);
    expect(again.lastResponse.idempotentReplayed).toBe(true);
    const other = await tolk.rooms.create({ title: 'Standup', langs: ['en', 'es'] });
    expect(other.id).not.toBe(room.id);

    expect(await tolk.rooms.retrieve(room.id)).toEqual(room);
    const rooms = await tolk.rooms.list({ limit: 1 });
    expect(Array.isArray(rooms)).toBe(true);
    expect(rooms.map((r) => r.id)).toEqual([other.id]);
    expect(rooms.has_more).toBe(true);
    // for await walks every page.
    const all: string[] = [];
    for await (const r of tolk.rooms.list({ limit: 1 })) all.push(r.id);
    expect(all).toEqual([other.id, room.id]);

    const link = await tolk.rooms.createJoinLink(room.id, { name: 'Ana', speak: 'en', hear: 'es' });
    expect(link.room_id).toBe(room.id);
    expect(link.url).toContain(room.id);
    const ended = await tolk.rooms.end(other.id);
    expect(ended).toMatchObject({ id: other.id, status: 'ended' });

    const err = await tolk.rooms.retrieve('room_doesNotExist1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TolkNotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'not_found' });
    expect((err as TolkNotFoundError).request_id).toMatch(/^req_/);
  });

  it('meetings, booking links, slots and a booking', async () => {
    const starts = new Date(clock().getTime() + 86_400_000).toISOString().replace(/\.\d+Z$/, '+00:00');
    const meeting = await tolk.meetings.create({ title: 'Planning', starts_at: starts, duration_min: 45, langs: ['en', 'pt'] });
    expect(meeting).toMatchObject({ title: 'Planning', status: 'scheduled', duration_min: 45 });
    expect((await tolk.meetings.list()).map((m) => m.id)).toContain(meeting.id);
    expect(await tolk.meetings.cancel(meeting.id)).toMatchObject({ id: meeting.id });

    const et = await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page: 'sdk', slug: 'intro', title: 'Intro', tz: 'UTC', hours: 'mon-sun 00:00-24:00', duration: 30 });
    const types = await tolk.eventTypes.list();
    expect(types.map((x) => x.id)).toEqual([et.id]);
    const day = (ms: number) => new Date(clock().getTime() + ms).toISOString().slice(0, 10);
    const slots = await tolk.eventTypes.slots(et.id, { from: day(86_400_000), to: day(2 * 86_400_000) });
    expect(slots.duration_min).toBe(30);
    expect(slots.slots.length).toBeGreaterThan(0);
    const booking = await tolk.bookings.create({ event_type_id: et.id, start: slots.slots[0]!, guest: { name: 'Guest', email: 'guest@guest.example', speak: 'es' } });
    expect(booking).toMatchObject({ start: slots.slots[0], livemode: false });
    // The slot is gone: the same booking with a new key is refused, typed.
    const taken = await tolk.bookings.create({ event_type_id: et.id, start: slots.slots[0]!, guest: { name: 'Other', email: 'other@guest.example', speak: 'es' } }).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(TolkConflictError);
    expect(taken).toMatchObject({ status: 409, code: 'slot_taken' });
  });

  it('voices: catalog, generic, a clone through consent, revoke', async () => {
    const catalog = await tolk.voices.catalog();
    expect(catalog.length).toBeGreaterThan(0);
    const generic = await tolk.voices.addGeneric({ voice_id: catalog[0]!.id });
    expect(generic).toMatchObject({ id: catalog[0]!.id, kind: 'generic', active: true });
    const clone = await tolk.voices.create({ name: 'Ana', language: 'en', person: { name: 'Ana Lima', email: 'ana@person.example' } });
    expect(clone).toMatchObject({ kind: 'clone', status: 'awaiting_consent' });
    expect(clone.lastResponse.status).toBe(202);
    expect(clone.consent_url).toMatch(/^http/);
    const consented = await tolk.testHelpers.voices.completeConsent(clone.id);
    expect(consented.status).toBe('processing');
    expect((await tolk.voices.retrieve(clone.id)).id).toBe(clone.id);
    expect((await tolk.voices.list()).map((v) => v.id)).toEqual(expect.arrayContaining([generic.id, clone.id]));
    expect(await tolk.voices.del(clone.id)).toMatchObject({ id: clone.id, status: 'revoked' });
  });

  it('an agent session: join, say, listen until it ends, leave; its transcript', async () => {
    const room = await tolk.rooms.create({ title: 'Agents', langs: ['en', 'es'] });
    const session = await tolk.sessions.join(room.id, { name: 'Ana Bot', speak_lang: 'en', hear_lang: 'en' });
    expect(session).toMatchObject({ room_id: room.id, status: 'active' });
    expect((await tolk.sessions.retrieve(session.id)).id).toBe(session.id);
    const said = await tolk.sessions.say(session.id, { text: 'Good morning, everyone.' });
    expect(said.lastResponse.status).toBe(202);
    expect(said.utterance_id).toBeTruthy();
    // The robots' first phrase comes within seconds; a loaded machine may take longer than a short wait.
    const first = await tolk.sessions.events(session.id, { cursor: 0, wait: 25 });
    expect(first.events.length).toBeGreaterThan(0);

    // The listener reads from the start: both robots, then the session is left from inside the loop and the loop ends.
    const heard: SessionEvent[] = [];
    const listener = tolk.sessions.listen(session.id, { wait: 5 });
    for await (const e of listener) {
      heard.push(e);
      if (heard.some((x) => x.speaker === 'Robot A') && heard.some((x) => x.speaker === 'Robot B') && listener.status !== 'ended') {
        await tolk.sessions.leave(session.id);
      }
    }
    expect(listener.status).toBe('ended');
    expect(heard.map((e) => e.id)).toEqual([...heard.map((e) => e.id)].sort((a, b) => a - b));
    expect(new Set(heard.map((e) => e.id)).size).toBe(heard.length);
    expect(heard.map((e) => e.id).slice(0, first.events.length)).toEqual(first.events.map((e) => e.id));
    expect(listener.cursor).toBeGreaterThanOrEqual(heard.at(-1)!.id);

    const again = await tolk.sessions.say(session.id, { text: 'Still here?' }).catch((e: unknown) => e);
    expect(again).toMatchObject({ status: 409, code: 'session_ended' });

    const transcripts = await until('the session\'s transcript', async () => {
      const list = await tolk.transcripts.list({ room_id: room.id });
      return list.length > 0 ? list : null;
    }, 20_000);
    expect(transcripts).toHaveLength(1);
    const transcript = await tolk.transcripts.retrieve(transcripts[0]!.id, { lang: 'es' });
    expect(transcript.lang).toBe('es');
    expect(transcript.segments.map((s) => s.untrusted_content.text)).toContain('Good morning, everyone.');
  });

  it('calls: quote, place, read, list, hang up; numbers and avatars', async () => {
    const quote = await tolk.calls.quote({ to: '+14155550123', purpose: 'support', consent: 'prior_express' });
    expect(quote).toMatchObject({ country: 'US', allowed: true });
    const call = await tolk.calls.create({ to: '+14155550123', purpose: 'support', consent: { kind: 'prior_express', ref: 'crm-1' } });
    expect(call.id).toMatch(/^call_/);
    expect(call.ai_disclosure).toBe(true);
    expect((await tolk.calls.retrieve(call.id)).id).toBe(call.id);
    expect((await tolk.calls.list()).map((c) => c.id)).toContain(call.id);
    const hung = await tolk.calls.hangup(call.id);
    expect(hung.id).toBe(call.id);
    expect(hung.ended_at ?? null).not.toBeNull();
    // Hanging up again is idempotent: the ended call as it is.
    expect(await tolk.calls.hangup(call.id)).toEqual(hung);

    const numbers = await tolk.numbers.list();
    expect(numbers.at(-1)).toMatchObject({ shared: true, status: 'active' });
    const avatars = await tolk.avatars.list();
    expect(avatars.map((a) => a.id)).toEqual(AVATARS.map((a) => a.id));
  });

  it('webhook endpoints, deliveries, the event log', async () => {
    const endpoint = await tolk.webhookEndpoints.create({ url: rx.url, events: ['room.started', 'meeting.created'], description: 'sdk' });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await tolk.webhookEndpoints.list()).map((e) => e.id)).toContain(endpoint.id);
    const test = await tolk.webhookEndpoints.test(endpoint.id);
    expect(test).toMatchObject({ ok: true, status: 200 });
    const deliveries = await tolk.webhookEndpoints.listDeliveries(endpoint.id);
    expect(deliveries.map((d) => d.id)).toContain(test.delivery_id);
    const resent = await tolk.webhookEndpoints.resendDelivery(endpoint.id, test.delivery_id);
    expect(resent.ok).toBe(true);
    const rotated = await tolk.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(await tolk.webhookEndpoints.del(endpoint.id)).toEqual({ id: endpoint.id, deleted: true });

    const events = await tolk.events.list({ type: 'room.*', limit: 100 });
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e) => e.type.startsWith('room.'))).toBe(true);
  });

  it('errors are typed and name the field; a key without the permission is refused with its scope', async () => {
    const bad = await tolk.rooms.create({ title: 'x'.repeat(121) }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(TolkInvalidRequestError);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
    expect((bad as Error).message).toContain('title');
    const reader = await t.key({ org: orgId, permissions: 'calls:read' });
    const denied = await new Tolk(reader.secret, { baseUrl: t.url }).voices.list().catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(TolkPermissionError);
    expect(denied).toMatchObject({ status: 403, code: 'insufficient_scope' });
  });

  it('every operation of the OpenAPI document went through a client method', () => {
    expect([...sent].sort()).toEqual(templates.map((x) => x.op).sort());
  });
});
