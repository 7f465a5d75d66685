import { assign, emit, setup } from 'xstate';

// The room lifecycle (api.md section 3). Pure: no I/O; effects are the emitted
// domain events, which the actor store writes to the outbox in the same
// transaction as the new snapshot.
//
// `created` is the moment before the first command: POST /v1/rooms sends OPEN
// (an instant room, live at once), POST /v1/meetings sends SCHEDULE.
export type RoomEvent =
  | { type: 'OPEN' }
  | { type: 'SCHEDULE' }
  | { type: 'START' }
  | { type: 'END'; reason: 'deleted' | 'expired' }
  | { type: 'CANCEL' };

export type RoomEmitted =
  | { type: 'room.started' }
  | { type: 'room.ended' }
  | { type: 'meeting.created' }
  | { type: 'meeting.canceled' };

export type RoomContext = { endReason: 'deleted' | 'expired' | 'canceled' | null };

export const roomMachine = setup({
  types: {
    context: {} as RoomContext,
    events: {} as RoomEvent,
    emitted: {} as RoomEmitted,
  },
}).createMachine({
  id: 'room',
  initial: 'created',
  context: { endReason: null },
  states: {
    created: {
      on: {
        OPEN: { target: 'live', actions: emit({ type: 'room.started' }) },
        SCHEDULE: { target: 'scheduled', actions: emit({ type: 'meeting.created' }) },
      },
    },
    scheduled: {
      on: {
        START: { target: 'live', actions: emit({ type: 'room.started' }) },
        END: {
          target: 'ended',
          actions: [assign({ endReason: ({ event }) => event.reason }), emit({ type: 'room.ended' })],
        },
        CANCEL: {
          target: 'ended',
          actions: [assign({ endReason: 'canceled' as const }), emit({ type: 'meeting.canceled' })],
        },
      },
    },
    live: {
      on: {
        END: {
          target: 'ended',
          actions: [assign({ endReason: ({ event }) => event.reason }), emit({ type: 'room.ended' })],
        },
      },
    },
    ended: { type: 'final' },
  },
});
