import { assign, emit, setup, type SnapshotFrom } from 'xstate';
import { pureMachine } from './pure.ts';
import type { CancelReason, DialogContext, DialogEffect, DialogEvent, DialogMachineEvent } from './dialog-events.ts';

// The life of one outbound SIP dialog: our INVITE, its answers, its end
// (RFC 3261 9, 12, 13, 15). Pure: no I/O, and in memory only (a dialog does
// not outlive its process). Each signaling adapter (the embedded stack's
// gateway/sip-dialog.ts, and gateway/drachtio.ts) feeds it what happened on
// the wire and on its timers, through stepDialog() (gateway/dialog-driver.ts
// driveDialog), and carries out what the transitions emit: the DialogEvent
// to report (signaling.ts) and the SIP to send. The adapter keeps the
// transport's facts (the INVITE as sent, the route set, CSeq numbers, the
// ACK's branch); the dialog's state lives here, once for both adapters.
//
//   live.inviting: the INVITE has no final answer yet.
//     calling      nothing came back yet: no CANCEL may go (RFC 3261 9.1);
//     proceeding   a 100 Trying came: a CANCEL may go, nothing reported;
//     ringing      a 180/183 came: `ringing` reported (once per dialog);
//     rerouted     a redirect after `ringing`: the new target has not answered yet;
//     cancelling   we want it to end (our hangup, the ring timeout): the CANCEL
//                  waits for a provisional answer, then waits for the 487.
//   live.answered: confirmed (ACKed). The far end's hold (media) and whether
//                  our offer in a 2xx still waits for its answer (offer) run
//                  side by side.
//   abandoning:    the listener has been told (no_response) or the stack is
//                  closing, but the INVITE is still out: a 1xx gets a CANCEL,
//                  a 2xx an ACK and a BYE. Nothing more is reported.
//   terminating:   our BYE is out, waiting for its answer.
//   ended:         nothing owed; a late 2xx is still ACKed (and hung up when
//                  it is not the dialog's) until the adapter forgets it.
//
// Every report of an end (rejected, ring_timeout, no_response, no_media,
// remote_hangup, media_timeout) is made on a transition out of `live`, and
// no state outside `live` reports anything: the end is reported exactly once
// and nothing after it. `release` (out of the adapter's active dialogs) is
// emitted once, on leaving `live`.
//
// Its events, reports and effects are declared in dialog-events.ts; what the
// adapters ask of a snapshot (held? settled? may the CANCEL go?) in dialog-state.ts.

export type { CancelReason, DialogContext, DialogEffect, DialogEvent, DialogMachineEvent } from './dialog-events.ts';

type Final2xx = Extract<DialogMachineEvent, { type: 'FINAL_2XX' }>;
type FinalError = Extract<DialogMachineEvent, { type: 'FINAL_ERROR' }>;

const report = (event: DialogEvent): DialogEffect => ({ type: 'report', event });

/**
 * The end of a dialog we were CANCELing. The far end's final answer when it
 * gave one; none (the guard ran out) or a 2xx crossing our CANCEL: as if
 * the 487 had come. The ring timeout is reported as such whatever came.
 */
function cancelOutcome(context: DialogContext, final?: { status: number; reason: string }): DialogEvent {
  if (context.cancel === 'ring_timeout') return { type: 'ring_timeout' };
  if (final && final.status >= 300) return { type: 'rejected', status: final.status, reason: final.reason };
  return { type: 'rejected', status: 487, reason: 'Request Terminated' };
}

export const dialogMachine = setup({
  types: {
    context: {} as DialogContext,
    events: {} as DialogMachineEvent,
    emitted: {} as DialogEffect,
  },
  guards: {
    /** The 2xx of the dialog again: our ACK was lost or crossed it. */
    retransmission: ({ context, event }) => event.type === 'FINAL_2XX' && event.tag === context.peerTag,
    usableMedia: ({ event }) => event.type === 'FINAL_2XX' && event.usableMedia,
    /** A 180 or 183, not a 100. */
    ringingStatus: ({ event }) => event.type === 'PROVISIONAL' && event.status > 100,
    /** A carrier's redirect is followed once (the adapter checked where it goes). */
    followable: ({ context, event }) => event.type === 'FINAL_ERROR' && event.redirect === true && !context.redirected,
  },
  actions: {
    takePeer: assign({ peerTag: ({ event }) => (event as Final2xx).tag }),
    cancelFor: assign((_, params: { reason: CancelReason }) => ({ cancel: params.reason })),
    markRedirected: assign({ redirected: true }),

    sendCancel: emit({ type: 'sendCancel' }),
    armCancelGuard: emit({ type: 'armCancelGuard' }),
    followRedirect: emit({ type: 'followRedirect' }),
    connectMedia: emit({ type: 'connectMedia' }),
    inviteOver: emit({ type: 'inviteOver' }),
    release: emit({ type: 'release' }),
    /** ACK the 2xx at hand. */
    ackIt: emit(({ event }) => ({ type: 'sendAck' as const, tag: (event as Final2xx).tag })),
    /** BYE the fork whose 2xx is at hand. */
    byeIt: emit(({ event }) => ({ type: 'sendBye' as const, tag: (event as Final2xx).tag })),
    /** BYE the dialog. */
    byePeer: emit(({ context }) => ({ type: 'sendBye' as const, tag: context.peerTag ?? '' })),

    reportRinging: emit(({ event }) => report({ type: 'ringing', status: (event as { status: number }).status })),
    reportAnswered: emit(({ event }) => {
      const e = event as Final2xx;
      return report({ type: 'answered', status: e.status, voicemail: e.voicemail, ...(e.human ? { human: true } : {}) });
    }),
    reportNoMedia: emit(({ event }) => {
      const e = event as Final2xx;
      return report({ type: 'no_media', status: e.status, reason: e.reason });
    }),
    reportRejected: emit(({ event }) => {
      const e = event as FinalError;
      return report({ type: 'rejected', status: e.status, reason: e.reason });
    }),
    reportNoResponse: emit(report({ type: 'no_response' })),
    reportRemoteHangup: emit(report({ type: 'remote_hangup' })),
    reportMediaTimeout: emit(report({ type: 'media_timeout' })),
    reportCancelOutcome: emit(({ context, event }) => report(cancelOutcome(context, event.type === 'FINAL_ERROR' ? event : undefined))),
  },
}).createMachine({
  id: 'dialog',
  initial: 'live',
  context: { peerTag: null, cancel: null, redirected: false },
  // A 2xx the states below do not take: the dialog's own again (re-ACK), or
  // another fork's, or one after the INVITE's end: ACKed and hung up at once.
  on: {
    FINAL_2XX: [
      { guard: 'retransmission', actions: 'ackIt' },
      { actions: ['ackIt', 'byeIt'] },
    ],
  },
  states: {
    live: {
      initial: 'inviting',
      exit: 'release',
      states: {
        inviting: {
          initial: 'calling',
          exit: 'inviteOver',
          // Calling, proceeding, ringing and rerouted end alike on a final answer.
          on: {
            FINAL_2XX: [
              { guard: 'usableMedia', target: 'answered', actions: ['takePeer', 'ackIt', 'connectMedia', 'reportAnswered'] },
              // RFC 3261 wants the 2xx ACKed before the BYE (operator.md: failed, no_media).
              { target: '#dialog.terminating', actions: ['takePeer', 'ackIt', 'byeIt', 'reportNoMedia'] },
            ],
            FINAL_ERROR: { target: '#dialog.ended', actions: 'reportRejected' },
            GAVE_UP: { target: '#dialog.ended', actions: 'reportNoResponse' },
            CLOSE: { target: '#dialog.abandoning.awaitingProvisional' },
          },
          states: {
            calling: {
              on: {
                PROVISIONAL: [
                  { guard: 'ringingStatus', target: 'ringing', actions: 'reportRinging' },
                  { target: 'proceeding' },
                ],
                FINAL_ERROR: { guard: 'followable', target: 'calling', actions: ['markRedirected', 'followRedirect'] },
                HANGUP: { target: 'cancelling.awaitingProvisional', actions: [{ type: 'cancelFor', params: { reason: 'hangup' } }, 'armCancelGuard'] },
                // Not even a 1xx in all the time we would let it ring: nobody answered.
                RING_TIMEOUT: { target: '#dialog.abandoning.awaitingProvisional', actions: 'reportNoResponse' },
                NO_RESPONSE: { target: '#dialog.abandoning.awaitingProvisional', actions: 'reportNoResponse' },
              },
            },
            proceeding: {
              on: {
                PROVISIONAL: { guard: 'ringingStatus', target: 'ringing', actions: 'reportRinging' },
                FINAL_ERROR: { guard: 'followable', target: 'calling', actions: ['markRedirected', 'followRedirect'] },
                HANGUP: { target: 'cancelling.sent', actions: [{ type: 'cancelFor', params: { reason: 'hangup' } }, 'sendCancel', 'armCancelGuard'] },
                RING_TIMEOUT: { target: 'cancelling.sent', actions: [{ type: 'cancelFor', params: { reason: 'ring_timeout' } }, 'sendCancel', 'armCancelGuard'] },
                CLOSE: { target: '#dialog.abandoning.cancelSent', actions: ['sendCancel', 'armCancelGuard'] },
              },
            },
            ringing: {
              on: {
                FINAL_ERROR: { guard: 'followable', target: 'rerouted', actions: ['markRedirected', 'followRedirect'] },
                HANGUP: { target: 'cancelling.sent', actions: [{ type: 'cancelFor', params: { reason: 'hangup' } }, 'sendCancel', 'armCancelGuard'] },
                RING_TIMEOUT: { target: 'cancelling.sent', actions: [{ type: 'cancelFor', params: { reason: 'ring_timeout' } }, 'sendCancel', 'armCancelGuard'] },
                CLOSE: { target: '#dialog.abandoning.cancelSent', actions: ['sendCancel', 'armCancelGuard'] },
              },
            },
            // `ringing` is said once per dialog: the new target's 1xx is not reported again.
            rerouted: {
              on: {
                PROVISIONAL: { target: 'ringing' },
                HANGUP: { target: 'cancelling.awaitingProvisional', actions: [{ type: 'cancelFor', params: { reason: 'hangup' } }, 'armCancelGuard'] },
                RING_TIMEOUT: { target: '#dialog.abandoning.awaitingProvisional', actions: 'reportNoResponse' },
                NO_RESPONSE: { target: '#dialog.abandoning.awaitingProvisional', actions: 'reportNoResponse' },
              },
            },
            cancelling: {
              initial: 'awaitingProvisional',
              on: {
                // A 2xx that crossed our CANCEL: ACKed, then hung up (RFC 3261 15).
                FINAL_2XX: { target: '#dialog.terminating', actions: ['takePeer', 'ackIt', 'byeIt', 'reportCancelOutcome'] },
                FINAL_ERROR: { target: '#dialog.ended', actions: 'reportCancelOutcome' },
                GAVE_UP: { target: '#dialog.ended', actions: 'reportCancelOutcome' },
                CANCEL_GUARD: { target: '#dialog.ended', actions: 'reportCancelOutcome' },
              },
              states: {
                // Asked to end before any 1xx: the CANCEL goes when one comes.
                awaitingProvisional: {
                  on: {
                    PROVISIONAL: { target: 'sent', actions: ['sendCancel', 'armCancelGuard'] },
                    NO_RESPONSE: { target: '#dialog.ended', actions: 'reportCancelOutcome' },
                    CLOSE: { target: '#dialog.abandoning.awaitingProvisional' },
                  },
                },
                sent: {
                  on: { CLOSE: { target: '#dialog.abandoning.cancelSent' } },
                },
              },
            },
          },
        },
        answered: {
          type: 'parallel',
          on: {
            // Our own BYE is not reported: the caller knows.
            HANGUP: { target: '#dialog.terminating', actions: 'byePeer' },
            CLOSE: { target: '#dialog.terminating', actions: 'byePeer' },
            MEDIA_SILENT: { target: '#dialog.terminating', actions: ['byePeer', 'reportMediaTimeout'] },
            REMOTE_BYE: { target: '#dialog.ended', actions: 'reportRemoteHangup' },
          },
          states: {
            // Held, the far end sends no RTP: the media watch still hears its RTCP (RFC 3264 8.4).
            media: {
              initial: 'sending',
              states: {
                sending: { on: { HOLD: 'held' } },
                held: { on: { RESUME: 'sending' } },
              },
            },
            offer: {
              initial: 'stable',
              states: {
                // REMOTE_OFFER targets its own state so that snapshot.can() says it is taken.
                stable: { on: { OFFER_SENT: 'sent', REMOTE_OFFER: 'stable' } },
                // A new offer now would cross ours (RFC 3261 14.2, RFC 3311 5.2): answered 491.
                sent: { on: { OFFER_DONE: 'stable' } },
              },
            },
          },
        },
      },
    },
    abandoning: {
      initial: 'awaitingProvisional',
      on: {
        FINAL_2XX: { target: 'terminating', actions: ['takePeer', 'ackIt', 'byeIt'] },
        FINAL_ERROR: { target: 'ended' },
        GAVE_UP: { target: 'ended' },
        CANCEL_GUARD: { target: 'ended' },
      },
      states: {
        awaitingProvisional: {
          on: {
            PROVISIONAL: { target: 'cancelSent', actions: ['sendCancel', 'armCancelGuard'] },
            NO_RESPONSE: { target: '#dialog.ended' },
          },
        },
        cancelSent: {},
      },
    },
    terminating: {
      on: {
        BYE_ANSWERED: { target: 'ended' },
        // Both sides hung up at once.
        REMOTE_BYE: { target: 'ended' },
      },
    },
    ended: {},
  },
});

export type DialogSnapshot = SnapshotFrom<typeof dialogMachine>;

/** A new dialog: its INVITE is about to go. */
export function startDialog(): DialogSnapshot {
  return pureDialog.initial()[0];
}

/** The machine's transitions on one shared inert scope (pure.ts): a dialog steps several times a call. */
const pureDialog = pureMachine(dialogMachine);

/**
 * One transition, pure (XState's transition()): the next snapshot and what
 * the adapter is to do, in order. The machine's own bookkeeping (assign) is
 * already in the snapshot; only the emitted effects are returned.
 */
export function stepDialog(snapshot: DialogSnapshot, event: DialogMachineEvent): [DialogSnapshot, DialogEffect[]] {
  const [next, actions] = pureDialog.transition(snapshot, event);
  // Emitted events come back as actions of type `xstate.emit`; the types only know the named actions.
  const effects = (actions as ReadonlyArray<{ type: string; params?: unknown }>)
    .filter((a) => a.type === 'xstate.emit')
    .map((a) => (a.params as { event: DialogEffect }).event);
  return [next, effects];
}
