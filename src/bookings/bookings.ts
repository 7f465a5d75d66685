import { randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { organizationOf } from '../db/organizations.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { createPersistedActor, transition, writeEvent } from '../actors/store.ts';
import type { EventTypeName } from '../../machines/event-types.ts';
import { now, type Caller, type Services } from '../services.ts';
import { parseHours } from './hours.ts';
import { computeSlots, isOfferedSlot, isValidZone, slotsRange, type Busy } from './slots.ts';
import { armTimers, expiresAt, MEETING_COLUMNS, mailGuests, scheduleMeeting, type MeetingRow } from '../meetings/meetings.ts';
import { roomUrl, toRoom } from '../rooms/rooms.ts';
import { joinUrl, linkSigningKey } from '../rooms/join-links.ts';
import { takeQuotas, type Quota } from '../http/quotas.ts';
import type { z } from 'zod';
import type { Booking as BookingSchema, EventType as EventTypeSchema, Slots as SlotsSchema } from './schemas.ts';
import { writeRoomTranscript } from '../transcripts/transcripts.ts';

type Booking = z.infer<typeof BookingSchema>;
type EventType = z.infer<typeof EventTypeSchema>;
type Slots = z.infer<typeof SlotsSchema>;

// Booking links (event types), their free slots and bookings (api.md:
// Event type, Slots, Booking; GET /v1/event-types/{id}/slots, POST
// /v1/bookings). The host of a link is its page (a person or a team). A
// booking is an actor (machines/booking.ts) whose row holds its slot: the
// bookings table's exclusion constraint (bookings_no_overlap) makes two
// active bookings of one host that overlap impossible, whatever races, so a
// second booking of a slot fails at its INSERT and answers 409 slot_taken.
// Its meeting is a room scheduled in the host's organization
// (meetings/meetings.ts), created in the same transaction.

/** No slot starts sooner than this after now (minimum notice). */
export const NOTICE_MIN = 60;
/**
 * Nor later than this many days after now: the window the booking page
 * offers, and all a booking (by page or API) may take, so nobody can fill a
 * host's calendar years ahead. Calendly's and Cal.com's default is 60 days too.
 */
export const WINDOW_DAYS = 60;

/** The first instant no slot may start at or after: now + WINDOW_DAYS. */
export function windowEnd(at: Date): Date {
  return new Date(at.getTime() + WINDOW_DAYS * 86_400_000);
}
/** The longest meeting: a slot's neighbours within it can overlap it. */
const MAX_DURATION_MIN = 720;

export type EventTypeRow = {
  id: string;
  org_id: string;
  page: string;
  slug: string;
  title: string;
  duration_min: number;
  tz: string;
  hours: string;
  active: boolean;
  lang: string;
};

const ET_COLUMNS = 'id, org_id, page, slug, title, duration_min, tz, hours, active, lang';

export function bookingPageUrl(base: string, page: string, slug: string): string {
  return `${base}/book/${encodeURIComponent(page)}/${encodeURIComponent(slug)}`;
}

export function toEventType(base: string, r: EventTypeRow): EventType {
  return { id: r.id, title: r.title, duration_min: r.duration_min, page: r.page, slug: r.slug, url: bookingPageUrl(base, r.page, r.slug), active: r.active };
}

/** GET /v1/event-types: the organization's booking links. */
export async function listEventTypes(s: Services, cred: Caller): Promise<{ data: EventType[] }> {
  const { rows } = await s.pool.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE org_id = $1 ORDER BY created_at, id`, [cred.orgId]));
  return { data: rows.map((r) => toEventType(s.config.publicBaseUrl, r)) };
}

/** One of the caller's organization's booking links (404 otherwise). */
export async function ownEventType(db: Queryable, cred: Pick<Caller, 'orgId'>, id: string, field = 'id'): Promise<EventTypeRow> {
  if (!ID_PATTERN.test(id)) throw notFound(field === 'id' ? 'event type' : `event type (${field})`, id);
  const { rows } = await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1 AND org_id = $2`, [id, cred.orgId]));
  if (!rows[0]) throw notFound(field === 'id' ? 'event type' : `event type (${field})`, id);
  return rows[0];
}

/** A booking link by its page and slug, anyone's (the public link). */
export async function publicEventType(db: Queryable, page: string, slug: string): Promise<EventTypeRow | null> {
  const { rows } = await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE page = $1 AND slug = $2`, [page, slug]));
  return rows[0] ?? null;
}

/**
 * What keeps a host busy between from and to: its active bookings (of every
 * link of its page) and its organization's meetings that are not bookings
 * (a booking's meeting is counted as the booking; another page's bookings
 * are not this host's). `bookings: false`: the meetings alone.
 */
export async function busyOf(db: Queryable, et: EventTypeRow, livemode: boolean, from: Date, to: Date, o: { bookings?: boolean } = {}): Promise<Busy[]> {
  const { rows } = await db.query<{ s: Date; e: Date }>(prepared(
    `SELECT start_at AS s, end_at AS e FROM bookings
      WHERE $6::boolean AND host = $1 AND livemode = $2 AND status IN ('confirmed', 'rescheduled')
        AND tstzrange(start_at, end_at) && tstzrange($3, $4)
     UNION ALL
     SELECT r.starts_at, r.starts_at + r.duration_min * interval '1 minute' FROM rooms r
      WHERE r.org_id = $5 AND r.livemode = $2 AND r.kind = 'meeting' AND r.status IN ('scheduled', 'live')
        AND r.starts_at < $4 AND r.starts_at > $3::timestamptz - interval '${MAX_DURATION_MIN} minutes'
        AND r.starts_at + r.duration_min * interval '1 minute' > $3
        AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.room_id = r.id)`,
    [et.page, livemode, from, to, et.org_id, o.bookings ?? true],
  ));
  return rows.map((r) => ({ start: r.s, end: r.e }));
}

/** The instants a range of the host's dates covers, with a day of margin each side. */
function spanOf(tz: string, from: string, to: string): { from: Date; to: Date } {
  return {
    from: DateTime.fromISO(from, { zone: tz }).minus({ days: 1 }).toJSDate(),
    to: DateTime.fromISO(to, { zone: tz }).plus({ days: 2 }).toJSDate(),
  };
}

function hoursOf(et: EventTypeRow) {
  return parseHours(et.hours);
}

/** Free slots of a booking link for a mode, over a validated range of the host's dates. */
export async function slotsOf(s: Services, db: Queryable, et: EventTypeRow, livemode: boolean, range: { from: string; to: string }): Promise<Slots> {
  const span = spanOf(et.tz, range.from, range.to);
  const busy = await busyOf(db, et, livemode, span.from, span.to);
  const notBefore = new Date(now(s).getTime() + NOTICE_MIN * 60_000);
  const out = computeSlots({ tz: et.tz, durationMin: et.duration_min, hours: hoursOf(et), from: range.from, to: range.to, busy, notBefore, notAfter: windowEnd(now(s)) });
  return { tz: et.tz, duration_min: et.duration_min, slots: out.slots, full_days: out.full_days };
}

/** GET /v1/event-types/{id}/slots. */
export async function getSlots(s: Services, cred: Caller, id: string, q: { from?: string; to?: string }): Promise<Slots> {
  const et = await ownEventType(s.pool, cred, id);
  return slotsOf(s, s.pool, et, cred.livemode, slotsRange(q, et.tz, now(s)));
}

export type Guest = { name: string; email: string; speak: string; hear?: string; tz: string; locale: string };

export type BookingInput = {
  event_type_id?: string;
  page?: string;
  event?: string;
  start: string;
  guest: Guest;
  answers?: Record<string, unknown>;
};

/** Who books: an API credential, or a guest on the public booking page (live mode, the host's own organization). */
export type Booker = { id: string; orgId: string; livemode: boolean };

/** What a manage token can look like (randomBytes(24) in base64url); anything else is looked up nowhere. */
const MANAGE_TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

function manageUrl(base: string, token: string): string {
  return `${base}/bookings/manage/${token}`;
}

/**
 * A booking as POST /v1/bookings answers it. Its room_url is the guest's own
 * join link (name and languages prefilled, as in the invitation): the meeting
 * is private, and its bare url would let nobody in.
 */
export function toBooking(base: string, b: { id: string; room_id: string; manage_token: string; start_at: Date; livemode: boolean }, roomLink: string): Booking {
  return {
    id: b.id,
    room_url: roomLink,
    manage_url: manageUrl(base, b.manage_token),
    start: iso(b.start_at),
    livemode: b.livemode,
  };
}

/** ISO 8601 UTC without milliseconds, as slots are written. */
export function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$/;

/** Which link a booking is for: event_type_id (one's own), or page and event (anyone's). */
export async function resolveLink(db: Queryable, booker: Booker, input: Pick<BookingInput, 'event_type_id' | 'page' | 'event'>): Promise<EventTypeRow> {
  if (input.event_type_id !== undefined) {
    if (input.page !== undefined || input.event !== undefined) {
      throw invalid(input.page !== undefined ? 'page' : 'event', 'give either event_type_id (your own link) or page and event (another one), not both');
    }
    return ownEventType(db, booker, input.event_type_id, 'event_type_id');
  }
  if (input.page === undefined && input.event === undefined) throw invalid('event_type_id', 'required, or page and event to book another organization\'s link');
  if (input.page === undefined) throw invalid('page', 'required with event');
  if (input.event === undefined) throw invalid('event', 'required with page');
  const et = await publicEventType(db, input.page, input.event);
  if (!et) throw new ApiError('not_found', `No booking link '${input.event}' on page '${input.page}'`);
  return et;
}

/** The organization of a booking link: its name and owner's address (the host of its meetings). */
async function hostOf(tx: Queryable, orgId: string): Promise<{ name: string; email: string | null }> {
  const org = await organizationOf(tx, orgId);
  // A blocked or suspended host takes no bookings (its public page included) until the operator restores it.
  if (org?.status !== 'active') throw new ApiError('booking_unavailable', 'This booking link does not take bookings right now; retry later');
  return { name: org.name, email: org.ownerEmail };
}

type BookingRow = {
  id: string; event_type_id: string; host: string; org_id: string; booker_org_id: string; livemode: boolean; room_id: string;
  status: string; start_at: Date; end_at: Date; guest_name: string; guest_email: string; guest_speak: string;
  guest_hear: string | null; guest_tz: string; guest_locale: string; manage_token: string; created_at: Date;
};
const BOOKING_COLUMNS = 'id, event_type_id, host, org_id, booker_org_id, livemode, room_id, status, start_at, end_at, guest_name, guest_email, guest_speak, guest_hear, guest_tz, guest_locale, manage_token, created_at';

function bookingObject(b: BookingRow) {
  return { id: b.id, object: 'booking', status: b.status, event_type_id: b.event_type_id, room_id: b.room_id, start: iso(b.start_at), end: iso(b.end_at), livemode: b.livemode };
}

/** A booking event goes to the booker's organization too, when it is not the host's. */
async function copyToBooker(tx: Client, b: BookingRow, types: EventTypeName[]): Promise<void> {
  if (b.booker_org_id === b.org_id) return;
  for (const type of types) await writeEvent(tx, { orgId: b.booker_org_id, livemode: b.livemode }, type, bookingObject(b));
}

/** PostgreSQL's exclusion_violation: bookings_no_overlap refused the slot. */
function isSlotTaken(err: unknown): boolean {
  return (err as { code?: string }).code === '23P01';
}

/** Lock waits longer than this answer 503 booking_unavailable (retry later) instead of holding the request. */
const LOCK_TIMEOUT = '5s';

/**
 * Serializes the bookings of one host and mode until tx ends. Without it, two
 * transactions inserting overlapping bookings at the same moment each find
 * the other's uncommitted row while checking bookings_no_overlap and wait on
 * each other: PostgreSQL's deadlock detector then aborts one a second later
 * (40P01, answered 503 booking_unavailable instead of 409 slot_taken), and
 * under a burst these deadlocks chain (twenty guests on one slot: losers
 * answered 503 after up to twenty seconds). Holding this lock, the next
 * booking of the host waits for the previous one's commit and then fails at
 * once on the constraint (409). Taken under lock_timeout, after any lock on a
 * booking row (rescheduleByToken), never before one.
 */
async function lockHost(tx: Client, host: string, livemode: boolean): Promise<void> {
  await tx.query(prepared(`SELECT pg_advisory_xact_lock(hashtext('booking-host:' || $1::text))`, [`${livemode ? 'live' : 'test'}:${host}`]));
}

function unavailable(err: unknown): never {
  const code = (err as { code?: string }).code;
  if (code === '55P03' || code === '40P01' || code === '40001') {
    throw new ApiError('booking_unavailable', 'Booking is busy right now; retry in a moment', { 'Retry-After': '1' });
  }
  throw err;
}

/**
 * Checks that start is a slot the link offers: on its grid, in its working
 * hours, after the notice, clear of the host's meetings. Bookings are left
 * to the INSERT: one in the way is 409 slot_taken (taken meanwhile), not 400.
 */
async function checkOffered(s: Services, db: Queryable, et: EventTypeRow, livemode: boolean, field: string, start: Date): Promise<void> {
  const notBefore = new Date(now(s).getTime() + NOTICE_MIN * 60_000);
  const day = 24 * 3600_000;
  const busy = await busyOf(db, et, livemode, new Date(start.getTime() - day), new Date(start.getTime() + 2 * day), { bookings: false });
  if (start.getTime() >= windowEnd(now(s)).getTime()) {
    throw invalid(field, `${iso(start)} is too far ahead: this booking link takes bookings up to ${WINDOW_DAYS} days ahead; list the free slots with its slots`);
  }
  if (!isOfferedSlot({ tz: et.tz, durationMin: et.duration_min, hours: hoursOf(et), notBefore, busy }, start)) {
    throw invalid(field, `${iso(start)} is not a free slot of this booking link (off its ${et.duration_min}-minute grid, outside its working hours, within the next ${NOTICE_MIN} minutes, or during a meeting of the host); list the free ones with its slots`);
  }
}

function parseStart(field: string, v: string): Date {
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw invalid(field, 'must be an ISO 8601 date and time with an offset, such as 2026-12-01T14:00:00Z');
  return d;
}

/**
 * POST /v1/bookings (and the public booking page): checks the link and the
 * slot, then in tx the meeting (a scheduled room in the host's organization,
 * with its timers and invitations to guest and host) and the booking
 * (BOOK: booking.created to the host's organization, and to the booker's when
 * it is another). Two bookings of one slot: the second INSERT fails on the
 * exclusion constraint, the transaction rolls back (no room, no mail), 409.
 */
export async function createBooking(s: Services, tx: Client, booker: Booker, input: BookingInput): Promise<Booking> {
  const et = await resolveLink(tx, booker, input);
  if (!et.active) throw new ApiError('booking_unavailable', `Booking link '${et.page}/${et.slug}' is paused; retry later`, { 'Retry-After': '3600' });
  const start = parseStart('start', input.start);
  const g = input.guest;
  if (!isValidZone(g.tz)) throw invalid('guest.tz', `'${g.tz.slice(0, 64)}' is not an IANA time zone such as Europe/Lisbon`);
  if (!LOCALE.test(g.locale)) throw invalid('guest.locale', 'must be a locale such as en or pt-BR');
  await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
  try {
    // One booking of this host at a time (see lockHost): a concurrent one of the same slot is 409, not a deadlock.
    await lockHost(tx, et.page, booker.livemode);
    await checkOffered(s, tx, et, booker.livemode, 'start', start);
    const end = new Date(start.getTime() + et.duration_min * 60_000);
    // Taken already (the usual loser of a race, now that the lock is held): 409 before building anything.
    // The exclusion constraint stays what guarantees it.
    if ((await busyOf(tx, et, booker.livemode, start, end)).some((b) => b.start < end && start < b.end)) {
      throw new ApiError('slot_taken', `${iso(start)} was booked meanwhile; pick another slot`);
    }
    const host = await hostOf(tx, et.org_id);
    const langs = [...new Set([g.speak, g.hear ?? g.speak, et.lang])];
    const invitees = [g.email, ...(host.email && host.email.toLowerCase() !== g.email.toLowerCase() ? [host.email] : [])];
    const title = `${et.title}: ${g.name}`.slice(0, 120);
    const meeting = await scheduleMeeting(s, tx, { id: booker.id, orgId: et.org_id, livemode: booker.livemode }, {
      title, starts_at: start.toISOString(), start, duration_min: et.duration_min, invitees, langs, visibility: 'private', tz: et.tz,
    }, {
      guests: [
        { email: g.email, name: g.name, speak: g.speak, ...(g.hear ? { hear: g.hear } : {}), tz: g.tz, locale: g.locale },
        ...(invitees[1] ? [{ email: invitees[1], name: host.name, speak: et.lang }] : []),
      ],
    });
    const id = newId('bk');
    const token = randomBytes(24).toString('base64url');
    const row: BookingRow = {
      id, event_type_id: et.id, host: et.page, org_id: et.org_id, booker_org_id: booker.orgId, livemode: booker.livemode,
      room_id: meeting.room.id, status: 'confirmed', start_at: start, end_at: end, guest_name: g.name, guest_email: g.email,
      guest_speak: g.speak, guest_hear: g.hear ?? null, guest_tz: g.tz, guest_locale: g.locale, manage_token: token, created_at: now(s),
    };
    const { status: _status, ...insert } = row;
    await createPersistedActor(tx, {
      id,
      machine: 'booking',
      owner: { orgId: et.org_id, livemode: booker.livemode },
      event: { type: 'BOOK' },
      objectFor: () => bookingObject(row),
      row: { ...insert, answers: JSON.stringify(input.answers ?? {}), credential_id: booker.id },
    });
    await copyToBooker(tx, row, ['booking.created']);
    const link = joinUrl(s.config.publicBaseUrl, await linkSigningKey(tx), meeting.row, { name: g.name, speak: g.speak, ...(g.hear ? { hear: g.hear } : {}) });
    return toBooking(s.config.publicBaseUrl, row, link);
  } catch (err) {
    if (isSlotTaken(err)) throw new ApiError('slot_taken', `${iso(start)} was booked meanwhile; pick another slot`);
    return unavailable(err);
  }
}

/** A booking by its manage token, with its link and meeting (the guest's manage page). */
export async function bookingByToken(db: Queryable, token: string): Promise<{ booking: BookingRow; et: EventTypeRow; meeting: MeetingRow } | null> {
  if (!MANAGE_TOKEN.test(token)) return null;
  const { rows } = await db.query<BookingRow>(prepared(`SELECT ${BOOKING_COLUMNS} FROM bookings WHERE manage_token = $1`, [token]));
  const booking = rows[0];
  if (!booking) return null;
  const et = (await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1`, [booking.event_type_id]))).rows[0]!;
  const meeting = (await db.query<MeetingRow>(prepared(`SELECT ${MEETING_COLUMNS} FROM rooms WHERE id = $1`, [booking.room_id]))).rows[0]!;
  return { booking, et, meeting };
}

/**
 * Ends a booking with its meeting (its room's end or cancellation sends
 * this): CANCEL (booking.canceled; its slot is free again) or COMPLETE.
 * Nothing when the room has no booking or it has ended already.
 */
export async function settleBookingOfRoom(_s: Services, tx: Client, roomId: string, event: 'CANCEL' | 'COMPLETE'): Promise<void> {
  const { rows } = await tx.query<{ id: string }>(prepared(
    `SELECT id FROM bookings WHERE room_id = $1 AND status IN ('confirmed', 'rescheduled')`,
    [roomId],
  ));
  for (const { id } of rows) {
    const t = await transition<BookingRow>(tx, 'booking', id, { type: event }, { returning: BOOKING_COLUMNS, objectFor: (b) => bookingObject(b) });
    if (t.changed) await copyToBooker(tx, t.row, t.emitted);
  }
}

/**
 * Locks a booking by its token for a change by its guest (404 when there is
 * none): its meeting's row first, then its own. Every other change of a
 * booked meeting locks in that order (cancelMeeting and fireTimer lock the
 * room, then settleBookingOfRoom the booking); locking the booking first
 * deadlocked a guest's cancel with the host's DELETE /v1/meetings at the same
 * moment (40P01: one of them failed). A booking's room_id never changes, so
 * it is read before the locks.
 */
async function lockByToken(tx: Client, token: string): Promise<BookingRow> {
  const room = MANAGE_TOKEN.test(token)
    ? (await tx.query<{ room_id: string }>(prepared(`SELECT room_id FROM bookings WHERE manage_token = $1`, [token]))).rows[0]
    : undefined;
  if (room) await tx.query(prepared(`SELECT 1 FROM rooms WHERE id = $1 FOR UPDATE`, [room.room_id]));
  const found = room
    ? (await tx.query<BookingRow>(prepared(`SELECT ${BOOKING_COLUMNS} FROM bookings WHERE manage_token = $1 FOR UPDATE`, [token]))).rows[0]
    : undefined;
  if (!found) throw new ApiError('not_found', 'No booking for this link');
  return found;
}

/** The limits a change through a manage link counts against (the public page's; none for the API). */
export type LimitsOf = (b: { id: string; guest_email: string }) => Quota[];

/**
 * Counts a change by its guest against its limits (takeQuotas), before any
 * lock on the booking or its meeting: every transaction that takes quotas
 * takes them first, so none waits for a quota while holding a row another
 * one waits for. No booking for the token: nothing to count (lockByToken says 404).
 */
async function limitByToken(s: Services, tx: Client, token: string, limits: LimitsOf | undefined): Promise<void> {
  if (!limits || !MANAGE_TOKEN.test(token)) return;
  const { rows } = await tx.query<{ id: string; guest_email: string }>(prepared(`SELECT id, guest_email FROM bookings WHERE manage_token = $1`, [token]));
  if (rows[0]) await takeQuotas(tx, limits(rows[0]), now(s).getTime());
}

/**
 * The guest cancels (manage page): the booking (booking.canceled) and its
 * meeting (meeting.canceled; METHOD:CANCEL to guest and host). A canceled
 * booking is returned as it is.
 */
export async function cancelByToken(s: Services, token: string, limits?: LimitsOf): Promise<BookingRow> {
  return withTx(s.pool, async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await limitByToken(s, tx, token, limits).catch(unavailable);
    const b = await lockByToken(tx, token).catch(unavailable);
    if (b.status === 'canceled') return b;
    if (b.status === 'completed') throw new ApiError('conflict', 'This meeting has already taken place');
    const base = s.config.publicBaseUrl;
    const room = await transition<MeetingRow>(tx, 'room', b.room_id, { type: 'CANCEL' }, {
      returning: MEETING_COLUMNS, objectFor: (row) => toRoom(base, row), set: (_a, before) => ({ sequence: before.sequence + 1 }),
    });
    if (!room.changed) throw new ApiError('conflict', `The meeting has ${room.row.status === 'live' ? 'started' : room.row.status}; it can no longer be canceled`);
    const t = await transition<BookingRow>(tx, 'booking', b.id, { type: 'CANCEL' }, { returning: BOOKING_COLUMNS, objectFor: (x) => bookingObject(x) });
    await copyToBooker(tx, t.row, t.emitted);
    // Agents may have talked in the meeting before it started: what was said becomes its transcript.
    await writeRoomTranscript(tx, b.room_id);
    await mailGuests(s, tx, 'cancellation', room.row);
    return t.row;
  });
}

/**
 * The guest moves the booking to another free slot (manage page):
 * RESCHEDULE (booking.rescheduled), the meeting's new time with a higher
 * calendar sequence (meeting.updated) and new timers (the old ones see the
 * old sequence and do nothing), and updated invitations (same UID).
 */
export async function rescheduleByToken(s: Services, token: string, startIso: string, limits?: LimitsOf): Promise<BookingRow> {
  const start = parseStart('start', startIso);
  return withTx(s.pool, async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    try {
      await limitByToken(s, tx, token, limits);
      const b = await lockByToken(tx, token);
      if (b.status !== 'confirmed' && b.status !== 'rescheduled') throw new ApiError('conflict', `This booking is ${b.status}; it can no longer be moved`);
      const et = (await tx.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1`, [b.event_type_id]))).rows[0]!;
      if (start.getTime() === b.start_at.getTime()) return b;
      // As createBooking: the new time is checked against the host's other bookings without deadlocking with them.
      await lockHost(tx, b.host, b.livemode);
      await checkOffered(s, tx, et, b.livemode, 'start', start);
      const end = new Date(start.getTime() + et.duration_min * 60_000);
      const { rows } = await tx.query<MeetingRow>(prepared(`SELECT ${MEETING_COLUMNS} FROM rooms WHERE id = $1 FOR UPDATE`, [b.room_id]));
      const m = rows[0]!;
      if (m.status !== 'scheduled') throw new ApiError('conflict', `The meeting has ${m.status === 'live' ? 'started' : m.status}; it can no longer be moved`);
      const t = await transition<BookingRow>(tx, 'booking', b.id, { type: 'RESCHEDULE' }, {
        returning: BOOKING_COLUMNS, objectFor: (x) => bookingObject(x), set: () => ({ start_at: start, end_at: end }),
      });
      const sequence = m.sequence + 1;
      const expires = expiresAt(start, et.duration_min);
      await tx.query(prepared(`UPDATE rooms SET starts_at = $2, expires_at = $3, sequence = $4 WHERE id = $1`, [m.id, start, expires, sequence]));
      const moved: MeetingRow = { ...m, starts_at: start, expires_at: expires, sequence };
      await writeEvent(tx, { orgId: m.org_id, livemode: m.livemode }, 'meeting.updated', toRoom(s.config.publicBaseUrl, moved));
      await copyToBooker(tx, t.row, t.emitted);
      await armTimers(s, tx, { id: m.id, start, durationMin: m.duration_min ?? et.duration_min, sequence });
      await mailGuests(s, tx, 'update', moved);
      return t.row;
    } catch (err) {
      if (isSlotTaken(err)) throw new ApiError('slot_taken', `${iso(start)} was booked meanwhile; pick another slot`);
      return unavailable(err);
    }
  });
}

/** The guest's view of a booking: its link and times, for the manage page. */
export function manageView(base: string, b: BookingRow, et: EventTypeRow, m: MeetingRow) {
  return {
    id: b.id,
    status: b.status,
    title: et.title,
    host: et.page,
    start: iso(b.start_at),
    end: iso(b.end_at),
    duration_min: et.duration_min,
    host_tz: et.tz,
    guest: { name: b.guest_name, tz: b.guest_tz },
    room_url: roomUrl(base, b.room_id),
    meeting_status: m.status,
    event_type_id: et.id,
  };
}
