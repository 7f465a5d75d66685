import { assign, emit, setup } from 'xstate';
import type { Emits } from './event-types.ts';

// The AI agent session lifecycle (api.md section 3, Agent session status).
// Pure: no I/O; the emitted domain events go to the outbox in the same
// transaction as the snapshot (src/actors/store.ts).
//
// `created` is the moment before the first command: POST
// /v1/rooms/{id}/agent-sessions sends JOIN (the agent enters the room, status
// `joining`), then JOINED once it is seated and, with announce=true, the room
// has heard that an AI assistant joined (`active`). The create request sends
// both in one transaction, so a client usually sees `active`; the history
// keeps both steps. LEAVE (POST /v1/sessions/{id}/leave) and ROOM_ENDED (the
// room was deleted or expired) end it; an ended session accepts nothing.
//
// A call's session (src/calls/) has no room: POST /v1/calls sends JOIN, the
// callee's answer JOINED, and the call's end CALL_ENDED (a session that never
// got an answer ends from joining).
export type SessionEvent =
  | { type: 'JOIN' }
  | { type: 'JOINED' }
  | { type: 'LEAVE' }
  | { type: 'ROOM_ENDED' }
  | { type: 'CALL_ENDED' };

export type SessionEmitted = Emits<'session.started' | 'session.ended'>;

export type SessionContext = { endReason: 'left' | 'room_ended' | 'call_ended' | null };

export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
    emitted: {} as SessionEmitted,
  },
}).createMachine({
  id: 'session',
  initial: 'created',
  context: { endReason: null },
  states: {
    created: {
      on: { JOIN: { target: 'joining', actions: emit({ type: 'session.started' }) } },
    },
    joining: {
      on: {
        JOINED: { target: 'active' },
        LEAVE: { target: 'ended', actions: [assign({ endReason: 'left' as const }), emit({ type: 'session.ended' })] },
        ROOM_ENDED: { target: 'ended', actions: [assign({ endReason: 'room_ended' as const }), emit({ type: 'session.ended' })] },
        CALL_ENDED: { target: 'ended', actions: [assign({ endReason: 'call_ended' as const }), emit({ type: 'session.ended' })] },
      },
    },
    active: {
      on: {
        LEAVE: { target: 'ended', actions: [assign({ endReason: 'left' as const }), emit({ type: 'session.ended' })] },
        ROOM_ENDED: { target: 'ended', actions: [assign({ endReason: 'room_ended' as const }), emit({ type: 'session.ended' })] },
        CALL_ENDED: { target: 'ended', actions: [assign({ endReason: 'call_ended' as const }), emit({ type: 'session.ended' })] },
      },
    },
    ended: { type: 'final' },
  },
});
