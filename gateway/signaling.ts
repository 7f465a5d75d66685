// The SIP gateway's signaling, behind one interface so another SIP stack can
// be plugged in (an adapter per stack: sip-stack.ts is the embedded one on the
// npm `sip` package, drachtio.ts the one on drachtio-server). The gateway
// knows SIP, not calls: src/calls/ turns the dialog events below into the call
// machine's events (machines/call.ts).
//
// One SipSignaling per process. It places outbound INVITEs, cancels or hangs
// up its own dialogs, and reports what happens to each of them, identified by
// the key the caller chose (the call id).

// What happened to a dialog (DialogEvent) is declared with the dialog's machine, which reports it.
export type { DialogEvent } from '../machines/dialog-events.ts';
import type { DialogEvent } from '../machines/dialog-events.ts';

export type PlaceRequest = {
  /** Our key for the dialog (the call id); events are reported with it. */
  key: string;
  /** Request-URI and To: `sip:+15551234567@127.0.0.1:5062`. */
  target: string;
  /** The caller id (E.164), put in From. */
  from: string;
  /** Extra headers of the INVITE (names as written, values ASCII). */
  headers?: Record<string, string>;
  /** A live call through a carrier's trunk: how it goes out (sip-stack.ts; unset: straight to the target, From with our address). */
  trunk?: TrunkRoute;
};

/** How a call goes out through a carrier's SIP trunk (operator.md, SIP trunks and live mode). */
export type TrunkRoute = {
  /** The trunk's id: its calls share one digest nonce in this process. */
  id: string;
  /** A SIP URI the INVITE is sent through (an outbound proxy, as a loose Route); unset: the target's host is the next hop. */
  proxy?: string;
  /** The host of From and P-Asserted-Identity (the trunk's from-domain, else its host). */
  domain: string;
  /** Where the caller id goes: From, or P-Asserted-Identity (From then names the trunk's user). */
  callerId: 'from' | 'pai';
  /** With the caller id in P-Asserted-Identity: `Privacy: id` and an anonymous From. */
  privacy: boolean;
  /** The account's user name (From's user with P-Asserted-Identity). */
  username?: string;
  /** Answers 401 and 407 with these (gateway/sip-auth.ts). */
  credentials?: { username: string; password: string; realm?: string };
};

export interface SipSignaling {
  /** The address the stack bound and puts in Via and Contact (`host:port`). */
  readonly address: string;
  /**
   * Sends the INVITE and reports its dialog's events to the listener given at
   * creation. Returns once the INVITE is on the wire.
   */
  place(req: PlaceRequest): Promise<void>;
  /**
   * Ends our side of the dialog: CANCEL while it is not answered (then the
   * 487 is reported as `rejected`), BYE once answered. Idempotent; a key the
   * stack does not know (ended, or placed by another process) is ignored.
   */
  hangup(key: string): Promise<void>;
  /** The keys of the dialogs this stack holds now (placed and not ended). */
  active(): string[];
  /** Whether the dialog has a media stream to play on (answered with a usable SDP, and the stack has a media plane). */
  hasMedia(key: string): boolean;
  /** Ends every dialog (BYE/CANCEL) and closes the transports. */
  close(): Promise<void>;
  /**
   * Speaks 8 kHz 16-bit PCM on an answered dialog's media (the stack was
   * given a media plane); answers how long it waits behind what is queued.
   * Rejects when the dialog has no media (not answered, no plane, no usable SDP).
   */
  play(key: string, utterance: string, pcm: Int16Array, o?: { more?: boolean; interruptible?: boolean }): Promise<{ queuedMs: number }>;
  /**
   * Sends OPTIONS out of any dialog to `uri` (through `proxy` when given) and
   * says whether a SIP server answered it within `timeoutMs`: any final
   * answer but 408 and 503 is one (a carrier may well answer 403 or 404 to
   * OPTIONS; it is alive). The trunks' health checks (src/trunks/ping.ts).
   * Stacks without it leave their trunks' state unknown.
   */
  ping?(uri: string, o: { proxy?: string; timeoutMs: number }): Promise<PingResult>;
}

/** An INVITE a trunk sent us, outside our dialogs (phone participants, operator.md). */
export type InboundInvite = {
  /** Its Call-ID. */
  callId: string;
  /** The caller's number: From's user part without separators or its leading + (sip-message.ts numberOf); '' without one. */
  from: string;
  /** The number dialed: the Request-URI's user part, likewise. */
  to: string;
  /** Where it came from (one of our trunks' addresses). */
  source: { address: string; port: number };
};

/**
 * The listener's decision on an inbound INVITE: answered under `key` (its events are reported with
 * it, play() and hangup() take it), or refused with a final status (404 a number that takes no calls,
 * 480 none taken now, 486 busy, 503 overloaded).
 */
export type InboundDecision = { key: string } | { status: number; reason: string };

/** Who takes the inbound calls (SignalingOptions.inbound). */
export type InboundListener = {
  decide: (inv: InboundInvite) => Promise<InboundDecision> | InboundDecision;
  onEvent: (key: string, e: DialogEvent) => void;
};

export type PingResult = { ok: true; status: number } | { ok: false; reason: string };

export type SignalingOptions = {
  /** `host:port` to bind (UDP and TCP) and to put in Via and Contact; port 0 picks a free one. */
  listen: string;
  /** Seconds a call may ring (or wait after a 1xx) before it is CANCELed and reported as `ring_timeout`. */
  ringTimeoutSeconds: number;
  /**
   * Seconds without any answer to an INVITE before it is reported as
   * `no_response` (default 32, SIP's Timer B at T1 = 500 ms); tests shorten it.
   */
  noResponseSeconds?: number;
  /**
   * Seconds an answered dialog's far end may send no RTP and no RTCP before
   * the stack hangs it up and reports `media_timeout` (TOLK_MEDIA_TIMEOUT_SECONDS);
   * only with a media plane. Unset: never.
   */
  mediaTimeoutSeconds?: number;
  /**
   * The RTP streams of this process (gateway/media/plane.ts). Given, each
   * dialog offers a real media port and connects its stream to the answer's
   * SDP; without it the SDP names the discard port and no audio flows.
   */
  media?: import('./media/plane.ts').MediaPlane;
  /**
   * Inbound calls: an INVITE from one of our trunks (the embedded stack's fromTrunk) is put to
   * `decide`, and answered as it says; the events of the dialogs it accepts go to its `onEvent`
   * (`answered` at the caller's ACK, then `remote_hangup` or `media_timeout`), not to the calls'.
   * Unset: every INVITE from a trunk is answered 480. Stacks without inbound calls (drachtio.ts)
   * refuse them all.
   */
  inbound?: InboundListener;
  /** Every dialog event of every call. Errors it throws are logged, never crash the stack. */
  onEvent: (key: string, event: DialogEvent) => void;
  log?: { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };
};

/** Whether an `X-Tolk-Answered-By` value says a voicemail system answered (a comma-separated list, any case). */
export function saysVoicemail(answeredBy: string | undefined): boolean {
  return (answeredBy ?? '').split(',').some((v) => v.trim().toLowerCase() === 'voicemail');
}

/** Whether an `X-Tolk-Answered-By` value says a person answered. */
export function saysHuman(answeredBy: string | undefined): boolean {
  return (answeredBy ?? '').split(',').some((v) => v.trim().toLowerCase() === 'human');
}
