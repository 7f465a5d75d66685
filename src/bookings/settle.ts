import type { Client } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { transition } from '../actors/store.ts';
import { BOOKING_COLUMNS, bookingObject, copyToBooker, type BookingRow } from './rows.ts';

// A booking ends with its meeting: its room's end or cancellation settles it
// (src/reactions.ts).

/**
 * Ends a booking with its meeting (its room's end or cancellation sends
 * this): CANCEL (booking.canceled; its slot is free again) or COMPLETE.
 * Nothing when the room has no booking or it has ended already.
 */
export async function settleBookingOfRoom(tx: Client, roomId: string, event: 'CANCEL' | 'COMPLETE'): Promise<void> {
  const { rows } = await tx.query<{ id: string }>(prepared(
    `SELECT id FROM bookings WHERE room_id = $1 AND status IN ('confirmed', 'rescheduled')`,
    [roomId],
  ));
  for (const { id } of rows) {
    const t = await transition<BookingRow>(tx, 'booking', id, { type: event }, { returning: BOOKING_COLUMNS, objectFor: (b) => bookingObject(b) });
    if (t.changed) await copyToBooker(tx, t.row, t.emitted);
  }
}
