import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { Client, Queryable } from '../db/pool.ts';
import { organizationOf } from '../db/organizations.ts';
import { newId } from '../ids.ts';
import { ApiError, invalid } from '../errors.ts';
import { createPersistedActor } from '../actors/store.ts';
import { now, type Caller, type Services } from '../services.ts';
import type { Once } from '../http/idempotency.ts';
import { assertLanguagesAllowed } from '../restrictions.ts';
import { isValidZone } from './slots.ts';
import type { Booking as BookingSchema } from './schemas.ts';
import { ownEventType, publicEventType, type EventTypeRow } from './links.ts';
import { busyOf, checkOffered } from './busy.ts';
import { LOCK_TIMEOUT, bookingObject, copyToBooker, iso, isSlotTaken, lockHost, manageUrl, parseStart, unavailable, type BookingRow } from './rows.ts';

type Booking = z.infer<typeof BookingSchema>;

// Booking links (event types), their free slots and bookings (api.md:
// Event type, Slots, Booking; GET /v1/event-types/{id}/slots, POST
// /v1/bookings). The host of a link is its page (a person or a team). A
// booking is an actor (machines/booking.ts) whose row holds its slot: the
// bookings table's exclusion constraint (bookings_no_overlap) makes two
// active bookings of one host that overlap impossible, whatever races, so a
// second booking of a slot fails at its INSERT and answers 409 slot_taken.
// Its meeting is a room scheduled in the host's organization, created in the
// same transaction through the port the rooms give (services.ts BookedMeetings).
//
// This file books; beside it: the links (links.ts), busy time and free slots
// (busy.ts), a booking's row and what booking and changing one share (rows.ts),
// the guest's changes through the manage link (manage.ts), and a booking
// settled with its meeting (settle.ts).

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

/**
 * POST /v1/bookings and the book_slot tool: the key's restrictions, then the
 * booking, once per idempotency key (`once`: the caller's protocol keeps the
 * key and the answer). `afterCommit` runs once the booking is committed, or
 * its first answer replayed: what the caller does after it, outside its
 * transaction.
 */
export async function bookSlot(
  s: Services, cred: Caller, input: BookingInput, once: Once<Booking>, afterCommit?: (booking: Booking) => Promise<void>,
): Promise<Booking> {
  assertLanguagesAllowed(cred, 'guest.speak', [input.guest.speak]);
  assertLanguagesAllowed(cred, 'guest.hear', [input.guest.hear]);
  const booking = await once(async (tx) => ({ status: 201, body: await createBooking(s, tx, cred, input) }));
  await afterCommit?.(booking);
  return booking;
}

/**
 * The booking itself, for an API key or the public booking page: checks the link and the
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
    const hostInvited = host.email && host.email.toLowerCase() !== g.email.toLowerCase() ? host.email : null;
    const title = `${et.title}: ${g.name}`.slice(0, 120);
    const meeting = await s.reactions.bookedMeetings.schedule(s, tx, { credentialId: booker.id, orgId: et.org_id, livemode: booker.livemode }, {
      title, start, durationMin: et.duration_min, langs, tz: et.tz,
    }, [
      { email: g.email, name: g.name, speak: g.speak, ...(g.hear ? { hear: g.hear } : {}), tz: g.tz, locale: g.locale },
      ...(hostInvited ? [{ email: hostInvited, name: host.name, speak: et.lang }] : []),
    ]);
    const id = newId('bk');
    const token = randomBytes(24).toString('base64url');
    const row: BookingRow = {
      id, event_type_id: et.id, host: et.page, org_id: et.org_id, booker_org_id: booker.orgId, livemode: booker.livemode,
      room_id: meeting.id, status: 'confirmed', start_at: start, end_at: end, guest_name: g.name, guest_email: g.email,
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
    const link = await s.reactions.bookedMeetings.guestLink(s, tx, meeting, { name: g.name, speak: g.speak, hear: g.hear, email: g.email });
    return toBooking(s.config.publicBaseUrl, row, link);
  } catch (err) {
    if (isSlotTaken(err)) throw new ApiError('slot_taken', `${iso(start)} was booked meanwhile; pick another slot`);
    return unavailable(err);
  }
}
