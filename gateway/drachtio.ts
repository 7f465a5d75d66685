import Srf from 'drachtio-srf';
import { saysVoicemail, type DialogEvent, type PlaceRequest, type SignalingOptions, type SipSignaling } from './signaling.ts';
import { negotiate, offer as sdpOffer } from './media/sdp.ts';
import { audioSdp } from './sip-stack.ts';

// The gateway's signaling on drachtio-server (a SIP server our process drives
// over TCP, drachtio-srf): the SipSignaling interface of signaling.ts, so the
// gateway picks it by configuration (DRACHTIO_HOST) instead of the embedded
// stack. drachtio-server does the SIP transactions (retransmissions, ACKs,
// CANCEL matching); this adapter places each call with srf.createUAC, hears
// its 1xx through cbProvisional, keeps the INVITE from cbRequest to CANCEL
// it, and ends an answered call with Dialog.destroy (BYE). Media is ours, as
// with the embedded stack: the offer names the call's RTP port on the media
// plane, and the answer's SDP connects it.
//
// drachtio-server itself has no npm or Debian package: the adapter's tests
// run against one only when DRACHTIO_HOST names it (README, Operating).

export type DrachtioOptions = SignalingOptions & {
  drachtio: { host: string; port: number; secret: string; connectTimeoutMs?: number };
  /** The address our SDP offers media on (the media plane's host). */
  mediaHost: string;
};

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
  media: boolean;
  connecting: Promise<void> | null;
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

  const report = (c: Call, e: DialogEvent) => {
    if (e.type !== 'ringing') {
      if (c.ringTimer) clearTimeout(c.ringTimer);
      c.ringTimer = null;
    }
    if (e.type !== 'ringing' && e.type !== 'answered') {
      c.done = true;
      release(c);
    }
    try {
      opts.onEvent(c.key, e);
    } catch (err) {
      log.error({ key: c.key, err: String(err) }, 'drachtio: event listener failed');
    }
  };

  const release = (c: Call) => {
    calls.delete(c.key);
    if (c.media && opts.media) {
      c.media = false;
      opts.media.close(c.key).catch((err) => log.warn({ key: c.key, err: String(err) }, 'media: close failed'));
    }
  };

  const cancel = (c: Call, why: 'timeout' | 'hangup') => {
    if (!c.invite || c.canceled) return;
    c.canceled = why;
    c.invite.cancel((err) => { if (err) log.warn({ key: c.key, err: String(err) }, 'drachtio: CANCEL failed'); });
  };

  async function place(req: PlaceRequest): Promise<void> {
    if (calls.has(req.key)) throw new Error(`drachtio: dialog ${req.key} is already placed`);
    const c: Call = { key: req.key, invite: null, dialog: null, rang: false, done: false, canceled: null, ringTimer: null, media: false, connecting: null };
    calls.set(req.key, c);
    const host = opts.mediaHost;
    let localSdp: string;
    if (opts.media) {
      const { port } = await opts.media.open(req.key, { hear: true });
      c.media = true;
      localSdp = sdpOffer({ host, port, sessionId: String(Date.now()) });
    } else {
      localSdp = audioSdp(host, 9, String(Date.now()));
    }
    // The ring timeout starts with the INVITE, as the embedded stack's does.
    c.ringTimer = setTimeout(() => {
      c.ringTimer = null;
      if (!c.dialog && !c.done) cancel(c, 'timeout');
    }, opts.ringTimeoutSeconds * 1000);
    const headers: Record<string, string> = { From: `<sip:${req.from}@${address}>`, ...req.headers };
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
        dialog.destroy();
        return;
      }
      c.dialog = dialog;
      if (c.media && opts.media) {
        try {
          c.connecting = opts.media.connect(req.key, negotiate(dialog.remote.sdp));
          c.connecting.catch((err) => log.warn({ key: req.key, err: String(err) }, 'media: connect failed'));
        } catch (err) {
          log.warn({ key: req.key, err: String(err) }, 'media: no usable SDP in the answer; the call has no audio');
        }
      }
      const answeredBy = (dialog as unknown as { res?: Srf.SrfResponse }).res?.get('X-Tolk-Answered-By');
      dialog.on('destroy', () => {
        if (c.done) return;
        report(c, { type: 'remote_hangup' });
      });
      report(c, { type: 'answered', status: 200, voicemail: saysVoicemail(answeredBy) });
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
      await new Promise<void>((ok) => c.dialog!.destroy(undefined, () => ok()));
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
      return Boolean(c && c.media && c.connecting);
    },
    async play(key, utterance, pcm) {
      const c = calls.get(key);
      if (!c || !c.connecting || !opts.media) throw new Error(`play: dialog ${key} has no media`);
      await c.connecting;
      return opts.media.play(key, utterance, pcm);
    },
    async close() {
      await Promise.allSettled([...calls.keys()].map((k) => hangup(k)));
      srf.disconnect();
    },
  };
}
