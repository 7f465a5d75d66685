import Srf from 'drachtio-srf';
import { saysHuman, saysVoicemail, type PlaceRequest, type SignalingOptions, type SipSignaling } from './signaling.ts';
import { negotiate, readOffer, type Negotiated } from './media/sdp.ts';
import { watchMedia } from './media-watch.ts';
import { ALLOW, answerSession, CAPABILITIES } from './session-timer.ts';
import { DialogMedia } from './dialog-media.ts';
import { CANCEL_GUARD_MS, CLOSE_WAIT_MS, DialogTimers, driveDialog, reportEvent, settleWithin, type DrivenDialog } from './dialog-driver.ts';
import { startDialog, type DialogEffect, type DialogMachineEvent } from '../machines/dialog.ts';
import { cancelAwaitsProvisional, dialogSettled, heldByFarEnd, holdEvent } from '../machines/dialog-state.ts';

// The gateway's signaling on drachtio-server (a SIP server our process drives
// over TCP, drachtio-srf): the SipSignaling interface of signaling.ts, so the
// gateway picks it by configuration (DRACHTIO_HOST) instead of the embedded
// stack. drachtio-server does the SIP transactions (retransmissions, ACKs,
// CANCEL matching, CSeq order in the dialog); this adapter places each call
// with srf.createUAC, and drives its dialog through the same machine as the
// embedded stack's (machines/dialog.ts, by dialog-driver.ts): what drachtio-srf
// tells us becomes the machine's events (cbProvisional a PROVISIONAL, the
// dialog createUAC resolves with a FINAL_2XX, its rejection a FINAL_ERROR,
// the dialog's 'destroy' a REMOTE_BYE, the answer to our Dialog.destroy a
// BYE_ANSWERED), our timers its NO_RESPONSE, RING_TIMEOUT and CANCEL_GUARD,
// and what it decides is done with srf calls (a CANCEL of the INVITE kept
// from cbRequest, a BYE by Dialog.destroy). So the dialog's rules (when a
// CANCEL may go, what is reported and that the end is reported once, a 2xx
// crossing our CANCEL, an answer without usable media) are written once for
// both adapters.
//
// Media is ours, as with the embedded stack (dialog-media.ts): the offer
// names the call's RTP port on the media plane, the answer's SDP connects it,
// and the far end's silence is watched (media-watch.ts). Mid-call, the
// callee's re-INVITE and UPDATE are answered by session-timer.ts's
// answerSession (Dialog 'modify' and 'update'; the ACK that answers our
// offer comes as 'ack'). Outside our dialogs, drachtio-server hands us
// INVITEs (refused 403) and OPTIONS (200), as the embedded stack answers them.
//
// drachtio-server itself has no npm or Debian package: the adapter's tests
// run against one only when DRACHTIO_HOST names it (README, Testing).

export type DrachtioOptions = SignalingOptions & {
  drachtio: { host: string; port: number; secret: string; connectTimeoutMs?: number };
  /** The address our SDP offers media on (the media plane's host). */
  mediaHost: string;
};

/** How long our offer in a 2xx (to an offerless re-INVITE) waits for the ACK that answers it (64*T1). */
const OFFER_WAIT_MS = 32_000;

type TimerName = 'noResponse' | 'ring' | 'guard' | 'offer';

type Call = DrivenDialog & {
  /** The INVITE on the wire (cbRequest): what a CANCEL cancels. */
  invite: Srf.SrfRequest | null;
  /** Our CANCEL was handed to drachtio-server (once). */
  canceled: boolean;
  /** The dialog drachtio-srf made of the 2xx; null before one. */
  dialog: Srf.Dialog | null;
  /** Our BYE on it: not sent, out, or answered (or the far end's came). */
  bye: 'none' | 'sent' | 'done';
  /** The answer in the 2xx being handled, for connectMedia. */
  answer: Negotiated | undefined;
  timers: DialogTimers<TimerName>;
  /** Its RTP stream, our SDP session, and the far end's. */
  media: DialogMedia;
};

/** The SIP address drachtio-server reports at connect (`udp/10.0.0.1:5060,tcp/...`): the first UDP one, `host:port`. */
export function drachtioAddress(hostport: string): string {
  const first = hostport.split(',').map((s) => s.trim()).find((s) => s.startsWith('udp/')) ?? hostport.split(',')[0] ?? '';
  return first.replace(/^[a-z]+\//, '');
}

/**
 * Stops drachtio-srf's reconnect loop after a failed start. It has no call
 * for that before a connection exists (disconnect() asserts a socket), so
 * its wire protocol is told it is closing, as disconnect() would, and its
 * retry timer and socket are dropped. Its error listener stays: a late
 * socket error is logged, never thrown.
 */
function abandon(srf: Srf): void {
  type Wire = { closing: boolean; reconnectVars?: { retryTimer: NodeJS.Timeout | null }; socket?: { destroy(): void } };
  const wp = (srf as unknown as { app?: { client?: { wp?: Wire } } }).app?.client?.wp;
  if (!wp) return;
  wp.closing = true;
  if (wp.reconnectVars?.retryTimer) clearTimeout(wp.reconnectVars.retryTimer);
  if (wp.reconnectVars) wp.reconnectVars.retryTimer = null;
  wp.socket?.destroy();
}

export async function createDrachtioSignaling(opts: DrachtioOptions): Promise<SipSignaling> {
  const log = opts.log ?? { info() {}, warn() {}, error() {} };
  const srf = new Srf();
  const where = `${opts.drachtio.host}:${opts.drachtio.port}`;
  const waitMs = opts.drachtio.connectTimeoutMs ?? 10_000;
  /** Sources of INVITEs from outside our dialogs, when last logged: one line a minute each (a scanner sends thousands). */
  const strangers = new Map<string, number>();

  // Nobody calls us (yet): an INVITE from outside our dialogs is refused 403,
  // as the embedded stack does. drachtio-server's transaction answers its
  // retransmissions with the same 403. Registered before the connection, so
  // drachtio-server routes INVITEs to us from the start.
  srf.invite((req, res) => {
    const source = `${req.source_address}:${req.source_port}`;
    const now = Date.now();
    if (now - (strangers.get(req.source_address) ?? 0) > 60_000) {
      if (strangers.size >= 4096) strangers.clear();
      strangers.set(req.source_address, now);
      log.info({ from: source, callId: req.get('Call-ID'), status: 403 }, 'drachtio: INVITE from outside our dialogs refused');
    }
    res.send(403);
  });
  // A carrier's keep-alive: without a handler drachtio-server answers 503,
  // which takes the trunk for down. Answered as the embedded stack does.
  srf.use('options', (_req, res) => {
    res.send(200, { headers: { ...CAPABILITIES } });
  });

  let lastError = '';
  const address = await new Promise<string>((ok, fail) => {
    const refuse = () => new Error(`drachtio: no connection to drachtio-server at ${where}${lastError ? ` (${lastError})` : ''}; check DRACHTIO_HOST, DRACHTIO_PORT and DRACHTIO_SECRET`);
    const timer = setTimeout(() => fail(refuse()), waitMs);
    srf.once('connect', (err: Error | null, hostport: string) => {
      clearTimeout(timer);
      if (err) {
        lastError = err.message;
        fail(refuse());
      } else ok(drachtioAddress(hostport));
    });
    srf.on('error', (err: Error) => {
      lastError = err.message;
      log.warn({ err: err.message, where }, 'drachtio: connection error');
    });
    // (Typed as a promise; this version returns the Srf and reports through 'connect' and 'error'.)
    void srf.connect({ host: opts.drachtio.host, port: opts.drachtio.port, secret: opts.drachtio.secret });
  }).catch((err: Error) => {
    abandon(srf);
    throw err;
  });

  const calls = new Map<string, Call>();
  /** Every call we still answer for: the active ones, and those whose CANCEL or BYE waits for its answer. */
  const open = new Set<Call>();
  let closing: Promise<void> | undefined;
  const debug = (log as { debug?: (o: object, m: string) => void }).debug?.bind(log);

  // With a media plane and a media timeout: an answered call whose far end
  // goes silent gets our BYE and is reported media_timeout (the machine's MEDIA_SILENT).
  const mediaWatch = opts.media && opts.mediaTimeoutSeconds !== undefined ? watchMedia({
    plane: opts.media,
    timeoutSeconds: opts.mediaTimeoutSeconds,
    log,
    onSilent: (key, quietMs) => {
      const c = calls.get(key);
      if (!c) return;
      log.warn({ key, quietMs }, 'drachtio: no RTP or RTCP from the far end: BYE');
      void drive(c, { type: 'MEDIA_SILENT' });
    },
  }) : undefined;

  /** Hands an event to the call's machine and carries out what it decides (dialog-driver.ts). */
  function drive(c: Call, event: DialogMachineEvent): Promise<void> {
    const sent = driveDialog(c, event, (f) => carryOut(c, f), debug && ((step) => debug(step, 'drachtio: dialog')));
    cancelEarly(c);
    if (settled(c)) open.delete(c);
    return sent;
  }

  /**
   * drachtio-server never passes a 100 Trying on to us (sofia-sip keeps it),
   * so the machine, which CANCELs once a 1xx came, could wait for a 180 that
   * never comes. But drachtio-server itself holds a CANCEL until the INVITE
   * has a 1xx (RFC 3261 9.1): where the machine waits for one to CANCEL, the
   * CANCEL is handed over at once, and the machine's own sendCancel, when a
   * 180 comes, finds it sent.
   */
  function cancelEarly(c: Call): void {
    if (cancelAwaitsProvisional(c.snapshot)) sendCancel(c);
  }

  /** Nothing more to hear for the call: its INVITE has its outcome (or never had an answer) and our BYE, if any, is answered. */
  const settled = (c: Call) => dialogSettled(c.snapshot) && c.bye !== 'sent';

  function carryOut(c: Call, f: DialogEffect): Promise<void> | void {
    switch (f.type) {
      case 'report': return reportEvent(log, 'drachtio', opts.onEvent, c.key, f.event);
      case 'sendCancel': return sendCancel(c);
      // drachtio-srf ACKs the 2xx before createUAC resolves, and
      // drachtio-server ACKs its retransmissions: nothing is ours to send.
      case 'sendAck': return;
      // drachtio-srf gives us one dialog per INVITE (the first 2xx), so the tag names it.
      case 'sendBye': return sendBye(c);
      case 'armCancelGuard': return c.timers.set('guard', CANCEL_GUARD_MS, () => void drive(c, { type: 'CANCEL_GUARD' }));
      // Never asked for: no 3xx is handed to the machine as one to follow
      // (FINAL_ERROR with redirect false), so a redirect ends the call rejected.
      case 'followRedirect': return;
      case 'connectMedia': return connectMedia(c);
      case 'inviteOver': return c.timers.clear('noResponse', 'ring', 'guard');
      case 'release': return release(c);
    }
  }

  /** Out of active(): its stream closed and no longer watched; a CANCEL or BYE still out keeps it in `open`. */
  function release(c: Call): void {
    if (calls.get(c.key) === c) calls.delete(c.key);
    c.media.close();
    c.timers.clear('offer');
  }

  /** The CANCEL of our INVITE, once it is on the wire (cbRequest); its 487 comes as createUAC's rejection. */
  function sendCancel(c: Call): void {
    const invite = c.invite;
    if (!invite || c.canceled) return;
    c.canceled = true;
    log.info({ key: c.key, why: c.snapshot.context.cancel ?? 'abandon' }, 'drachtio: CANCEL');
    invite.cancel((err) => { if (err) log.warn({ key: c.key, err: String(err) }, 'drachtio: CANCEL failed'); });
  }

  /** Our BYE (Dialog.destroy); resolves once it is answered (or failed: logged), when the machine hears BYE_ANSWERED. */
  function sendBye(c: Call): Promise<void> | void {
    const dialog = c.dialog;
    if (!dialog || c.bye !== 'none') return;
    c.bye = 'sent';
    log.info({ key: c.key }, 'drachtio: BYE');
    return new Promise<void>((ok) => {
      dialog.destroy(undefined, (err) => {
        c.bye = 'done';
        if (err) log.warn({ key: c.key, err: String(err) }, 'drachtio: BYE failed');
        void drive(c, { type: 'BYE_ANSWERED' });
        ok();
      });
    });
  }

  /** The answer's SDP decides where and how our stream sends; from then on the far end's silence is watched. */
  function connectMedia(c: Call): void {
    const remote = c.answer;
    c.answer = undefined;
    if (!remote) return;
    const hold = holdEvent(c.snapshot, c.media.answered(remote));
    if (hold) void drive(c, hold);
  }

  /** The far end's new SDP applied to the stream (dialog-media.ts); the machine hears when it holds the call or resumes it. */
  function applyOffer(c: Call, n: Negotiated): void {
    const hold = holdEvent(c.snapshot, c.media.update(n));
    if (!hold) return;
    log.info({ key: c.key, direction: n.direction }, hold.type === 'HOLD' ? 'drachtio: the far end holds the call' : 'drachtio: the far end resumed the call');
    void drive(c, hold);
  }

  /**
   * A re-INVITE or UPDATE from the callee on the answered dialog (RFC 3261
   * 14.2, RFC 3311): hold and resume, a new media address, or a session
   * refresh (RFC 4028), answered by answerSession (session-timer.ts) as the
   * embedded stack answers it. drachtio-server orders the dialog's CSeq
   * numbers and retransmits our 2xx until its ACK.
   */
  function onSessionRequest(c: Call, dialog: Srf.Dialog, method: 'INVITE' | 'UPDATE', req: Srf.SrfRequest, res: Srf.SrfResponse): void {
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      log.info({ key: c.key, method, status }, `drachtio: in-dialog ${method} refused: ${reason}`);
      res.send(status, reason, { headers });
    };
    // A dialog we are hanging up (or whose 2xx had no media we can use) is gone for the far end too.
    if (!c.snapshot.matches({ live: 'answered' })) return refuse(481, 'Call/Transaction Does Not Exist');
    const answer = answerSession({
      method,
      get: (name) => req.get(name),
      body: typeof req.body === 'string' ? req.body : undefined,
      takesOffer: c.snapshot.can({ type: 'REMOTE_OFFER' }),
      now: c.media.remote,
      side: () => c.media.next(),
    });
    if (!answer.ok) {
      if (answer.why) log.warn({ key: c.key, err: answer.why }, 'drachtio: an in-dialog offer without audio we can use');
      return refuse(answer.status, answer.reason, answer.headers);
    }
    if (answer.offered) applyOffer(c, answer.offered);
    // drachtio-srf answers some requests itself from it (an UPDATE nobody listens to).
    if (answer.body !== undefined) dialog.local.sdp = answer.body;
    const headers = { Contact: (dialog as unknown as { local: { contact: string } }).local.contact, ...answer.headers };
    log.info({ key: c.key, method, offer: answer.offered !== undefined, held: heldByFarEnd(c.snapshot), sessionExpires: answer.sessionExpires }, `drachtio: in-dialog ${method} answered 200`);
    res.send(200, 'OK', { headers, ...(answer.body !== undefined ? { body: answer.body } : {}) });
    if (!answer.offerSent) return;
    void drive(c, { type: 'OFFER_SENT' });
    c.timers.set('offer', OFFER_WAIT_MS, () => {
      log.warn({ key: c.key }, 'drachtio: no ACK to our 2xx to a re-INVITE');
      void drive(c, { type: 'OFFER_DONE' });
    });
  }

  /** The ACK of our 2xx to an offerless re-INVITE brings the answer to our offer. */
  function onAck(c: Call, ack: Srf.SrfRequest): void {
    if (!c.snapshot.matches({ live: { answered: { offer: 'sent' } } })) return;
    c.timers.clear('offer');
    void drive(c, { type: 'OFFER_DONE' });
    try {
      applyOffer(c, readOffer(ack.body ?? '', c.media.remote));
    } catch (err) {
      log.warn({ key: c.key, err: String(err) }, 'drachtio: the answer in the ACK has no audio we can use; the media stays as it was');
    }
  }

  /**
   * createUAC resolved: a 200 came, and drachtio-srf ACKed it. Its SDP must
   * name a codec we speak (operator.md): without one the machine hangs up
   * (no_media). Whatever the machine's state, the dialog's requests are
   * listened to: a BYE crossing ours, a re-INVITE on a dialog we are leaving (481).
   */
  function on2xx(c: Call, dialog: Srf.Dialog): void {
    c.dialog = dialog;
    const res = (dialog as unknown as { res?: Srf.SrfResponse }).res;
    try {
      c.answer = negotiate(dialog.remote.sdp ?? '');
    } catch (err) {
      c.answer = undefined;
      log.warn({ key: c.key, err: String(err) }, 'drachtio: the answer has no media we can use');
    }
    dialog.on('destroy', () => {
      if (c.bye === 'none') c.bye = 'done'; // ours is not needed any more
      void drive(c, { type: 'REMOTE_BYE' });
    });
    dialog.on('modify', (req, r) => onSessionRequest(c, dialog, 'INVITE', req, r));
    dialog.on('update', (req, r) => onSessionRequest(c, dialog, 'UPDATE', req, r));
    dialog.on('ack', (ack) => onAck(c, ack));
    void drive(c, {
      type: 'FINAL_2XX',
      tag: dialog.sip.remoteTag,
      status: res?.status ?? 200,
      reason: res?.reason ?? 'OK',
      usableMedia: c.answer !== undefined,
      voicemail: saysVoicemail(res?.get('X-Tolk-Answered-By')),
      ...(saysHuman(res?.get('X-Tolk-Answered-By')) ? { human: true } : {}),
    });
  }

  /** createUAC rejected: a final answer of 300 to 699 (drachtio-srf ACKed it), or no INVITE could be sent at all. */
  function onFailure(c: Call, err: { status?: number; reason?: string; message?: string }): void {
    if (typeof err.status === 'number') {
      void drive(c, { type: 'FINAL_ERROR', status: err.status, reason: err.reason ?? '', redirect: false });
      return;
    }
    log.warn({ key: c.key, err: err.message ?? String(err) }, 'drachtio: the INVITE failed');
    void drive(c, { type: 'GAVE_UP' });
  }

  async function place(req: PlaceRequest): Promise<void> {
    // Trunks (digest answers, outbound proxy, P-Asserted-Identity) are the embedded stack's for now.
    if (req.trunk) throw new Error('place: calls through a trunk need the embedded SIP stack (unset DRACHTIO_HOST)');
    if (closing) throw new Error('place: the drachtio signaling is closed');
    if (calls.has(req.key)) throw new Error(`drachtio: dialog ${req.key} is already placed`);
    const c: Call = {
      key: req.key, snapshot: startDialog(), queue: [], driving: false,
      invite: null, canceled: false, dialog: null, bye: 'none', answer: undefined, timers: new DialogTimers(),
      media: new DialogMedia({ key: req.key, host: opts.mediaHost, plane: opts.media, watch: mediaWatch, log }),
    };
    calls.set(req.key, c);
    open.add(c);
    // With a media plane, the offer names this call's own RTP port.
    const opening = c.media.open();
    if (opening) await opening;
    // Our timers run from the sending of the INVITE, as the embedded stack's do.
    c.timers.set('noResponse', (opts.noResponseSeconds ?? 32) * 1000, () => void drive(c, { type: 'NO_RESPONSE' }));
    c.timers.set('ring', opts.ringTimeoutSeconds * 1000, () => void drive(c, { type: 'RING_TIMEOUT' }));
    const headers: Record<string, string> = { From: `<sip:${req.from}@${address}>`, Allow: ALLOW, ...req.headers };
    await new Promise<void>((sent) => {
      // drachtio-srf calls cbRequest(err, req) (lib/srf.js, 5.0.29), though its
      // types say (req): the INVITE is the second argument. On err there is no
      // INVITE; createUAC rejects, and onFailure reports it.
      const onRequest = (err: Error | null, invite?: Srf.SrfRequest) => {
        if (!err && invite) c.invite = invite;
        // Hung up (or closed) while the INVITE was being sent.
        cancelEarly(c);
        sent();
      };
      srf.createUAC(req.target, { localSdp: c.media.offer(), headers }, {
        cbRequest: onRequest as unknown as (invite: Srf.SrfRequest) => void,
        cbProvisional: (res) => void drive(c, { type: 'PROVISIONAL', status: res.status }),
      }).then((dialog) => on2xx(c, dialog), (err) => onFailure(c, err))
        .catch((err) => log.error({ key: c.key, err: String(err) }, 'drachtio: the answer to the INVITE could not be handled'))
        .finally(sent);
    });
  }

  /** Our BYE (answered) or CANCEL (not yet): the machine decides, and reports nothing for it but a CANCEL's outcome. */
  async function hangup(key: string): Promise<void> {
    const c = calls.get(key);
    if (c) await drive(c, { type: 'HANGUP' });
  }

  return {
    address,
    place,
    hangup,
    active: () => [...calls.keys()],
    hasMedia: (key) => calls.get(key)?.media.playable ?? false,
    async play(key, utterance, pcm, o = {}) {
      const c = calls.get(key);
      if (!c) throw new Error(`play: dialog ${key} has no media`);
      return c.media.play(utterance, pcm, o);
    },
    close() {
      closing ??= (async () => {
        mediaWatch?.stop();
        // Nothing is reported for what close() ends: the answered get a BYE, the ringing a CANCEL.
        for (const c of [...open]) void drive(c, { type: 'CLOSE' });
        await settleWithin(() => open, settled, CLOSE_WAIT_MS);
        for (const c of open) {
          c.timers.clearAll();
          c.media.close();
        }
        open.clear();
        calls.clear();
        srf.disconnect();
      })();
      return closing;
    },
  };
}
