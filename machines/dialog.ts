import { assign, emit, setup, type SnapshotFrom } from 'xstate';
import { pureMachine } from './pure.ts';

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

export type DialogMachineEvent =
  /** A provisional answer from the far end (100 included). */
  | { type: 'PROVISIONAL'; status: number }
  /** A 2xx to the INVITE, its To tag saying which fork; `usableMedia`: its SDP has a codec we speak. */
  | { type: 'FINAL_2XX'; tag: string; status: number; reason: string; usableMedia: boolean; voicemail: boolean; human?: boolean }
  /** A final answer of 300 to 699 from the far end; `redirect`: a 301/302 to a target the adapter may follow (a sip: URI, the same number). */
  | { type: 'FINAL_ERROR'; status: number; reason: string; redirect?: boolean }
  /** Our no-response timer, or an ICMP unreachable: nothing answered the INVITE so far. */
  | { type: 'NO_RESPONSE' }
  /** The transaction layer gave up on the INVITE (Timer B, a transport failure): no final answer will come. */
  | { type: 'GAVE_UP' }
  /** We end the dialog (the API, the agent). */
  | { type: 'HANGUP' }
  /** The ring timer, run from the first INVITE. */
  | { type: 'RING_TIMEOUT' }
  /** After our CANCEL (or a hangup before any 1xx), the final answer did not come in time. */
  | { type: 'CANCEL_GUARD' }
  /** The far end's BYE on the answered dialog (the adapter answered it 200). */
  | { type: 'REMOTE_BYE' }
  /** The final answer to our BYE, or its transaction gave up. */
  | { type: 'BYE_ANSWERED' }
  /** No RTP and no RTCP from the far end for the media timeout (gateway/media-watch.ts). */
  | { type: 'MEDIA_SILENT' }
  /** The far end's SDP now says sendonly or inactive (or c=0.0.0.0): we must not send. */
  | { type: 'HOLD' }
  | { type: 'RESUME' }
  /** Our offer went out in a 2xx (to an offerless re-INVITE); its answer comes in the ACK. */
  | { type: 'OFFER_SENT' }
  /** That ACK came, or our 2xx went unacknowledged for 64*T1. */
  | { type: 'OFFER_DONE' }
  /** A re-INVITE or UPDATE brings an offer, or asks for one: taken only when no offer of ours is pending (else 491). */
  | { type: 'REMOTE_OFFER' }
  /** The stack is closing: end whatever is left, report nothing. */
  | { type: 'CLOSE' };

/** What a transition asks the adapter to do, in the order given. */
/** What happened to a dialog, in the order SIP says it. */
export type DialogEvent =
  /** A provisional answer (180 Ringing or 183 Session Progress); reported once per dialog. */
  | { type: 'ringing'; status: number }
  /**
   * A 2xx final answer (ACKed). `voicemail` is true when the callee said it is
   * a voicemail system (the header `X-Tolk-Answered-By: voicemail`); otherwise
   * the gateway tells a person from a machine by the audio (media/amd.ts).
   */
  | {
    type: 'answered'; status: number; voicemail: boolean; /** Its reason phrase (`OK` when the stack does not say). */ reason?: string;
    /**
     * The callee said a person answered (`X-Tolk-Answered-By: human`): taken at its word, as a
     * voicemail system's is. For test peers that echo our own audio back (SIPp's RTP echo), which
     * answering-machine detection would take for a recorded greeting.
     */
    human?: boolean;
  }
  /** A non-2xx final answer to the INVITE (486, 480, 503, 487 after our CANCEL...). */
  | { type: 'rejected'; status: number; reason: string }
  /** Still ringing (or silent after 1xx) at the ring timeout: the gateway CANCELed it. */
  | { type: 'ring_timeout' }
  /** No answer at all to the INVITE (Timer B, 32 s at T1 = 500 ms), or a transport error. */
  | { type: 'no_response' }
  /** The callee sent BYE on an answered dialog (answered 200 OK). */
  | { type: 'remote_hangup' }
  /**
   * A 2xx whose answer has no media we can use (no SDP, or no codec in
   * common: G.729 or Opus only): the stack ACKed it and sent BYE at once.
   * Reported instead of `answered` (operator.md: failed, no_media).
   */
  | { type: 'no_media'; status: number; reason: string }
  /**
   * An answered dialog whose far end sent no RTP and no RTCP for
   * `mediaTimeoutSeconds`: the stack sent BYE (operator.md: completed, media_timeout).
   */
  | { type: 'media_timeout' };

export type DialogEffect =
  | { type: 'report'; event: DialogEvent }
  /** CANCEL the INVITE (same branch, hop by hop). */
  | { type: 'sendCancel' }
  /** ACK the 2xx of the fork with this To tag (the same ACK again for a retransmitted 2xx). */
  | { type: 'sendAck'; tag: string }
  /** BYE the fork with this To tag (once per fork). */
  | { type: 'sendBye'; tag: string }
  /** Start (or restart) the wait for the INVITE's final answer after a CANCEL: CANCEL_GUARD when it runs out. */
  | { type: 'armCancelGuard' }
  /** Send the INVITE again, to the 3xx's Contact (next CSeq), and restart the no-response timer. */
  | { type: 'followRedirect' }
  /** Connect our RTP stream to the answer's SDP, and start watching the far end's silence. */
  | { type: 'connectMedia' }
  /** The INVITE has its outcome: its timers (no response, ring, CANCEL guard) stop. */
  | { type: 'inviteOver' }
  /** The dialog leaves the active ones: the stream is closed, the media watch stops. */
  | { type: 'release' };

export type CancelReason = 'hangup' | 'ring_timeout';

export type DialogContext = {
  /** The To tag of the 2xx that made the dialog; null before one. */
  peerTag: string | null;
  /** Why we CANCEL (decides what the end is reported as). */
  cancel: CancelReason | null;
  /** A 3xx was followed already: the next one ends the call. */
  redirected: boolean;
};

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

/** Whether the far end holds the answered dialog (its SDP says sendonly or inactive). */
export function heldByFarEnd(snapshot: DialogSnapshot): boolean {
  return snapshot.matches({ live: { answered: { media: 'held' } } });
}

/** HOLD or RESUME when the far end's new SDP changes whether it holds the call; nothing when it does not. */
export function holdEvent(snapshot: DialogSnapshot, held: boolean): DialogMachineEvent | undefined {
  return held === heldByFarEnd(snapshot) ? undefined : { type: held ? 'HOLD' : 'RESUME' };
}

/** We want the INVITE CANCELed, and the CANCEL waits for a 1xx (RFC 3261 9.1): the machine sends it when PROVISIONAL comes. */
export function cancelAwaitsProvisional(snapshot: DialogSnapshot): boolean {
  return snapshot.matches({ live: { inviting: { cancelling: 'awaitingProvisional' } } }) || snapshot.matches({ abandoning: 'awaitingProvisional' });
}

/** Nothing more to hear for the dialog's INVITE and its BYE: ended, or abandoned before any answer (a late one finds the stack closed). */
export function dialogSettled(snapshot: DialogSnapshot): boolean {
  return snapshot.matches('ended') || snapshot.matches({ abandoning: 'awaitingProvisional' });
}

/** The dialog's state as one dotted name (`live.inviting.ringing`, `live.answered` with its regions, `ended`), for logs and tests. */
export function dialogStateName(snapshot: { value: unknown }): string {
  const walk = (v: unknown): string => {
    if (typeof v === 'string') return v;
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1) return `${entries[0]![0]}.${walk(entries[0]![1])}`;
    return `{${entries.map(([k, x]) => `${k}:${walk(x)}`).join(',')}}`;
  };
  return walk(snapshot.value);
}
