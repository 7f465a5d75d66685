import Srf from 'drachtio-srf';
import { saysVoicemail, type DialogEvent, type PlaceRequest, type SignalingOptions, type SipSignaling } from './signaling.ts';
import { holds, negotiate, offer as sdpOffer, PLACEHOLDER_MEDIA_PORT, readOffer, streamAfter, type Negotiated } from './media/sdp.ts';
import { watchMedia } from './media-watch.ts';
import { ALLOW, answerSession, CAPABILITIES } from './session-timer.ts';

// The gateway's signaling on drachtio-server (a SIP server our process drives
// over TCP, drachtio-srf): the SipSignaling interface of signaling.ts, so the
// gateway picks it by configuration (DRACHTIO_HOST) instead of the embedded
// stack. drachtio-server does the SIP transactions (retransmissions, ACKs,
// CANCEL matching, CSeq order in the dialog); this adapter places each call
// with srf.createUAC, hears its 1xx through cbProvisional, keeps the INVITE
// from cbRequest to CANCEL it, and ends an answered call with Dialog.destroy
// (BYE). Media is ours, as with the embedded stack: the offer names the
// call's RTP port on the media plane, and the answer's SDP connects it; an
// answer with nothing we can speak is ACKed and hung up at once (no_media),
// and an answered call whose far end goes silent is hung up after
// mediaTimeoutSeconds (media_timeout). Mid-call, the callee's re-INVITE and
// UPDATE are ours to answer (Dialog 'modify' and 'update'; the ACK that
// answers our offer comes as 'ack'). Outside our dialogs, drachtio-server
// hands us INVITEs (refused 403) and OPTIONS (200), as the embedded stack
// answers them.
//
// What a dialog decides mid-call lives where every adapter can take it, not
// in this file, so that a SIP behaviour is written once: the SDP of an
// in-dialog offer, our answer and the hold (media/sdp.ts readOffer,
// answerOffer, streamAfter), the session timer and the refusals of a
// re-INVITE or UPDATE (session-timer.ts).
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

type Call = {
  key: string;
  /** The INVITE on the wire (cbRequest): what a CANCEL cancels. */
  invite: Srf.SrfRequest | null;
  dialog: Srf.Dialog | null;
  rang: boolean;
  /** A terminal event was reported, or we hung up. */
  done: boolean;
  /** Why we CANCELed: the ring timeout reports ring_timeout, a hangup the 487. */
  canceled: 'timeout' | 'hangup' | null;
  ringTimer: NodeJS.Timeout | null;
  /** This call's RTP port on the media plane (opened at place). */
  mediaPort: number | null;
  /** The stream is being (or was) connected to the far end's SDP; chained, so each connect follows the last. */
  connecting: Promise<void> | null;
  /** Where and how the stream sends now (kept through a hold). */
  remote: Negotiated | undefined;
  held: boolean;
  /** Our SDP's o= session id and the version of the last SDP we sent. */
  sdpSession: string;
  sdpVersion: number;
  /** Our offer went in a 2xx to an offerless re-INVITE; its ACK brings the answer. Cleared when it comes or after OFFER_WAIT_MS. */
  offerPending: NodeJS.Timeout | null;
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
  const calls = new Map<string, Call>();
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

  // With a media plane and a media timeout: an answered call whose far end
  // goes silent gets our BYE and is reported media_timeout.
  const media = opts.media;
  const mediaWatch = media && opts.mediaTimeoutSeconds ? watchMedia({
    plane: media,
    timeoutSeconds: opts.mediaTimeoutSeconds,
    log,
    onSilent: (key, quietMs) => {
      const c = calls.get(key);
      if (!c || c.done || !c.dialog) return;
      log.warn({ key, quietMs }, 'drachtio: no media from the far end: BYE');
      void bye(c, c.dialog);
      report(c, { type: 'media_timeout' });
    },
  }) : undefined;

  const report = (c: Call, e: DialogEvent) => {
    if (e.type !== 'ringing') {
      if (c.ringTimer) clearTimeout(c.ringTimer);
      c.ringTimer = null;
    }
    if (e.type !== 'ringing' && e.type !== 'answered') {
      c.done = true;
      release(c);
    }
    log.info({ key: c.key, event: e }, `drachtio: ${e.type}`);
    try {
      opts.onEvent(c.key, e);
    } catch (err) {
      log.error({ key: c.key, err: String(err) }, 'drachtio: event listener failed');
    }
  };

  /** Out of active(): its watch stopped, its stream closed (once). */
  const release = (c: Call) => {
    if (calls.get(c.key) === c) calls.delete(c.key);
    mediaWatch?.unwatch(c.key);
    if (c.offerPending) clearTimeout(c.offerPending);
    c.offerPending = null;
    if (c.mediaPort !== null && opts.media) {
      c.mediaPort = null;
      opts.media.close(c.key).catch((err) => log.warn({ key: c.key, err: String(err) }, 'media: close failed'));
    }
  };

  /** BYE on the dialog; resolves once it is answered (or failed: logged). */
  const bye = (c: Call, dialog: Srf.Dialog) => new Promise<void>((ok) => {
    dialog.destroy(undefined, (err) => {
      if (err) log.warn({ key: c.key, err: String(err) }, 'drachtio: BYE failed');
      ok();
    });
  });

  const cancel = (c: Call, why: 'timeout' | 'hangup') => {
    if (!c.invite || c.canceled) return;
    c.canceled = why;
    c.invite.cancel((err) => { if (err) log.warn({ key: c.key, err: String(err) }, 'drachtio: CANCEL failed'); });
  };

  /** (Re)connects the call's stream, after any connect still under way. */
  const connectStream = (c: Call, remote: Negotiated) => {
    const media = opts.media;
    if (c.mediaPort === null || !media) return;
    const before = c.connecting?.catch(() => {}) ?? Promise.resolve();
    const connecting = before.then(() => media.connect(c.key, remote));
    c.connecting = connecting;
    connecting.catch((err) => log.warn({ key: c.key, err: String(err) }, 'media: connect failed'));
  };

  /** The far end's new SDP applied to the stream: on hold it keeps its destination and only learns the direction. */
  const applyOffer = (c: Call, offered: Negotiated) => {
    const held = holds(offered);
    if (held !== c.held) log.info({ key: c.key, direction: offered.direction }, held ? 'drachtio: the far end holds the call' : 'drachtio: the far end resumed the call');
    c.held = held;
    const next = streamAfter(c.remote, offered);
    if (!next) return;
    c.remote = next;
    connectStream(c, next);
  };

  const side = (c: Call) => ({ host: opts.mediaHost, port: c.mediaPort ?? PLACEHOLDER_MEDIA_PORT, sessionId: c.sdpSession, version: ++c.sdpVersion });

  /**
   * A re-INVITE or UPDATE from the callee on the answered dialog (RFC 3261
   * 14.2, RFC 3311): hold and resume, a new media address, or a session
   * refresh (RFC 4028). Answered 200 with our SDP answer to its offer; a
   * re-INVITE without one gets our offer, and its ACK brings the answer.
   */
  const onSessionRequest = (c: Call, dialog: Srf.Dialog, method: 'INVITE' | 'UPDATE', req: Srf.SrfRequest, res: Srf.SrfResponse) => {
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      log.info({ key: c.key, method, status }, `drachtio: in-dialog ${method} refused: ${reason}`);
      res.send(status, reason, { headers });
    };
    if (c.done) return refuse(481, 'Call/Transaction Does Not Exist');
    const answer = answerSession({
      method,
      get: (name) => req.get(name),
      body: typeof req.body === 'string' ? req.body : undefined,
      takesOffer: !c.offerPending,
      now: c.remote,
      side: () => side(c),
    });
    if (!answer.ok) {
      if (answer.why) log.warn({ key: c.key, err: answer.why }, 'drachtio: an in-dialog offer without audio we can use');
      return refuse(answer.status, answer.reason, answer.headers);
    }
    if (answer.offered) applyOffer(c, answer.offered);
    if (answer.offerSent) {
      c.offerPending = setTimeout(() => {
        c.offerPending = null;
        log.warn({ key: c.key }, 'drachtio: no ACK to our 2xx to a re-INVITE');
      }, OFFER_WAIT_MS);
      c.offerPending.unref();
    }
    // drachtio-srf answers some requests itself from it (an UPDATE nobody listens to).
    if (answer.body !== undefined) dialog.local.sdp = answer.body;
    const headers = { Contact: (dialog as unknown as { local: { contact: string } }).local.contact, ...answer.headers };
    log.info({ key: c.key, method, offer: answer.offered !== undefined, held: c.held, sessionExpires: answer.sessionExpires }, `drachtio: in-dialog ${method} answered 200`);
    res.send(200, 'OK', { headers, ...(answer.body !== undefined ? { body: answer.body } : {}) });
  };

  /** The ACK of our 2xx to an offerless re-INVITE brings the answer to our offer. */
  const onAck = (c: Call, ack: Srf.SrfRequest) => {
    if (!c.offerPending) return;
    clearTimeout(c.offerPending);
    c.offerPending = null;
    try {
      applyOffer(c, readOffer(ack.body ?? '', c.remote));
    } catch (err) {
      log.warn({ key: c.key, err: String(err) }, 'drachtio: the answer in the ACK has no audio we can use; the media stays as it was');
    }
  };

  function answered(c: Call, dialog: Srf.Dialog): void {
    const res = (dialog as unknown as { res?: Srf.SrfResponse }).res;
    const status = res?.status ?? 200;
    const reason = res?.reason ?? 'OK';
    let remote: Negotiated;
    try {
      remote = negotiate(dialog.remote.sdp ?? '');
    } catch (err) {
      // Nothing to send audio to, or no codec in common: drachtio-srf ACKed
      // the 2xx; our BYE follows at once, and the call never counts as answered.
      log.warn({ key: c.key, err: String(err) }, 'drachtio: the answer has no media we can use: BYE');
      c.dialog = dialog;
      void bye(c, dialog);
      report(c, { type: 'no_media', status, reason });
      return;
    }
    c.dialog = dialog;
    c.remote = remote;
    c.held = holds(remote);
    connectStream(c, remote);
    dialog.on('destroy', () => {
      if (c.done) return;
      report(c, { type: 'remote_hangup' });
    });
    dialog.on('modify', (req, r) => onSessionRequest(c, dialog, 'INVITE', req, r));
    dialog.on('update', (req, r) => onSessionRequest(c, dialog, 'UPDATE', req, r));
    dialog.on('ack', (ack) => onAck(c, ack));
    if (c.mediaPort !== null) mediaWatch?.watch(c.key);
    report(c, { type: 'answered', status, voicemail: saysVoicemail(res?.get('X-Tolk-Answered-By')) });
  }

  async function place(req: PlaceRequest): Promise<void> {
    if (calls.has(req.key)) throw new Error(`drachtio: dialog ${req.key} is already placed`);
    const sdpSession = String(Date.now());
    const c: Call = {
      key: req.key, invite: null, dialog: null, rang: false, done: false, canceled: null, ringTimer: null,
      mediaPort: null, connecting: null, remote: undefined, held: false,
      sdpSession, sdpVersion: 1, offerPending: null,
    };
    calls.set(req.key, c);
    const host = opts.mediaHost;
    let localSdp: string;
    if (opts.media) {
      const { port } = await opts.media.open(req.key, { hear: true });
      c.mediaPort = port;
      localSdp = sdpOffer({ host, port, sessionId: sdpSession });
    } else {
      localSdp = sdpOffer({ host, port: PLACEHOLDER_MEDIA_PORT, sessionId: sdpSession });
    }
    // The ring timeout starts with the INVITE, as the embedded stack's does.
    c.ringTimer = setTimeout(() => {
      c.ringTimer = null;
      if (!c.dialog && !c.done) cancel(c, 'timeout');
    }, opts.ringTimeoutSeconds * 1000);
    // UPDATE in Allow: the callee may refresh the session with it (RFC 3311, RFC 4028).
    const headers: Record<string, string> = { From: `<sip:${req.from}@${address}>`, Allow: ALLOW, ...req.headers };
    // drachtio-srf calls cbRequest(err, req) (lib/srf.js, 5.0.29), though its
    // types say (req): the INVITE is the second argument. On err there is no
    // INVITE; createUAC rejects, and the catch below reports it.
    const onRequest = (err: Error | null, invite?: Srf.SrfRequest) => {
      if (err || !invite) return;
      c.invite = invite;
      // Hung up while the INVITE was being sent: cancel it now.
      if (c.canceled === 'hangup') { c.canceled = null; cancel(c, 'hangup'); }
    };
    srf.createUAC(req.target, { localSdp, headers }, {
      cbRequest: onRequest as unknown as (invite: Srf.SrfRequest) => void,
      cbProvisional: (res) => {
        if (c.rang || c.done || res.status < 180) return;
        c.rang = true;
        report(c, { type: 'ringing', status: res.status });
      },
    }).then((dialog) => {
      if (c.done) {
        // Hung up as it was answered: the 2xx was ACKed; say goodbye.
        void bye(c, dialog);
        return;
      }
      answered(c, dialog);
    }).catch((err: { status?: number; reason?: string; message?: string }) => {
      if (c.done) return;
      if (c.canceled === 'timeout') return report(c, { type: 'ring_timeout' });
      if (typeof err.status === 'number') return report(c, { type: 'rejected', status: err.status, reason: err.reason ?? '' });
      log.warn({ key: req.key, err: err.message ?? String(err) }, 'drachtio: the INVITE failed');
      report(c, { type: 'no_response' });
    });
  }

  async function hangup(key: string): Promise<void> {
    const c = calls.get(key);
    if (!c || c.done) return;
    if (c.dialog) {
      c.done = true;
      release(c);
      await bye(c, c.dialog);
      return;
    }
    // Not answered: CANCEL (its 487 is reported as rejected); before cbRequest, once it comes.
    if (c.invite) cancel(c, 'hangup');
    else c.canceled = 'hangup';
  }

  return {
    address,
    place,
    hangup,
    active: () => [...calls.keys()],
    hasMedia: (key) => {
      const c = calls.get(key);
      return Boolean(c && c.mediaPort !== null && c.connecting);
    },
    async play(key, utterance, pcm) {
      const c = calls.get(key);
      if (!c || !c.connecting || !opts.media) throw new Error(`play: dialog ${key} has no media`);
      await c.connecting;
      return opts.media.play(key, utterance, pcm);
    },
    async close() {
      await Promise.allSettled([...calls.keys()].map((k) => hangup(k)));
      mediaWatch?.stop();
      srf.disconnect();
    },
  };
}
