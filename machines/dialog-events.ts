// The words of the SIP dialog machine (dialog.ts): what an adapter feeds it
// (DialogMachineEvent), what it reports to the listener (DialogEvent,
// signaling.ts's too) and what it asks the adapter to do (DialogEffect).
// Types only, so the gateway's interface can name them without the machine.

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

/** What a transition asks the adapter to do, in the order given. */
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
