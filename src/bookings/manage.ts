import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { ApiError } from '../errors.ts';
import { transition } from '../actors/store.ts';
import { now, type BookedMeeting, type Services } from '../services.ts';
import { takeQuotas, type Quota } from '../http/quotas.ts';
import { ET_COLUMNS, type EventTypeRow } from './links.ts';
import { checkOffered } from './busy.ts';
import { BOOKING_COLUMNS, MANAGE_TOKEN, LOCK_TIMEOUT, bookingObject, copyToBooker, iso, isSlotTaken, lockHost, parseStart, unavailable, type BookingRow } from './rows.ts';

// A booking managed by its guest through the manage link's token (the manage
// page): read, cancel, move to another free slot. Its meeting is read and
// changed through the rooms' port (services.ts BookedMeetings).

/** A booking by its manage token, with its link and meeting (the guest's manage page). */
export async function bookingByToken(s: Services, db: Queryable, token: string): Promise<{ booking: BookingRow; et: EventTypeRow; meeting: BookedMeeting } | null> {
  if (!MANAGE_TOKEN.test(token)) return null;
  const { rows } = await db.query<BookingRow>(prepared(`SELECT ${BOOKING_COLUMNS} FROM bookings WHERE manage_token = $1`, [token]));
  const booking = rows[0];
  if (!booking) return null;
  const et = (await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1`, [booking.event_type_id]))).rows[0]!;
  const meeting = (await s.reactions.bookedMeetings.read(s, db, booking.room_id))!;
  return { booking, et, meeting };
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
async function lockByToken(s: Services, tx: Client, token: string): Promise<BookingRow> {
  const room = MANAGE_TOKEN.test(token)
    ? (await tx.query<{ room_id: string }>(prepared(`SELECT room_id FROM bookings WHERE manage_token = $1`, [token]))).rows[0]
    : undefined;
  if (room) await s.reactions.bookedMeetings.read(s, tx, room.room_id, { lock: true });
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
    const b = await lockByToken(s, tx, token).catch(unavailable);
    if (b.status === 'canceled') return b;
    if (b.status === 'completed') throw new ApiError('conflict', 'This meeting has already taken place');
    // Its meeting first (the cancellation mailed to guest and host with it), then the booking.
    const room = await s.reactions.bookedMeetings.cancel(s, tx, b.room_id);
    if (!room.changed) throw new ApiError('conflict', `The meeting has ${room.meeting.status === 'live' ? 'started' : room.meeting.status}; it can no longer be canceled`);
    const t = await transition<BookingRow>(tx, 'booking', b.id, { type: 'CANCEL' }, { returning: BOOKING_COLUMNS, objectFor: (x) => bookingObject(x) });
    await copyToBooker(tx, t.row, t.emitted);
    // Agents may have talked in the meeting before it started: what was said becomes its transcript (reactions.ts).
    await s.reactions.guestCanceledMeeting(s, tx, b.room_id);
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
      const b = await lockByToken(s, tx, token);
      if (b.status !== 'confirmed' && b.status !== 'rescheduled') throw new ApiError('conflict', `This booking is ${b.status}; it can no longer be moved`);
      const et = (await tx.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1`, [b.event_type_id]))).rows[0]!;
      if (start.getTime() === b.start_at.getTime()) return b;
      // As createBooking: the new time is checked against the host's other bookings without deadlocking with them.
      await lockHost(tx, b.host, b.livemode);
      await checkOffered(s, tx, et, b.livemode, 'start', start);
      const end = new Date(start.getTime() + et.duration_min * 60_000);
      const m = (await s.reactions.bookedMeetings.read(s, tx, b.room_id, { lock: true }))!;
      if (m.status !== 'scheduled') throw new ApiError('conflict', `The meeting has ${m.status === 'live' ? 'started' : m.status}; it can no longer be moved`);
      const t = await transition<BookingRow>(tx, 'booking', b.id, { type: 'RESCHEDULE' }, {
        returning: BOOKING_COLUMNS, objectFor: (x) => bookingObject(x), set: () => ({ start_at: start, end_at: end }),
      });
      await s.reactions.bookedMeetings.move(s, tx, m.id, start, et.duration_min);
      await copyToBooker(tx, t.row, t.emitted);
      return t.row;
    } catch (err) {
      if (isSlotTaken(err)) throw new ApiError('slot_taken', `${iso(start)} was booked meanwhile; pick another slot`);
      return unavailable(err);
    }
  });
}

/** The guest's view of a booking: its link and times, for the manage page. */
export function manageView(b: BookingRow, et: EventTypeRow, m: BookedMeeting) {
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
    room_url: m.url,
    meeting_status: m.status,
    event_type_id: et.id,
  };
}
