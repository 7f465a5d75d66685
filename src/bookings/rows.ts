import type { Client } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { ApiError, invalid } from '../errors.ts';
import { writeEvent } from '../actors/store.ts';
import type { EventTypeName } from '../../machines/event-types.ts';


// A booking's row and how events show it, and what booking and changing a
// booking share: its manage link, the host's lock, the start's parse and the
// answers a lost race or a busy lock get.

/** What a manage token can look like (randomBytes(24) in base64url); anything else is looked up nowhere. */
export const MANAGE_TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

export function manageUrl(base: string, token: string): string {
  return `${base}/bookings/manage/${token}`;
}

/** ISO 8601 UTC without milliseconds, as slots are written. */
export function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export type BookingRow = {
  id: string; event_type_id: string; host: string; org_id: string; booker_org_id: string; livemode: boolean; room_id: string;
  status: string; start_at: Date; end_at: Date; guest_name: string; guest_email: string; guest_speak: string;
  guest_hear: string | null; guest_tz: string; guest_locale: string; manage_token: string; created_at: Date;
};
export const BOOKING_COLUMNS = 'id, event_type_id, host, org_id, booker_org_id, livemode, room_id, status, start_at, end_at, guest_name, guest_email, guest_speak, guest_hear, guest_tz, guest_locale, manage_token, created_at';

export function bookingObject(b: BookingRow) {
  return { id: b.id, object: 'booking', status: b.status, event_type_id: b.event_type_id, room_id: b.room_id, start: iso(b.start_at), end: iso(b.end_at), livemode: b.livemode };
}

/** A booking event goes to the booker's organization too, when it is not the host's. */
export async function copyToBooker(tx: Client, b: BookingRow, types: EventTypeName[]): Promise<void> {
  if (b.booker_org_id === b.org_id) return;
  for (const type of types) await writeEvent(tx, { orgId: b.booker_org_id, livemode: b.livemode }, type, bookingObject(b));
}

/** PostgreSQL's exclusion_violation: bookings_no_overlap refused the slot. */
export function isSlotTaken(err: unknown): boolean {
  return (err as { code?: string }).code === '23P01';
}

/** Lock waits longer than this answer 503 booking_unavailable (retry later) instead of holding the request. */
export const LOCK_TIMEOUT = '5s';

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
export async function lockHost(tx: Client, host: string, livemode: boolean): Promise<void> {
  await tx.query(prepared(`SELECT pg_advisory_xact_lock(hashtext('booking-host:' || $1::text))`, [`${livemode ? 'live' : 'test'}:${host}`]));
}

export function unavailable(err: unknown): never {
  const code = (err as { code?: string }).code;
  if (code === '55P03' || code === '40P01' || code === '40001') {
    throw new ApiError('booking_unavailable', 'Booking is busy right now; retry in a moment', { 'Retry-After': '1' });
  }
  throw err;
}

export function parseStart(field: string, v: string): Date {
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) throw invalid(field, 'must be an ISO 8601 date and time with an offset, such as 2026-12-01T14:00:00Z');
  return d;
}
