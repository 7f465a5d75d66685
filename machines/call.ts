import { assign, emit, setup } from 'xstate';
import type { Emits } from './event-types.ts';

// The phone call lifecycle (api.md section 3, Call status). Pure: no I/O; the
// emitted domain events go to the outbox in the same transaction as the
// snapshot (src/actors/store.ts), and the gateway (gateway/) turns SIP into
// the events below.
//
// POST /v1/calls sends PLACE when the policy table allows the call (`queued`:
// the gateway job is written in the same transaction), or BLOCK when it does
// not (`blocked`, final). From then on the gateway reports what SIP says:
// RINGING (180/183), ANSWERED (2xx), VOICEMAIL (2xx from a voicemail system),
// BUSY (486/600/603), NO_ANSWER (480/408, or still ringing at the ring
// timeout), FAILED (any other final answer, none at all, or the gateway was
// lost). An answered call ends with HANGUP (the API or the agent's session
// leaving), REMOTE_HANGUP (BYE from the callee) or MAX_DURATION (the key's
// per-call limit) or MEDIA_TIMEOUT (the far end went silent: no RTP or RTCP
// for TOLK_MEDIA_TIMEOUT_SECONDS). A 2xx without media the gateway can use is
// FAILED with reason no_media (never answered, billed 0). HANGUP before an
// answer cancels the call: `no_answer` with end_reason agent_hangup (SIP
// 487), as nobody answered.
//
// Every final state emits call.ended, once: whatever the outcome, a client
// listening to call.ended alone sees every call end.

/** Why a call failed before any SIP answer could say: its trunk is down, or its calls-per-second queue is full, or it was removed. */
export type TrunkFailure = 'trunk_down' | 'trunk_busy' | 'trunk_missing';

export type CallEndReason =
  | 'blocked' | 'busy' | 'no_answer' | 'voicemail' | 'failed' | 'gateway_lost' | 'no_media'
  | 'agent_hangup' | 'remote_hangup' | 'max_duration' | 'media_timeout' | TrunkFailure;

export type CallEvent =
  | { type: 'PLACE' }
  | { type: 'BLOCK' }
  | { type: 'RINGING' }
  | { type: 'ANSWERED' }
  | { type: 'VOICEMAIL' }
  | { type: 'BUSY' }
  | { type: 'NO_ANSWER' }
  | { type: 'FAILED'; reason: 'failed' | 'gateway_lost' | 'no_media' | TrunkFailure }
  | { type: 'HANGUP' }
  | { type: 'REMOTE_HANGUP' }
  | { type: 'MAX_DURATION' }
  | { type: 'MEDIA_TIMEOUT' };

export type CallEmitted = Emits<
  'call.blocked' | 'call.ringing' | 'call.answered' | 'call.voicemail' | 'call.completed' | 'call.failed' | 'call.ended'
>;

export type CallContext = { endReason: CallEndReason | null };

type Ends = 'blocked' | 'busy' | 'no_answer' | 'voicemail' | 'agent_hangup' | 'remote_hangup' | 'max_duration' | 'media_timeout';
/** The actions of a transition that ends the call for `reason`, emitting `also` before call.ended. */
const endAs = (reason: Ends, ...also: Array<'emitBlocked' | 'emitVoicemail' | 'emitCompleted'>) =>
  [{ type: 'endWith' as const, params: { reason } }, ...also, 'emitEnded' as const];
const fail = ['failWith' as const, 'emitFailed' as const, 'emitEnded' as const];

/** How a call not answered yet (queued or ringing) answers, or ends. */
const beforeAnswer = {
  ANSWERED: { target: 'answered', actions: 'emitAnswered' },
  VOICEMAIL: { target: 'voicemail', actions: endAs('voicemail', 'emitVoicemail') },
  BUSY: { target: 'busy', actions: endAs('busy') },
  NO_ANSWER: { target: 'no_answer', actions: endAs('no_answer') },
  FAILED: { target: 'failed', actions: fail },
  HANGUP: { target: 'no_answer', actions: endAs('agent_hangup') },
} as const;

export const callMachine = setup({
  types: {
    context: {} as CallContext,
    events: {} as CallEvent,
    emitted: {} as CallEmitted,
  },
  actions: {
    endWith: assign((_, params: { reason: Ends }) => ({ endReason: params.reason })),
    failWith: assign({ endReason: ({ event }) => (event.type === 'FAILED' ? event.reason : 'failed') }),
    emitBlocked: emit({ type: 'call.blocked' }),
    emitRinging: emit({ type: 'call.ringing' }),
    emitAnswered: emit({ type: 'call.answered' }),
    emitVoicemail: emit({ type: 'call.voicemail' }),
    emitCompleted: emit({ type: 'call.completed' }),
    emitFailed: emit({ type: 'call.failed' }),
    emitEnded: emit({ type: 'call.ended' }),
  },
}).createMachine({
  id: 'call',
  initial: 'created',
  context: { endReason: null },
  states: {
    created: {
      on: {
        PLACE: { target: 'queued' },
        BLOCK: { target: 'blocked', actions: endAs('blocked', 'emitBlocked') },
      },
    },
    queued: { on: { RINGING: { target: 'ringing', actions: 'emitRinging' }, ...beforeAnswer } },
    ringing: { on: beforeAnswer },
    answered: {
      on: {
        HANGUP: { target: 'completed', actions: endAs('agent_hangup', 'emitCompleted') },
        REMOTE_HANGUP: { target: 'completed', actions: endAs('remote_hangup', 'emitCompleted') },
        MAX_DURATION: { target: 'completed', actions: endAs('max_duration', 'emitCompleted') },
        // Nothing (RTP or RTCP) from the far end for TOLK_MEDIA_TIMEOUT_SECONDS: the gateway hung up.
        MEDIA_TIMEOUT: { target: 'completed', actions: endAs('media_timeout', 'emitCompleted') },
        FAILED: { target: 'failed', actions: fail },
      },
    },
    completed: { type: 'final' },
    busy: { type: 'final' },
    voicemail: { type: 'final' },
    no_answer: { type: 'final' },
    failed: { type: 'final' },
    blocked: { type: 'final' },
  },
});
