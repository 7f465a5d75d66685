import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createEventType, createKey, createOrg } from '../../src/cli/admin.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDb, type TestResponse } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';

// Booking links, their free slots and bookings through the real HTTP API
// (api.md: Event type, Slots, Booking; GET /v1/event-types, GET
// /v1/event-types/{id}/slots, POST /v1/bookings; errors 404, 409 slot_taken,
// 503 booking_unavailable), with the pg-boss workers running. What is checked
// is what a host or a guest would notice: the slots offered, the meeting
// created, the mails sent, the events written; and after every refusal,
// that nothing was left half-made.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 90_000 });

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ workers: true }); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': randomUUID() });
const suffix = () => randomBytes(4).toString('hex');

/** A new organization with a test key (a high rate limit: these tests send many requests). */
async function org(o: { ownerEmail?: string } = {}) {
  const k = await t.key({ rpm: 100_000 });
  if (o.ownerEmail) await t.pool.query(`UPDATE organizations SET owner_email = $2 WHERE id = $1`, [k.orgId, o.ownerEmail]);
  return k;
}

type LinkOpts = { page?: string; slug?: string; title?: string; duration?: number; tz?: string; hours?: string; lang?: string };

/** A booking link made as the operator makes it (`tolk event-type create`). */
async function link(orgId: string, o: LinkOpts = {}) {
  const page = o.page ?? `host-${suffix()}`;
  const slug = o.slug ?? 'intro';
  const title = o.title ?? 'Intro call';
  const made = await createEventType(t.pool, t.config.publicBaseUrl, { ...o, org: orgId, page, slug, title });
  return { id: made.id, page, slug, title };
}

/** A date in zone tz, `days` after today there. */
function hostDate(tz: string, days: number): string {
  return DateTime.now().setZone(tz).startOf('day').plus({ days }).toISODate()!;
}

/** Local wall time `hhmm` of `date` in tz, as the API writes instants (ISO 8601 UTC, no milliseconds). */
function instant(tz: string, date: string, hhmm: string): string {
  return DateTime.fromISO(`${date}T${hhmm}`, { zone: tz }).toUTC().toISO({ suppressMilliseconds: true })!;
}

/** Every date from..to (inclusive). */
function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = DateTime.fromISO(from); d.toISODate()! <= to; d = d.plus({ days: 1 })) out.push(d.toISODate()!);
  return out;
}

async function getSlots(key: string, id: string, q: Record<string, string> = {}): Promise<TestResponse> {
  const qs = new URLSearchParams(q).toString();
  return t.request('GET', `/v1/event-types/${id}/slots${qs ? `?${qs}` : ''}`, { key });
}

async function slots(key: string, id: string, q: Record<string, string> = {}): Promise<{ tz: string; duration_min: number; slots: string[]; full_days: string[] }> {
  const res = await getSlots(key, id, q);
  expect(res.status).toBe(200);
  return res.json();
}

type GuestIn = { name?: string; email?: string; speak?: string; hear?: string; tz?: string; locale?: string };

function guest(o: GuestIn = {}): GuestIn {
  return { name: 'Ana Guest', email: `guest-${suffix()}@guest.example`, speak: 'en', ...o };
}

function book(key: string, body: Record<string, unknown>, headers: Record<string, string> = idem()): Promise<TestResponse> {
  return t.request('POST', '/v1/bookings', { key, headers, body });
}

/** A problem+json answer with this status and code, whose message names `field` first. */
async function expectProblem(res: TestResponse, status: number, code: string, field?: string): Promise<{ message: string }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = await res.json();
  expect(body).toMatchObject({ status, code, title: code, request_id: expect.stringMatching(/^req_/) });
  if (field) expect(body.message.startsWith(`${field}: `), `message '${body.message}' names ${field}`).toBe(true);
  return body;
}

/** Rows a booking creates, wherever they are: compared before and after a refusal. */
async function everything() {
  const { rows } = await t.pool.query(`SELECT
      (SELECT count(*)::int FROM bookings) AS bookings,
      (SELECT count(*)::int FROM rooms) AS rooms,
      (SELECT count(*)::int FROM actors) AS actors,
      (SELECT count(*)::int FROM mail_outbox) AS mails,
      (SELECT count(*)::int FROM outbox) AS events,
      (SELECT count(*)::int FROM pgboss.job WHERE name = 'meeting-timer') AS timers`);
  return rows[0];
}

const roomIdOf = (roomUrl: string) => new URL(roomUrl).pathname.slice(3);

async function mailsTo(...addrs: string[]) {
  const { rows } = await t.pool.query(
    `SELECT lower(to_addr) AS to, subject, text, ics, ics_method, status, livemode, org_id FROM mail_outbox
      WHERE lower(to_addr) = ANY($1) ORDER BY id`,
    [addrs.map((a) => a.toLowerCase())],
  );
  return rows;
}

describe('GET /v1/event-types', () => {
  it("lists the organization's booking links with every field, the url on the public base, and no other organization's", async () => {
    const a = await org();
    const b = await org();
    const page = `team-${suffix()}`;
    const intro = await link(a.orgId, { page, slug: 'intro', title: 'Intro call', duration: 20, tz: 'Europe/Lisbon', hours: 'mon-fri 09:00-12:00' });
    const demo = await link(a.orgId, { page, slug: 'demo', title: 'Product demo', duration: 60 });
    await t.pool.query(`UPDATE event_types SET active = false WHERE id = $1`, [demo.id]);
    const theirs = await link(b.orgId, { title: 'Not yours' });

    const res = await t.request('GET', '/v1/event-types', { key: a.secret });
    expect(res.status).toBe(200);
    const body = await res.json();
    const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);
    expect(t.config.publicBaseUrl).toBe(t.url);
    expect([...body.data].sort(byId)).toEqual([
      { id: intro.id, title: 'Intro call', duration_min: 20, page, slug: 'intro', url: `${t.url}/book/${page}/intro`, active: true },
      { id: demo.id, title: 'Product demo', duration_min: 60, page, slug: 'demo', url: `${t.url}/book/${page}/demo`, active: false },
    ].sort(byId));

    const other = await (await t.request('GET', '/v1/event-types', { key: b.secret })).json();
    expect(other.data.map((e: { id: string }) => e.id)).toEqual([theirs.id]);
    const none = await (await t.request('GET', '/v1/event-types', { key: (await org()).secret })).json();
    expect(none).toEqual({ data: [] });
  });
});

describe('GET /v1/event-types/{id}/slots', () => {
  it("lists UTC instants on the link's grid, inside its working hours in the host's zone, every working day", async () => {
    const tz = 'Asia/Kolkata';
    const host = await org();
    const l = await link(host.orgId, { tz, duration: 45, hours: 'mon-fri 09:00-17:00' });
    const from = hostDate(tz, 1);
    const to = hostDate(tz, 14);
    const s = await slots(host.secret, l.id, { from, to });
    expect(s.tz).toBe(tz);
    expect(s.duration_min).toBe(45);
    expect(s.full_days).toEqual([]);
    expect([...s.slots].sort()).toEqual(s.slots);
    const byDate = new Map<string, string[]>();
    for (const iso of s.slots) {
      expect(iso).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
      const local = DateTime.fromISO(iso, { zone: tz });
      byDate.set(local.toISODate()!, [...(byDate.get(local.toISODate()!) ?? []), local.toFormat('HH:mm')]);
    }
    // Every weekday of the range, none of the weekend, each with the whole grid:
    // every 45 minutes from 09:00 while the meeting still ends by 17:00.
    const weekdays = datesBetween(from, to).filter((d) => DateTime.fromISO(d).weekday <= 5);
    expect([...byDate.keys()]).toEqual(weekdays);
    for (const starts of byDate.values()) {
      expect(starts).toEqual(['09:00', '09:45', '10:30', '11:15', '12:00', '12:45', '13:30', '14:15', '15:00', '15:45']);
    }
    // 09:00 in Kolkata is 03:30 UTC.
    expect(s.slots[0]).toBe(instant(tz, weekdays[0]!, '09:00'));
    expect(s.slots[0]!.slice(11)).toBe('03:30:00Z');
  });

  it("defaults to the next 7 days in the host's zone, and offers nothing within the next hour", async () => {
    // UTC+14: the host's today is not UTC's for most of the day.
    const tz = 'Pacific/Kiritimati';
    const host = await org();
    const l = await link(host.orgId, { tz, duration: 30, hours: 'mon-sun 00:00-24:00' });
    const before = Date.now();
    const def = await slots(host.secret, l.id);
    const after = Date.now();
    const today = hostDate(tz, 0);
    const last = hostDate(tz, 6);
    expect(def).toMatchObject({ tz, duration_min: 30, full_days: [] });

    // No slot within the hour; the first one is the first start of the grid after it.
    const first = Date.parse(def.slots[0]!);
    expect(first).toBeGreaterThanOrEqual(before + 3600_000);
    expect(first).toBeLessThan(after + 3600_000 + 30 * 60_000);
    for (const iso of def.slots) expect(Date.parse(iso)).toBeGreaterThanOrEqual(before + 3600_000);

    // The dates covered: today (what is left of it) to today + 6, in the
    // host's zone: every start of the grid from the first one on.
    const week = datesBetween(today, last);
    const grid = week.flatMap((d) => Array.from({ length: 48 }, (_, i) => instant(tz, d, `${String(Math.floor(i / 2)).padStart(2, '0')}:${i % 2 ? '30' : '00'}`)));
    expect(def.slots).toEqual(grid.filter((iso) => Date.parse(iso) >= first));
    expect(def.slots.at(-1)).toBe(instant(tz, last, '23:30'));
    // The same as asking for that week, from=today and to=today+6 (past a start
    // the notice may have reached between the two requests).
    const explicit = await slots(host.secret, l.id, { from: today, to: last });
    const later = (list: string[]) => list.filter((iso) => Date.parse(iso) > first);
    expect(later(explicit.slots)).toEqual(later(def.slots));
    expect(later(def.slots).length).toBeGreaterThanOrEqual(5 * 48);

    // `to` is inclusive.
    const d = hostDate(tz, 2);
    const one = await slots(host.secret, l.id, { from: d, to: d });
    expect(one.slots).toHaveLength(48);
    expect(one.slots[0]).toBe(instant(tz, d, '00:00'));
    expect(one.slots.at(-1)).toBe(instant(tz, d, '23:30'));
    const two = await slots(host.secret, l.id, { from: d, to: hostDate(tz, 3) });
    expect(two.slots).toHaveLength(96);
    expect(two.slots.slice(0, 48)).toEqual(one.slots);
  });

  it('refuses bad ranges naming the parameter, and answers 404 for a link that is not the caller\'s', async () => {
    const tz = 'Europe/Lisbon';
    const host = await org();
    const l = await link(host.orgId, { tz });
    const from = hostDate(tz, 1);
    const plus = (days: number) => DateTime.fromISO(from).plus({ days }).toISODate()!;
    // 62 days, both ends included, is the most.
    expect((await getSlots(host.secret, l.id, { from, to: plus(61) })).status).toBe(200);
    await expectProblem(await getSlots(host.secret, l.id, { from, to: plus(62) }), 400, 'invalid_request', 'to');
    await expectProblem(await getSlots(host.secret, l.id, { from: plus(1), to: from }), 400, 'invalid_request', 'to');
    await expectProblem(await getSlots(host.secret, l.id, { from: '2026-02-30' }), 400, 'invalid_request', 'from');
    await expectProblem(await getSlots(host.secret, l.id, { from: 'tomorrow' }), 400, 'invalid_request', 'from');
    await expectProblem(await getSlots(host.secret, l.id, { from, to: '2026-13-01' }), 400, 'invalid_request', 'to');

    await expectProblem(await getSlots(host.secret, 'et_doesnotexist000000'), 404, 'not_found');
    const other = await org();
    const theirs = await link(other.orgId);
    await expectProblem(await getSlots(host.secret, theirs.id), 404, 'not_found');
    // The owner sees it.
    expect((await getSlots(other.secret, theirs.id)).status).toBe(200);
  });

  it("removes exactly the slots that overlap the host's bookings and its organization's meetings", async () => {
    const tz = 'America/Sao_Paulo';
    const host = await org();
    const l = await link(host.orgId, { tz, duration: 30, hours: 'mon-sun 09:00-17:00' });
    const d = hostDate(tz, 3);
    const range = { from: d, to: d };
    const before = (await slots(host.secret, l.id, range)).slots;
    expect(before).toHaveLength(16);
    const at = (hhmm: string) => instant(tz, d, hhmm);

    // A booking of 10:00-10:30.
    const booked = await book(host.secret, { event_type_id: l.id, start: at('10:00'), guest: guest() });
    expect(booked.status).toBe(201);
    // A meeting of the host's organization, 13:15-14:00 local: 13:00 and 13:30 overlap it, 14:00 starts as it ends.
    const meeting = await t.request('POST', '/v1/meetings', {
      key: host.secret, headers: idem(),
      body: { title: 'Team sync', starts_at: DateTime.fromISO(`${d}T13:15`, { zone: tz }).toISO(), duration_min: 45 },
    });
    expect(meeting.status).toBe(201);
    const meetingId = (await meeting.json()).id;
    // Not the host's: another organization's meeting, and the host organization's live-mode meeting.
    const other = await org();
    const live = await t.key({ org: host.orgId, mode: 'live', rpm: 100_000 });
    for (const key of [other.secret, live.secret]) {
      const r = await t.request('POST', '/v1/meetings', { key, headers: idem(), body: { title: 'Elsewhere', starts_at: at('15:00'), duration_min: 60 } });
      expect(r.status).toBe(201);
    }
    // A canceled meeting frees its time.
    const canceled = await t.request('POST', '/v1/meetings', { key: host.secret, headers: idem(), body: { title: 'Dropped', starts_at: at('11:00'), duration_min: 30 } });
    expect((await t.request('DELETE', `/v1/meetings/${(await canceled.json()).id}`, { key: host.secret })).status).toBe(200);

    const after = (await slots(host.secret, l.id, range)).slots;
    expect(after).toEqual(before.filter((s) => ![at('10:00'), at('13:00'), at('13:30')].includes(s)));

    // Canceling the meeting gives its slots back.
    expect((await t.request('DELETE', `/v1/meetings/${meetingId}`, { key: host.secret })).status).toBe(200);
    expect((await slots(host.secret, l.id, range)).slots).toEqual(before.filter((s) => s !== at('10:00')));
  });

  it('lists a fully booked day in full_days', async () => {
    const tz = 'Europe/Berlin';
    const host = await org();
    const l = await link(host.orgId, { tz, duration: 30, hours: 'mon-sun 10:00-11:00' });
    const d = hostDate(tz, 2);
    const next = hostDate(tz, 3);
    const range = { from: d, to: next };
    const before = await slots(host.secret, l.id, range);
    expect(before.full_days).toEqual([]);
    expect(before.slots).toEqual([instant(tz, d, '10:00'), instant(tz, d, '10:30'), instant(tz, next, '10:00'), instant(tz, next, '10:30')]);
    for (const hhmm of ['10:00', '10:30']) {
      expect((await book(host.secret, { event_type_id: l.id, start: instant(tz, d, hhmm), guest: guest() })).status).toBe(201);
    }
    const after = await slots(host.secret, l.id, range);
    expect(after.full_days).toEqual([d]);
    expect(after.slots).toEqual([instant(tz, next, '10:00'), instant(tz, next, '10:30')]);
  });
});

describe('POST /v1/bookings', () => {
  it("books a slot: a scheduled meeting with the guest's and host's languages, booking.created, invitations to guest and host, the actor confirmed", async () => {
    const tz = 'Europe/Lisbon';
    const ownerEmail = `owner-${suffix()}@host.example`;
    const host = await org({ ownerEmail });
    const l = await link(host.orgId, { tz, duration: 45, hours: 'mon-sun 09:00-17:00', lang: 'pt', title: 'Consulta' });
    const d = hostDate(tz, 2);
    const free = (await slots(host.secret, l.id, { from: d, to: d })).slots;
    const start = free[2]!;
    const g = guest({ name: 'Ana Guest', speak: 'en', hear: 'es', tz: 'America/New_York', locale: 'en-US' });
    const before = await everything();

    const res = await book(host.secret, { event_type_id: l.id, start, guest: g, answers: { topic: 'pricing' } });
    expect(res.status).toBe(201);
    const b = await res.json();
    expect(Object.keys(b).sort()).toEqual(['id', 'livemode', 'manage_url', 'room_url', 'start']);
    expect(b).toMatchObject({ start, livemode: false });
    expect(b.id).toMatch(/^bk_/);
    // The guest's own join link: the meeting is private.
    expect(b.room_url).toMatch(new RegExp(`^${t.url}/r/room_\\w+\\?t=`));
    expect(b.manage_url).toMatch(new RegExp(`^${t.url}/bookings/manage/[A-Za-z0-9_-]{20,64}$`));
    const roomId = roomIdOf(b.room_url);

    // The meeting, as the host sees it.
    const room = await (await t.request('GET', `/v1/rooms/${roomId}`, { key: host.secret })).json();
    expect(room).toMatchObject({ id: roomId, url: `${t.url}/r/${roomId}`, status: 'scheduled', duration_min: 45, livemode: false, visibility: 'private' });
    expect(new Date(room.starts_at).getTime()).toBe(Date.parse(start));
    expect([...room.langs].sort()).toEqual(['en', 'es', 'pt']);
    expect(room.invitees.map((e: string) => e.toLowerCase()).sort()).toEqual([g.email!, ownerEmail].sort());
    expect(room.title).toContain('Consulta');
    const meetings = await (await t.request('GET', '/v1/meetings', { key: host.secret })).json();
    expect(meetings.data.map((m: { id: string }) => m.id)).toEqual([roomId]);

    // Events: booking.created (and the meeting's meeting.created) to the host's organization.
    const { rows: events } = await t.pool.query(`SELECT org_id, livemode, type, object_id, data FROM outbox WHERE object_id = ANY($1) ORDER BY id`, [[b.id, roomId]]);
    expect(events.map((e) => [e.type, e.org_id, e.livemode, e.object_id])).toEqual([
      ['meeting.created', host.orgId, false, roomId],
      ['booking.created', host.orgId, false, b.id],
    ]);
    expect(events[1].data.object).toMatchObject({ id: b.id, status: 'confirmed', room_id: roomId, start, event_type_id: l.id });

    // Invitations to the guest and to the host's owner address, kept (test mode).
    const mails = await mailsTo(g.email!, ownerEmail);
    expect(mails.map((m) => m.to).sort()).toEqual([g.email!, ownerEmail].sort());
    for (const m of mails) {
      expect(m).toMatchObject({ status: 'kept', livemode: false, ics_method: 'REQUEST', org_id: host.orgId });
      expect(m.subject).toMatch(/^Invitation: Consulta: Ana Guest @ /);
      expect(m.text).toContain(`${t.url}/r/${roomId}?t=`);
      expect(m.ics).toContain('METHOD:REQUEST');
    }
    // The guest is told the time in their own zone too.
    expect(mails.find((m) => m.to === g.email)!.text).toContain('America/New_York');

    // The persisted actor (tolk actors show) and the row.
    const { rows: [actor] } = await t.pool.query(`SELECT machine, state, version, org_id, livemode FROM actors WHERE id = $1`, [b.id]);
    expect(actor).toEqual({ machine: 'booking', state: 'confirmed', version: 1, org_id: host.orgId, livemode: false });
    const { rows: [row] } = await t.pool.query(`SELECT status, room_id, start_at, org_id, booker_org_id, guest_email, guest_tz, guest_locale, answers FROM bookings WHERE id = $1`, [b.id]);
    expect(row).toMatchObject({ status: 'confirmed', room_id: roomId, org_id: host.orgId, booker_org_id: host.orgId, guest_tz: 'America/New_York', guest_locale: 'en-US', answers: { topic: 'pricing' } });
    expect(row.start_at.getTime()).toBe(Date.parse(start));

    // Exactly one of each, nothing else.
    const after = await everything();
    expect({ bookings: after.bookings - before.bookings, rooms: after.rooms - before.rooms, actors: after.actors - before.actors, mails: after.mails - before.mails, events: after.events - before.events })
      .toEqual({ bookings: 1, rooms: 1, actors: 2, mails: 2, events: 2 });

    // The slot is no longer offered; every other one still is.
    expect((await slots(host.secret, l.id, { from: d, to: d })).slots).toEqual(free.filter((s) => s !== start));
  });

  it("books another organization's link by page and event: the meeting is the host's, booking.created goes to both", async () => {
    const tz = 'Asia/Tokyo';
    const ownerEmail = `owner-${suffix()}@host.example`;
    const host = await org({ ownerEmail });
    const booker = await org();
    const l = await link(host.orgId, { tz, duration: 30, hours: 'mon-sun 09:00-17:00', lang: 'ja' });
    const d = hostDate(tz, 2);
    const start = instant(tz, d, '11:30');
    const g = guest({ speak: 'fr' });

    const res = await book(booker.secret, { page: l.page, event: l.slug, start, guest: g });
    expect(res.status).toBe(201);
    const b = await res.json();
    expect(b).toMatchObject({ start, livemode: false });
    const roomId = roomIdOf(b.room_url);

    // The meeting is in the host's organization: the host sees it, the booker does not.
    const hostView = await t.request('GET', `/v1/rooms/${roomId}`, { key: host.secret });
    expect(hostView.status).toBe(200);
    expect(await hostView.json()).toMatchObject({ status: 'scheduled', duration_min: 30, langs: expect.arrayContaining(['fr', 'ja']) });
    await expectProblem(await t.request('GET', `/v1/rooms/${roomId}`, { key: booker.secret }), 404, 'not_found');
    const { rows: [room] } = await t.pool.query(`SELECT org_id FROM rooms WHERE id = $1`, [roomId]);
    expect(room.org_id).toBe(host.orgId);
    const { rows: [actor] } = await t.pool.query(`SELECT machine, state, org_id FROM actors WHERE id = $1`, [b.id]);
    expect(actor).toEqual({ machine: 'booking', state: 'confirmed', org_id: host.orgId });

    // booking.created to both organizations; the meeting's own event to the host only.
    const { rows: events } = await t.pool.query(`SELECT org_id, type FROM outbox WHERE object_id = ANY($1) ORDER BY type, org_id`, [[b.id, roomId]]);
    expect(events).toEqual([
      ...[host.orgId, booker.orgId].sort().map((o) => ({ org_id: o, type: 'booking.created' })),
      { org_id: host.orgId, type: 'meeting.created' },
    ]);
    // Guest and host are invited.
    expect((await mailsTo(g.email!, ownerEmail)).map((m) => m.to).sort()).toEqual([g.email!, ownerEmail].sort());
    // The host's slot is taken, for the host too.
    expect((await slots(host.secret, l.id, { from: d, to: d })).slots).not.toContain(start);
    // The booker cannot read the host's link by id.
    await expectProblem(await getSlots(booker.secret, l.id), 404, 'not_found');
    await expectProblem(await book(booker.secret, { event_type_id: l.id, start: instant(tz, d, '12:00'), guest: guest() }), 404, 'not_found');
  });

  it('refuses bad requests naming the field, and leaves nothing half-made', async () => {
    const tz = 'Asia/Kolkata';
    const host = await org();
    const l = await link(host.orgId, { tz, duration: 30, hours: 'mon-sun 09:00-17:00' });
    const allDay = await link(host.orgId, { tz: 'UTC', duration: 30, hours: 'mon-sun 00:00-24:00', slug: 'all-day' });
    const paused = await link(host.orgId, { slug: 'paused' });
    await t.pool.query(`UPDATE event_types SET active = false WHERE id = $1`, [paused.id]);
    const d = hostDate(tz, 2);
    const good = instant(tz, d, '10:00');
    const base = { event_type_id: l.id, start: good, guest: guest() };
    const before = await everything();
    const unchanged = async (what: string) => expect(await everything(), `nothing made by: ${what}`).toEqual(before);

    const cases: Array<[string, Record<string, unknown>, number, string, string?]> = [
      ['both event_type_id and page', { ...base, page: l.page, event: l.slug }, 400, 'invalid_request', 'page'],
      ['neither event_type_id nor page', { start: good, guest: guest() }, 400, 'invalid_request', 'event_type_id'],
      ['page without event', { page: l.page, start: good, guest: guest() }, 400, 'invalid_request', 'event'],
      ['event without page', { event: l.slug, start: good, guest: guest() }, 400, 'invalid_request', 'page'],
      ['an unknown page', { page: `nobody-${suffix()}`, event: l.slug, start: good, guest: guest() }, 404, 'not_found'],
      ['an unknown event', { page: l.page, event: 'nothing', start: good, guest: guest() }, 404, 'not_found'],
      ['an unknown event_type_id', { ...base, event_type_id: 'et_doesnotexist000000' }, 404, 'not_found'],
      ['a start off the grid', { ...base, start: instant(tz, d, '10:10') }, 400, 'invalid_request', 'start'],
      ['a start outside working hours', { ...base, start: instant(tz, d, '20:00') }, 400, 'invalid_request', 'start'],
      ['a start in the past', { ...base, start: instant(tz, hostDate(tz, -1), '10:00') }, 400, 'invalid_request', 'start'],
      [
        'a start within the notice',
        // The next half hour, on the grid of a link open all day: less than an hour away.
        { ...base, event_type_id: allDay.id, start: new Date(Math.ceil((Date.now() + 60_000) / 1_800_000) * 1_800_000).toISOString().replace('.000Z', 'Z') },
        400, 'invalid_request', 'start',
      ],
      ['a start without offset', { ...base, start: `${d}T10:00:00` }, 400, 'invalid_request', 'start'],
      ['a start that is no date', { ...base, start: 'next tuesday' }, 400, 'invalid_request', 'start'],
      ['guest.tz Mars/Base', { ...base, guest: guest({ tz: 'Mars/Base' }) }, 400, 'invalid_request', 'guest.tz'],
      ['a guest name of 81 characters', { ...base, guest: guest({ name: 'n'.repeat(81) }) }, 400, 'invalid_request', 'guest.name'],
      ['a guest email of 255 characters', { ...base, guest: guest({ email: `${'e'.repeat(243)}@example.com` }) }, 400, 'invalid_request', 'guest.email'],
      ['a guest without speak', { ...base, guest: { name: 'No Lang', email: 'nolang@guest.example' } }, 400, 'invalid_request', 'guest.speak'],
      ['a guest locale of 9 characters', { ...base, guest: guest({ locale: 'en-US-xyz' }) }, 400, 'invalid_request', 'guest.locale'],
      ['no guest', { event_type_id: l.id, start: good }, 400, 'invalid_request', 'guest'],
      ['a paused link', { ...base, event_type_id: paused.id, start: instant('UTC', hostDate('UTC', 2), '10:00') }, 503, 'booking_unavailable'],
    ];
    expect(`${'e'.repeat(243)}@example.com`).toHaveLength(255);
    for (const [what, body, status, code, field] of cases) {
      const res = await book(host.secret, body);
      const problem = await expectProblem(res, status, code, field);
      expect(problem.message.length, what).toBeGreaterThan(0);
      await unchanged(what);
    }
    // A paused link says when to come back.
    const pausedRes = await book(host.secret, { ...base, event_type_id: paused.id });
    expect(pausedRes.status).toBe(503);
    expect(pausedRes.headers.get('retry-after')).toBeTruthy();
    await unchanged('a paused link');
    // And the slot those requests aimed at is still free.
    expect((await slots(host.secret, l.id, { from: d, to: d })).slots).toContain(good);
    // A suspended host takes no bookings, from anyone, until it is active again.
    const booker = await org();
    await t.pool.query(`UPDATE organizations SET status = 'suspended' WHERE id = $1`, [host.orgId]);
    await expectProblem(await book(booker.secret, { page: l.page, event: l.slug, start: good, guest: guest() }), 503, 'booking_unavailable');
    await unchanged('a suspended host');
    await t.pool.query(`UPDATE organizations SET status = 'active' WHERE id = $1`, [host.orgId]);
    expect((await book(booker.secret, { page: l.page, event: l.slug, start: good, guest: guest() })).status).toBe(201);
  });

  it('replays the same booking for the same Idempotency-Key and body, and makes nothing more', async () => {
    const tz = 'Europe/Madrid';
    const host = await org();
    const l = await link(host.orgId, { tz, hours: 'mon-sun 09:00-17:00' });
    const d = hostDate(tz, 2);
    const body = { event_type_id: l.id, start: instant(tz, d, '09:30'), guest: guest() };
    const headers = idem();
    const first = await book(host.secret, body, headers);
    expect(first.status).toBe(201);
    const made = await first.json();
    const after = await everything();

    const replay = await book(host.secret, body, headers);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(made);
    expect(await everything()).toEqual(after);

    // The same key with another body is refused; a new key for the same slot finds it taken.
    await expectProblem(await book(host.secret, { ...body, start: instant(tz, d, '10:00') }, headers), 409, 'idempotency_mismatch');
    const again = await expectProblem(await book(host.secret, body), 409, 'slot_taken');
    expect(again.message).toContain(body.start);
    expect(await everything()).toEqual(after);
    const { rows } = await t.pool.query(`SELECT id FROM bookings WHERE event_type_id = $1`, [l.id]);
    expect(rows).toEqual([{ id: made.id }]);
  });

  it('keeps modes apart: a slot booked in test mode is still free for a live key, whose booking makes live-mode mail', async () => {
    const tz = 'Europe/Paris';
    const ownerEmail = `owner-${suffix()}@host.example`;
    const host = await org({ ownerEmail });
    const live = await t.key({ org: host.orgId, mode: 'live', rpm: 100_000 });
    const l = await link(host.orgId, { tz, hours: 'mon-sun 09:00-17:00' });
    const d = hostDate(tz, 2);
    const range = { from: d, to: d };
    const start = instant(tz, d, '14:00');

    const testGuest = guest();
    const testBooking = await book(host.secret, { event_type_id: l.id, start, guest: testGuest });
    expect(testBooking.status).toBe(201);
    expect((await testBooking.json()).livemode).toBe(false);
    expect((await slots(host.secret, l.id, range)).slots).not.toContain(start);
    expect((await slots(live.secret, l.id, range)).slots).toContain(start);

    const liveGuest = guest();
    const res = await book(live.secret, { event_type_id: l.id, start, guest: liveGuest });
    expect(res.status).toBe(201);
    const b = await res.json();
    expect(b).toMatchObject({ start, livemode: true });
    expect((await slots(live.secret, l.id, range)).slots).not.toContain(start);
    await expectProblem(await book(live.secret, { event_type_id: l.id, start, guest: guest() }), 409, 'slot_taken');

    // The live booking's meeting is a live room, seen by the live key only.
    const roomId = roomIdOf(b.room_url);
    expect(await (await t.request('GET', `/v1/rooms/${roomId}`, { key: live.secret })).json()).toMatchObject({ status: 'scheduled', livemode: true });
    await expectProblem(await t.request('GET', `/v1/rooms/${roomId}`, { key: host.secret }), 404, 'not_found');

    // Mail: the live booking's is live-mode mail (kept: this server has no SMTP_URL), the test booking's test-mode.
    expect(t.config.smtpUrl).toBeUndefined();
    const liveMail = await mailsTo(liveGuest.email!);
    expect(liveMail).toEqual([expect.objectContaining({ livemode: true, status: 'kept' })]);
    expect(await mailsTo(testGuest.email!)).toEqual([expect.objectContaining({ livemode: false, status: 'kept' })]);
    const ownerMail = await mailsTo(ownerEmail);
    expect(ownerMail.map((m) => m.livemode)).toEqual([false, true]);
    const { rows: events } = await t.pool.query(`SELECT livemode FROM outbox WHERE object_id = $1 AND type = 'booking.created'`, [b.id]);
    expect(events).toEqual([{ livemode: true }]);
  });
});

describe('twenty guests booking one slot at once, across two server processes on one database', () => {
  let db: TestDb;
  let pool: Pool;
  let servers: ServerProcess[] = [];
  let orgId: string;
  let secret: string;
  let eventTypeId: string;
  const tz = 'Europe/Madrid';
  const ownerEmail = `owner-${suffix()}@host.example`;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, 4);
    orgId = (await createOrg(pool, { name: 'Busy host', ownerEmail })).id;
    secret = (await createKey(pool, { org: orgId, mode: 'test', rpm: 100_000 })).secret;
    eventTypeId = (await createEventType(pool, 'http://127.0.0.1', { org: orgId, page: `busy-${suffix()}`, slug: 'call', title: 'Call', duration: 30, tz, hours: 'mon-sun 09:00-17:00' })).id;
    servers = await Promise.all([startServerProcess(db.url), startServerProcess(db.url)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    await pool?.end();
    await db?.drop();
  });

  it('gives exactly one 201 and nineteen 409 slot_taken; one booking, one meeting, the mails of one booking', async () => {
    const d = hostDate(tz, 2);
    const start = instant(tz, d, '12:00');
    const slotsOn = async (base: string) => {
      const res = await fetch(`${base}/v1/event-types/${eventTypeId}/slots?from=${d}&to=${d}`, { headers: { authorization: `Bearer ${secret}` } });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { slots: string[] }).slots;
    };
    for (const s of servers) expect(await slotsOn(s.base)).toContain(start);

    const guests = Array.from({ length: 20 }, (_, i) => `racer-${i}-${suffix()}@guest.example`);
    const answers = await Promise.all(guests.map(async (email, i) => {
      const res = await fetch(`${servers[i % 2]!.base}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ event_type_id: eventTypeId, start, guest: { name: `Racer ${i}`, email, speak: 'en' } }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any>, email };
    }));
    const won = answers.filter((a) => a.status === 201);
    const lost = answers.filter((a) => a.status !== 201);
    expect(won).toHaveLength(1);
    expect(lost.map((a) => [a.status, a.body.code])).toEqual(Array.from({ length: 19 }, () => [409, 'slot_taken']));
    const winner = won[0]!;
    expect(winner.body.start).toBe(start);
    const roomId = roomIdOf(winner.body.room_url);

    // One booking, one meeting (room and actor), one set of timers.
    const { rows: bookings } = await pool.query(`SELECT id, room_id, guest_email, status FROM bookings WHERE event_type_id = $1`, [eventTypeId]);
    expect(bookings).toEqual([{ id: winner.body.id, room_id: roomId, guest_email: winner.email, status: 'confirmed' }]);
    const { rows: rooms } = await pool.query(`SELECT id, status FROM rooms WHERE org_id = $1`, [orgId]);
    expect(rooms).toEqual([{ id: roomId, status: 'scheduled' }]);
    const { rows: actors } = await pool.query(`SELECT id, machine FROM actors WHERE org_id = $1 ORDER BY machine`, [orgId]);
    expect(actors).toEqual([{ id: winner.body.id, machine: 'booking' }, { id: roomId, machine: 'room' }]);
    const { rows: timers } = await pool.query(`SELECT DISTINCT data->>'roomId' AS room FROM pgboss.job WHERE name = 'meeting-timer'`);
    expect(timers).toEqual([{ room: roomId }]);
    // The events and mails of one booking: its guest and the host, no loser.
    const { rows: events } = await pool.query(`SELECT type, object_id FROM outbox WHERE org_id = $1 ORDER BY type`, [orgId]);
    expect(events).toEqual([{ type: 'booking.created', object_id: winner.body.id }, { type: 'meeting.created', object_id: roomId }]);
    const { rows: mails } = await pool.query(`SELECT lower(to_addr) AS to FROM mail_outbox ORDER BY to_addr`);
    expect(mails.map((m) => m.to)).toEqual([winner.email, ownerEmail].sort());

    // Neither process offers the slot any more.
    for (const s of servers) expect(await slotsOn(s.base)).not.toContain(start);
  });
});
