import { emit, setup } from 'xstate';
import type { Emits } from './event-types.ts';

// The booking lifecycle (api.md: Booking; booking.* events). Pure: no I/O;
// the emitted domain events go to the outbox in the same transaction as the
// snapshot (src/actors/store.ts).
//
// POST /v1/bookings sends BOOK: `confirmed` (the slot is held by the
// bookings table's exclusion constraint from then on). The guest's manage
// page moves it (RESCHEDULE: `rescheduled`, still holding its new slot; it
// may be moved again) or cancels it (CANCEL: `canceled`, final, the slot is
// free again). Its meeting's end timer completes it (COMPLETE: `completed`,
// final). The meeting is the booking's room (machines/room.ts), changed in the
// same transaction.
export type BookingEvent =
  | { type: 'BOOK' }
  | { type: 'RESCHEDULE' }
  | { type: 'CANCEL' }
  | { type: 'COMPLETE' };

export type BookingEmitted = Emits<'booking.created' | 'booking.rescheduled' | 'booking.canceled'>;

export const bookingMachine = setup({
  types: {
    events: {} as BookingEvent,
    emitted: {} as BookingEmitted,
  },
  actions: {
    created: emit({ type: 'booking.created' }),
    rescheduled: emit({ type: 'booking.rescheduled' }),
    canceled: emit({ type: 'booking.canceled' }),
  },
}).createMachine({
  id: 'booking',
  initial: 'created',
  states: {
    created: {
      on: { BOOK: { target: 'confirmed', actions: 'created' } },
    },
    // confirmed and rescheduled hold the slot alike.
    confirmed: {
      on: {
        RESCHEDULE: { target: 'rescheduled', reenter: true, actions: 'rescheduled' },
        CANCEL: { target: 'canceled', actions: 'canceled' },
        COMPLETE: { target: 'completed' },
      },
    },
    rescheduled: {
      on: {
        RESCHEDULE: { target: 'rescheduled', reenter: true, actions: 'rescheduled' },
        CANCEL: { target: 'canceled', actions: 'canceled' },
        COMPLETE: { target: 'completed' },
      },
    },
    canceled: { type: 'final' },
    completed: { type: 'final' },
  },
});
