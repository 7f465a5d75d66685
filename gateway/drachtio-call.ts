import type Srf from 'drachtio-srf';
import { saysHuman, saysVoicemail, type DialogEvent, type SignalingOptions } from './signaling.ts';
import { negotiate, readOffer, type Negotiated } from './media/sdp.ts';
import { answerSession } from './session-timer.ts';
import type { DialogMedia } from './dialog-media.ts';
import { CANCEL_GUARD_MS, DialogTimers, driveDialog, type DrivenDialog } from './dialog-driver.ts';
import { startDialog, type DialogEffect, type DialogMachineEvent } from '../machines/dialog.ts';
import { cancelAwaitsProvisional, dialogSettled, heldByFarEnd, holdEvent } from '../machines/dialog-state.ts';

// One call placed on drachtio-server (drachtio.ts): what drachtio-srf tells
// us of its INVITE and its dialog becomes the dialog machine's events
// (machines/dialog.ts, driven by dialog-driver.ts), and what the machine
// decides is done with drachtio-srf calls (a CANCEL of the INVITE kept from
// cbRequest, a BYE by Dialog.destroy); mid-call, the callee's re-INVITE and
// UPDATE are answered by session-timer.ts's answerSession.

/** How long our offer in a 2xx (to an offerless re-INVITE) waits for the ACK that answers it (64*T1). */
const OFFER_WAIT_MS = 32_000;

type TimerName = 'noResponse' | 'ring' | 'guard' | 'offer';

export type DrachtioLog = NonNullable<SignalingOptions['log']> & { debug?: (o: object, m: string) => void };

/** What a call asks of the signaling that placed it (drachtio.ts). */
export type CallOwner = {
  readonly log: DrachtioLog;
  /** A DialogEvent for the listener (dialog-driver.ts reportEvent). */
  report(key: string, event: DialogEvent): void;
  /** The call leaves active(). */
  released(c: DrachtioCall): void;
  /** Nothing more to hear for the call: close() no longer waits for it. */
  settled(c: DrachtioCall): void;
};

export class DrachtioCall implements DrivenDialog {
  readonly key: string;
  snapshot = startDialog();
  queue: DialogMachineEvent[] = [];
  driving = false;
  /** The INVITE on the wire (cbRequest): what a CANCEL cancels. */
  private invite: Srf.SrfRequest | null = null;
  /** Our CANCEL was handed to drachtio-server (once). */
  private canceled = false;
  /** The dialog drachtio-srf made of the 2xx; null before one. */
  private dialog: Srf.Dialog | null = null;
  /** Our BYE on it: not sent, out, or answered (or the far end's came). */
  private bye: 'none' | 'sent' | 'done' = 'none';
  /** The answer in the 2xx being handled, for connectMedia. */
  private answer: Negotiated | undefined;
  readonly timers = new DialogTimers<TimerName>();
  /** Its RTP stream, our SDP session, and the far end's. */
  readonly media: DialogMedia;
  private readonly owner: CallOwner;
  private readonly log: DrachtioLog;

  constructor(key: string, media: DialogMedia, owner: CallOwner) {
    this.key = key;
    this.media = media;
    this.owner = owner;
    this.log = owner.log;
  }

  /** Hands an event to the call's machine and carries out what it decides (dialog-driver.ts). */
  drive(event: DialogMachineEvent): Promise<void> {
    const debug = this.log.debug?.bind(this.log);
    const sent = driveDialog(this, event, (f) => this.carryOut(f), debug && ((step) => debug(step, 'drachtio: dialog')));
    this.cancelEarly();
    if (this.settled()) this.owner.settled(this);
    return sent;
  }

  /** Nothing more to hear for the call: its INVITE has its outcome (or never had an answer) and our BYE, if any, is answered. */
  settled(): boolean {
    return dialogSettled(this.snapshot) && this.bye !== 'sent';
  }

  /** Its timers stopped and its stream closed, whatever its state (the signaling closes). */
  drop(): void {
    this.timers.clearAll();
    this.media.close();
  }

  /**
   * Sends the INVITE (srf.createUAC) with our timers running from it, as the
   * embedded stack's do; resolves once it is on the wire (or could not be
   * sent). What comes back is handed to the machine.
   */
  send(srf: Srf, target: string, headers: Record<string, string>, o: { noResponseMs: number; ringMs: number }): Promise<void> {
    this.timers.set('noResponse', o.noResponseMs, () => void this.drive({ type: 'NO_RESPONSE' }));
    this.timers.set('ring', o.ringMs, () => void this.drive({ type: 'RING_TIMEOUT' }));
    return new Promise<void>((sent) => {
      // drachtio-srf calls cbRequest(err, req) (lib/srf.js, 5.0.29), though its
      // types say (req): the INVITE is the second argument. On err there is no
      // INVITE; createUAC rejects, and onFailure reports it.
      const onRequest = (err: Error | null, invite?: Srf.SrfRequest) => {
        if (!err && invite) this.invite = invite;
        // Hung up (or closed) while the INVITE was being sent.
        this.cancelEarly();
        sent();
      };
      srf.createUAC(target, { localSdp: this.media.offer(), headers }, {
        cbRequest: onRequest as unknown as (invite: Srf.SrfRequest) => void,
        cbProvisional: (res) => void this.drive({ type: 'PROVISIONAL', status: res.status }),
      }).then((dialog) => this.on2xx(dialog), (err) => this.onFailure(err))
        .catch((err) => this.log.error({ key: this.key, err: String(err) }, 'drachtio: the answer to the INVITE could not be handled'))
        .finally(sent);
    });
  }

  /**
   * drachtio-server never passes a 100 Trying on to us (sofia-sip keeps it),
   * so the machine, which CANCELs once a 1xx came, could wait for a 180 that
   * never comes. But drachtio-server itself holds a CANCEL until the INVITE
   * has a 1xx (RFC 3261 9.1): where the machine waits for one to CANCEL, the
   * CANCEL is handed over at once, and the machine's own sendCancel, when a
   * 180 comes, finds it sent.
   */
  private cancelEarly(): void {
    if (cancelAwaitsProvisional(this.snapshot)) this.sendCancel();
  }

  private carryOut(f: DialogEffect): Promise<void> | void {
    switch (f.type) {
      case 'report': return this.owner.report(this.key, f.event);
      case 'sendCancel': return this.sendCancel();
      // drachtio-srf ACKs the 2xx before createUAC resolves, and
      // drachtio-server ACKs its retransmissions: nothing is ours to send.
      case 'sendAck': return;
      // drachtio-srf gives us one dialog per INVITE (the first 2xx), so the tag names it.
      case 'sendBye': return this.sendBye();
      case 'armCancelGuard': return this.timers.set('guard', CANCEL_GUARD_MS, () => void this.drive({ type: 'CANCEL_GUARD' }));
      // Never asked for: no 3xx is handed to the machine as one to follow
      // (FINAL_ERROR with redirect false), so a redirect ends the call rejected.
      case 'followRedirect': return;
      case 'connectMedia': return this.connectMedia();
      case 'inviteOver': return this.timers.clear('noResponse', 'ring', 'guard');
      case 'release': return this.release();
    }
  }

  /** Out of active(): its stream closed and no longer watched; a CANCEL or BYE still out keeps it in the signaling's `open`. */
  private release(): void {
    this.owner.released(this);
    this.media.close();
    this.timers.clear('offer');
  }

  /** The CANCEL of our INVITE, once it is on the wire (cbRequest); its 487 comes as createUAC's rejection. */
  private sendCancel(): void {
    const invite = this.invite;
    if (!invite || this.canceled) return;
    this.canceled = true;
    this.log.info({ key: this.key, why: this.snapshot.context.cancel ?? 'abandon' }, 'drachtio: CANCEL');
    invite.cancel((err) => { if (err) this.log.warn({ key: this.key, err: String(err) }, 'drachtio: CANCEL failed'); });
  }

  /** Our BYE (Dialog.destroy); resolves once it is answered (or failed: logged), when the machine hears BYE_ANSWERED. */
  private sendBye(): Promise<void> | void {
    const dialog = this.dialog;
    if (!dialog || this.bye !== 'none') return;
    this.bye = 'sent';
    this.log.info({ key: this.key }, 'drachtio: BYE');
    return new Promise<void>((ok) => {
      dialog.destroy(undefined, (err) => {
        this.bye = 'done';
        if (err) this.log.warn({ key: this.key, err: String(err) }, 'drachtio: BYE failed');
        void this.drive({ type: 'BYE_ANSWERED' });
        ok();
      });
    });
  }

  /** The answer's SDP decides where and how our stream sends; from then on the far end's silence is watched. */
  private connectMedia(): void {
    const remote = this.answer;
    this.answer = undefined;
    if (!remote) return;
    const hold = holdEvent(this.snapshot, this.media.answered(remote));
    if (hold) void this.drive(hold);
  }

  /** The far end's new SDP applied to the stream (dialog-media.ts); the machine hears when it holds the call or resumes it. */
  private applyOffer(n: Negotiated): void {
    const hold = holdEvent(this.snapshot, this.media.update(n));
    if (!hold) return;
    this.log.info({ key: this.key, direction: n.direction }, hold.type === 'HOLD' ? 'drachtio: the far end holds the call' : 'drachtio: the far end resumed the call');
    void this.drive(hold);
  }

  /**
   * A re-INVITE or UPDATE from the callee on the answered dialog (RFC 3261
   * 14.2, RFC 3311): hold and resume, a new media address, or a session
   * refresh (RFC 4028), answered by answerSession (session-timer.ts) as the
   * embedded stack answers it. drachtio-server orders the dialog's CSeq
   * numbers and retransmits our 2xx until its ACK.
   */
  private onSessionRequest(dialog: Srf.Dialog, method: 'INVITE' | 'UPDATE', req: Srf.SrfRequest, res: Srf.SrfResponse): void {
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      this.log.info({ key: this.key, method, status }, `drachtio: in-dialog ${method} refused: ${reason}`);
      res.send(status, reason, { headers });
    };
    // A dialog we are hanging up (or whose 2xx had no media we can use) is gone for the far end too.
    if (!this.snapshot.matches({ live: 'answered' })) return refuse(481, 'Call/Transaction Does Not Exist');
    const answer = answerSession({
      method,
      get: (name) => req.get(name),
      body: typeof req.body === 'string' ? req.body : undefined,
      takesOffer: this.snapshot.can({ type: 'REMOTE_OFFER' }),
      now: this.media.remote,
      side: () => this.media.next(),
    });
    if (!answer.ok) {
      if (answer.why) this.log.warn({ key: this.key, err: answer.why }, 'drachtio: an in-dialog offer without audio we can use');
      return refuse(answer.status, answer.reason, answer.headers);
    }
    if (answer.offered) this.applyOffer(answer.offered);
    // drachtio-srf answers some requests itself from it (an UPDATE nobody listens to).
    if (answer.body !== undefined) dialog.local.sdp = answer.body;
    const headers = { Contact: (dialog as unknown as { local: { contact: string } }).local.contact, ...answer.headers };
    this.log.info({ key: this.key, method, offer: answer.offered !== undefined, held: heldByFarEnd(this.snapshot), sessionExpires: answer.sessionExpires }, `drachtio: in-dialog ${method} answered 200`);
    res.send(200, 'OK', { headers, ...(answer.body !== undefined ? { body: answer.body } : {}) });
    if (!answer.offerSent) return;
    void this.drive({ type: 'OFFER_SENT' });
    this.timers.set('offer', OFFER_WAIT_MS, () => {
      this.log.warn({ key: this.key }, 'drachtio: no ACK to our 2xx to a re-INVITE');
      void this.drive({ type: 'OFFER_DONE' });
    });
  }

  /** The ACK of our 2xx to an offerless re-INVITE brings the answer to our offer. */
  private onAck(ack: Srf.SrfRequest): void {
    if (!this.snapshot.matches({ live: { answered: { offer: 'sent' } } })) return;
    this.timers.clear('offer');
    void this.drive({ type: 'OFFER_DONE' });
    try {
      this.applyOffer(readOffer(ack.body ?? '', this.media.remote));
    } catch (err) {
      this.log.warn({ key: this.key, err: String(err) }, 'drachtio: the answer in the ACK has no audio we can use; the media stays as it was');
    }
  }

  /**
   * createUAC resolved: a 200 came, and drachtio-srf ACKed it. Its SDP must
   * name a codec we speak (operator.md): without one the machine hangs up
   * (no_media). Whatever the machine's state, the dialog's requests are
   * listened to: a BYE crossing ours, a re-INVITE on a dialog we are leaving (481).
   */
  private on2xx(dialog: Srf.Dialog): void {
    this.dialog = dialog;
    const res = (dialog as unknown as { res?: Srf.SrfResponse }).res;
    try {
      this.answer = negotiate(dialog.remote.sdp ?? '');
    } catch (err) {
      this.answer = undefined;
      this.log.warn({ key: this.key, err: String(err) }, 'drachtio: the answer has no media we can use');
    }
    dialog.on('destroy', () => {
      if (this.bye === 'none') this.bye = 'done'; // ours is not needed any more
      void this.drive({ type: 'REMOTE_BYE' });
    });
    dialog.on('modify', (req, r) => this.onSessionRequest(dialog, 'INVITE', req, r));
    dialog.on('update', (req, r) => this.onSessionRequest(dialog, 'UPDATE', req, r));
    dialog.on('ack', (ack) => this.onAck(ack));
    void this.drive({
      type: 'FINAL_2XX',
      tag: dialog.sip.remoteTag,
      status: res?.status ?? 200,
      reason: res?.reason ?? 'OK',
      usableMedia: this.answer !== undefined,
      voicemail: saysVoicemail(res?.get('X-Tolk-Answered-By')),
      ...(saysHuman(res?.get('X-Tolk-Answered-By')) ? { human: true } : {}),
    });
  }

  /** createUAC rejected: a final answer of 300 to 699 (drachtio-srf ACKed it), or no INVITE could be sent at all. */
  private onFailure(err: { status?: number; reason?: string; message?: string }): void {
    if (typeof err.status === 'number') {
      void this.drive({ type: 'FINAL_ERROR', status: err.status, reason: err.reason ?? '', redirect: false });
      return;
    }
    this.log.warn({ key: this.key, err: err.message ?? String(err) }, 'drachtio: the INVITE failed');
    void this.drive({ type: 'GAVE_UP' });
  }
}
