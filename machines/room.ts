import { assign, emit, enqueueActions, setup } from 'xstate';
import type { Emits } from './event-types.ts';

// The room lifecycle (api.md section 3). Pure: no I/O; effects are the emitted
// domain events, which the actor store writes to the outbox in the same
// transaction as the new snapshot.
//
// `created` is the moment before the first command: POST /v1/rooms sends OPEN
// (an instant room, live at once), POST /v1/meetings (or a booking) sends
// SCHEDULE. A scheduled meeting goes live with START, sent by its timer at
// starts_at, and ends with END (its end timer, starts_at + duration + grace,
// is its expiry; or DELETE /v1/rooms/{id}). DELETE /v1/meetings/{id} sends
// CANCEL while it is scheduled: `canceled`, final, a state of its own (api.md
// names it), never joined nor started.
//
// A meeting's changes made by its timers also emit meeting.updated, so a
// client following meetings alone sees them start and end.
export type RoomEvent =
  | { type: 'OPEN' }
  | { type: 'SCHEDULE' }
  | { type: 'START' }
  | { type: 'END'; reason: 'deleted' | 'expired' }
  | { type: 'CANCEL' };

export type RoomEmitted = Emits<'room.started' | 'room.ended' | 'meeting.created' | 'meeting.canceled' | 'meeting.updated'>;

export type RoomContext = {
  endReason: 'deleted' | 'expired' | 'canceled' | null;
  /** Scheduled as a meeting (SCHEDULE); absent in rooms persisted before meetings existed. */
  meeting?: boolean;
};

export const roomMachine = setup({
  types: {
    context: {} as RoomContext,
    events: {} as RoomEvent,
    emitted: {} as RoomEmitted,
  },
  actions: {
    /** END: the reason kept, room.ended, and meeting.updated when a meeting's timer ended it (a DELETE is the caller's own act). */
    end: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'END') return;
      enqueue.assign({ endReason: event.reason });
      enqueue.emit({ type: 'room.ended' });
      if (context.meeting && event.reason === 'expired') enqueue.emit({ type: 'meeting.updated' });
    }),
  },
}).createMachine({
  id: 'room',
  initial: 'created',
  context: { endReason: null },
  states: {
    created: {
      on: {
        OPEN: { target: 'live', actions: emit({ type: 'room.started' }) },
        SCHEDULE: { target: 'scheduled', actions: [assign({ meeting: true }), emit({ type: 'meeting.created' })] },
      },
    },
    scheduled: {
      on: {
        START: { target: 'live', actions: [emit({ type: 'room.started' }), emit({ type: 'meeting.updated' })] },
        END: { target: 'ended', actions: 'end' },
        CANCEL: {
          target: 'canceled',
          actions: [assign({ endReason: 'canceled' as const }), emit({ type: 'meeting.canceled' })],
        },
      },
    },
    live: {
      on: { END: { target: 'ended', actions: 'end' } },
    },
    ended: { type: 'final' },
    canceled: { type: 'final' },
  },
});
