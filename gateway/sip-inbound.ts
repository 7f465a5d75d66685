import sip from 'sip';
import type { InboundDecision, InboundInvite } from './signaling.ts';
import { answer as sdpAnswer, answerOffer, negotiate, readOffer, SdpError, type Negotiated } from './media/sdp.ts';
import { DialogMedia } from './dialog-media.ts';
import { TRANSACTION_MS, type SipEndpoint, type SipLog } from './sip-endpoint.ts';
import type { MediaWatch } from './media-watch.ts';
import type { MediaPlane } from './media/plane.ts';
import { byeOf, contactUri, formatAor, headerText, numberOf, randomToken, tagOf, withToTag, type RemoteTarget } from './sip-message.ts';
import type { DialogEvent } from './signaling.ts';

// The calls a trunk sends us (phone participants, operator.md): the embedded
// stack as a UAS. An INVITE from outside our dialogs, from one of our trunks,
// is put to the listener (SignalingOptions.inbound), which accepts it under a
// key of its choosing or refuses it with a status. Accepted, it is answered
// 200 at once with our SDP (its stream on the media plane connected to the
// offer), the 200 retransmitted until the ACK (RFC 3261 13.3.1.4), and the
// ACK reports `answered`; from then on the dialog is like a placed one:
// play() speaks on it, the caller's BYE reports `remote_hangup`, hangup()
// sends ours, and the media timeout applies. DTMF comes as RFC 4733 events
// on the stream (the plane hears them) or as SIP INFO (application/dtmf-relay
// or application/dtmf), which is handed to the plane as the same `dtmf`.
// A re-INVITE (hold, a new address) is answered with our SDP, its direction
// mirrored, as on placed calls.

const T1_MS = 500;
const T2_MS = 4_000;
/** How long a dialog that ended is remembered, to answer a retransmitted BYE or ACK (64*T1). */
const LINGER_MS = 32_000;

export type InboundDialog = {
  key: string;
  callId: string;
  localTag: string;
  /** Ours as From in the requests we send (their To with our tag), theirs as To (their From without its tag). */
  from: string;
  to: string;
  contact: string;
  peer: RemoteTarget;
  cseq: number;
  remoteCseq: number;
  state: 'answering' | 'up' | 'ended';
  /** Asked to end before the ACK came: the BYE goes once it does (or its wait is over). */
  endAfterAck: boolean;
  media: DialogMedia;
  /** Our 2xx being retransmitted until its ACK: its CSeq number, the response and its timer. */
  pending: { seq: number; rs: sip.Message; timer: NodeJS.Timeout | undefined } | undefined;
  linger: NodeJS.Timeout | undefined;
};

/** What the inbound dialogs of one stack share. */
export type InboundStack = {
  endpoint: SipEndpoint;
  host: string;
  address: string;
  log: SipLog;
  plane: MediaPlane | undefined;
  watch: MediaWatch | undefined;
  onEvent: (key: string, e: DialogEvent) => void;
  decide: (inv: InboundInvite) => Promise<InboundDecision> | InboundDecision;
};

/** The calls a trunk sent us, by key (accepted and not ended) and by Call-ID (ended ones linger). */
export class InboundDialogs {
  readonly byKey = new Map<string, InboundDialog>();
  readonly byCallId = new Map<string, InboundDialog>();
  /** INVITEs waiting for the listener's decision, by Call-ID, with whether a CANCEL came meanwhile. */
  private readonly deciding = new Map<string, { rq: sip.Message; canceled: boolean }>();
  private readonly st: InboundStack;

  constructor(st: InboundStack) {
    this.st = st;
  }

  /** Whether a request with this Call-ID belongs to an inbound dialog (or one being decided). */
  has(callId: string): boolean {
    return this.byCallId.has(callId) || this.deciding.has(callId);
  }

  /** A new INVITE from a trunk: put to the listener, then answered 200 (with our SDP) or refused. */
  async invite(rq: sip.Message, remote: sip.Remote): Promise<void> {
    const { endpoint, log } = this.st;
    const callId = rq.headers['call-id'] ?? '';
    if (this.deciding.has(callId) || this.byCallId.has(callId)) return; // a retransmission: `sip` answers it
    const refuse = (status: number, reason: string) => endpoint.respond(withToTag(rq, sip.makeResponse(rq, status, reason)), { once: true });
    endpoint.respond(sip.makeResponse(rq, 100, 'Trying'));
    this.deciding.set(callId, { rq, canceled: false });
    const inv: InboundInvite = {
      callId,
      from: numberOf(fromUser(rq)),
      to: numberOf(sip.parseUri(rq.uri ?? '')?.user),
      source: { address: remote.address, port: remote.port },
    };
    let decision: InboundDecision;
    try {
      decision = await this.st.decide(inv);
    } catch (err) {
      log.error({ callId, err: String(err) }, 'sip: an inbound call could not be decided: 500');
      decision = { status: 500, reason: 'Server Internal Error' };
    }
    const pending = this.deciding.get(callId);
    this.deciding.delete(callId);
    if (pending?.canceled) {
      if ('key' in decision) this.st.onEvent(decision.key, { type: 'remote_hangup' });
      return;
    }
    // An offer we cannot speak (no G.711): 488. No offer at all (a delayed offer): ours goes in the 200, its answer in the ACK.
    let offered: Negotiated | null = null;
    const sdp = typeof rq.content === 'string' ? rq.content : '';
    if ('key' in decision && sdp.trim() !== '') {
      try {
        offered = negotiate(sdp);
      } catch (err) {
        log.info({ callId, err: String(err) }, 'sip: inbound INVITE without audio we can speak: 488');
        this.st.onEvent(decision.key, { type: 'remote_hangup' });
        decision = { status: 488, reason: 'Not Acceptable Here' };
      }
    }
    if (!('key' in decision)) {
      log.info({ callId, from: `${remote.address}:${remote.port}`, to: inv.to, status: decision.status }, 'sip: inbound INVITE refused');
      return refuse(decision.status, decision.reason);
    }
    try {
      await this.accept(rq, remote, decision.key, offered);
    } catch (err) {
      // No stream for it (the media plane failed): refused, and the listener's line let go.
      log.error({ callId, err: String(err) }, 'sip: an inbound call could not be answered: 500');
      this.byKey.get(decision.key)?.media.close();
      this.byKey.delete(decision.key);
      this.byCallId.delete(callId);
      refuse(500, 'Server Internal Error');
      this.st.onEvent(decision.key, { type: 'remote_hangup' });
    }
  }

  /** A CANCEL of an INVITE being decided: 200 to it, 487 to the INVITE. Answers false when no such INVITE waits here. */
  cancel(rq: sip.Message): boolean {
    const p = this.deciding.get(rq.headers['call-id'] ?? '');
    if (!p) return false;
    p.canceled = true;
    this.st.endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
    this.st.endpoint.respond(withToTag(p.rq, sip.makeResponse(p.rq, 487, 'Request Terminated')));
    return true;
  }

  private async accept(rq: sip.Message, remote: sip.Remote, key: string, offered: Negotiated | null): Promise<void> {
    const { log, host } = this.st;
    const callId = rq.headers['call-id'] ?? '';
    const localTag = randomToken(8);
    const media = new DialogMedia({ key, host, plane: this.st.plane, watch: this.st.watch, log });
    await media.open();
    const toAor = rq.headers.to as sip.Aor;
    const fromAor = rq.headers.from as sip.Aor;
    const rr = rq.headers['record-route'];
    const d: InboundDialog = {
      key,
      callId,
      localTag,
      from: formatAor({ ...toAor, params: { ...toAor.params, tag: localTag } }),
      to: formatAor({ ...fromAor, params: Object.fromEntries(Object.entries(fromAor.params ?? {}).filter(([k]) => k !== 'tag')) }),
      contact: `<sip:${this.st.address}>`,
      // RFC 3261 12.1.1: the UAS's route set is the Record-Route in the order received; its target, the Contact.
      peer: { tag: tagOf(rq.headers.from) ?? '', target: contactUri(rq) ?? sip.stringifyUri(rq.uri ?? ''), route: routeOf(rr) },
      cseq: 0,
      remoteCseq: (rq.headers.cseq as sip.CSeq).seq,
      state: 'answering',
      endAfterAck: false,
      media,
      pending: undefined,
      linger: undefined,
    };
    this.byKey.set(key, d);
    this.byCallId.set(callId, d);
    if (offered) media.answered(offered);
    const body = offered ? sdpAnswer(media.next(), offered) : media.offer();
    const rs = withToTag(rq, sip.makeResponse(rq, 200, 'OK', {
      headers: { contact: d.contact, 'content-type': 'application/sdp', ...(rr ? { 'record-route': rr } : {}) },
      content: body,
    }), localTag);
    log.info({ key, callId, from: `${remote.address}:${remote.port}` }, 'sip: inbound call answered 200');
    this.send2xx(d, rs, d.remoteCseq, remote);
  }

  /** Our 2xx to an INVITE of theirs, retransmitted over UDP until its ACK (TCP carries it once). */
  private send2xx(d: InboundDialog, rs: sip.Message, seq: number, remote: sip.Remote): void {
    this.st.endpoint.respond(rs);
    if (d.pending?.timer) clearTimeout(d.pending.timer);
    d.pending = { seq, rs, timer: undefined };
    if (remote.protocol.toUpperCase() !== 'UDP') return;
    const again = (interval: number, elapsed: number) => {
      const p = d.pending;
      if (!p || p.rs !== rs) return;
      p.timer = setTimeout(() => {
        if (d.pending?.rs !== rs) return;
        if (elapsed + interval >= TRANSACTION_MS) {
          d.pending = undefined;
          this.st.log.warn({ key: d.key, callId: d.callId }, 'sip: no ACK to our 2xx of an inbound call: BYE');
          if (d.state === 'answering') this.end(d, 'no_ack');
          return;
        }
        this.st.endpoint.respond(rs);
        again(Math.min(2 * interval, T2_MS), elapsed + interval);
      }, interval);
      p.timer.unref();
    };
    again(T1_MS, 0);
  }

  /** A request in one of our inbound dialogs (its Call-ID is ours). */
  request(rq: sip.Message, remote: sip.Remote): void {
    const { endpoint } = this.st;
    const d = this.byCallId.get(rq.headers['call-id'] ?? '');
    const method = rq.method ?? '';
    if (!d) {
      if (method === 'CANCEL' && this.cancel(rq)) return;
      if (method !== 'ACK') endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (method === 'ACK') return this.ack(d, rq);
    if (method === 'CANCEL') {
      // Answered already: the CANCEL has nothing to cancel (RFC 3261 9.2), the caller's BYE will follow.
      endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
      return;
    }
    if (tagOf(rq.headers.to) !== d.localTag || d.state === 'ended' && method !== 'BYE') {
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (method === 'BYE') {
      endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
      if (d.state === 'ended') return;
      this.release(d);
      this.st.log.info({ key: d.key, callId: d.callId }, 'sip: the caller hung up');
      this.report(d, { type: 'remote_hangup' });
      return;
    }
    const seq = (rq.headers.cseq as sip.CSeq).seq;
    if (seq <= d.remoteCseq) {
      endpoint.respond(sip.makeResponse(rq, 500, 'Server Internal Error', { headers: { 'retry-after': '1' } }));
      return;
    }
    d.remoteCseq = seq;
    if (method === 'INFO') return this.info(d, rq);
    if (method === 'INVITE' || method === 'UPDATE') return this.reoffer(d, rq, remote);
    if (method === 'OPTIONS') {
      endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
      return;
    }
    endpoint.respond(sip.makeResponse(rq, 405, 'Method Not Allowed', { headers: { allow: 'INVITE, ACK, BYE, CANCEL, OPTIONS, INFO, UPDATE' } }));
  }

  /** The ACK of our 2xx: the call is answered (the first), or a re-INVITE's is done. */
  private ack(d: InboundDialog, rq: sip.Message): void {
    const seq = (rq.headers.cseq as sip.CSeq).seq;
    if (!d.pending || d.pending.seq !== seq) return;
    clearTimeout(d.pending.timer);
    d.pending = undefined;
    if (d.state !== 'answering') return;
    if (!d.media.remote) {
      // Our offer went in the 200 (a delayed offer): the ACK brings the answer, or the call cannot have audio.
      try {
        d.media.answered(negotiate(typeof rq.content === 'string' ? rq.content : ''));
      } catch (err) {
        this.st.log.info({ key: d.key, callId: d.callId, err: String(err) }, 'sip: the ACK of an inbound call has no answer we can speak: BYE');
        this.end(d, 'no_ack');
        return;
      }
    }
    d.state = 'up';
    if (d.endAfterAck) return this.end(d, 'hangup');
    this.report(d, { type: 'answered', status: 200, voicemail: false, human: true, reason: 'OK' });
  }

  /** SIP INFO with a digit (RFC 2976 with application/dtmf-relay, or application/dtmf): the plane's `dtmf`, as an RFC 4733 event is. */
  private info(d: InboundDialog, rq: sip.Message): void {
    const type = (headerText(rq, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const body = typeof rq.content === 'string' ? rq.content : '';
    let digit: string | undefined;
    let durationMs = 100;
    if (type === 'application/dtmf-relay') {
      digit = /^\s*signal\s*=\s*([0-9A-D*#])\s*$/im.exec(body)?.[1];
      const ms = /^\s*duration\s*=\s*(\d+)\s*$/im.exec(body)?.[1];
      if (ms) durationMs = Number(ms);
    } else if (type === 'application/dtmf') {
      digit = /^\s*([0-9A-D*#])\s*$/i.exec(body)?.[1];
    }
    if (!digit) {
      this.st.endpoint.respond(sip.makeResponse(rq, 415, 'Unsupported Media Type', { headers: { accept: 'application/dtmf-relay, application/dtmf' } }));
      return;
    }
    this.st.endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
    if (d.state === 'up') this.st.plane?.digitFromSignaling(d.key, digit.toUpperCase(), durationMs);
  }

  /** A re-INVITE or UPDATE with an offer: answered with our SDP, the direction mirrored; without one, ours as an offer. */
  private reoffer(d: InboundDialog, rq: sip.Message, remote: sip.Remote): void {
    const { endpoint } = this.st;
    const sdp = typeof rq.content === 'string' ? rq.content : '';
    let body: string;
    try {
      if (sdp.trim() === '') {
        if (!d.media.remote) throw new SdpError('no session yet');
        body = sdpAnswer(d.media.next(), d.media.remote);
      } else {
        const offered = readOffer(sdp, d.media.remote);
        d.media.update(offered);
        body = answerOffer(d.media.next(), offered);
      }
    } catch (err) {
      if (!(err instanceof SdpError)) throw err;
      endpoint.respond(sip.makeResponse(rq, 488, 'Not Acceptable Here'));
      return;
    }
    d.peer.target = contactUri(rq) ?? d.peer.target;
    const rs = sip.makeResponse(rq, 200, 'OK', { headers: { contact: d.contact, 'content-type': 'application/sdp' }, content: body });
    if (rq.method === 'UPDATE') return endpoint.respond(rs);
    this.send2xx(d, rs, (rq.headers.cseq as sip.CSeq).seq, remote);
  }

  /** Our BYE (or, before the ACK, once it comes). Idempotent. */
  hangup(key: string): void {
    const d = this.byKey.get(key);
    if (!d || d.state === 'ended') return;
    if (d.state === 'answering') {
      d.endAfterAck = true;
      return;
    }
    this.end(d, 'hangup');
  }

  /** Ends a dialog from our side: BYE, released, reported only when the far end never ACKed. */
  end(d: InboundDialog, why: 'hangup' | 'no_ack' | 'media_timeout' | 'close'): void {
    if (d.state === 'ended') return;
    const wasAnswering = d.state === 'answering';
    this.release(d);
    d.cseq++;
    const bye = byeOf({ callId: d.callId, from: d.from, to: d.to, contact: d.contact }, d.peer, d.cseq);
    void this.st.endpoint.request(bye, () => {});
    this.st.log.info({ key: d.key, callId: d.callId, why }, 'sip: BYE to the caller');
    if (why === 'media_timeout') this.report(d, { type: 'media_timeout' });
    else if (why === 'no_ack' && wasAnswering) this.report(d, { type: 'remote_hangup' });
  }

  private release(d: InboundDialog): void {
    d.state = 'ended';
    if (d.pending?.timer) clearTimeout(d.pending.timer);
    d.pending = undefined;
    d.media.close();
    if (this.byKey.get(d.key) === d) this.byKey.delete(d.key);
    d.linger = setTimeout(() => { if (this.byCallId.get(d.callId) === d) this.byCallId.delete(d.callId); }, LINGER_MS);
    d.linger.unref();
  }

  private report(d: InboundDialog, e: DialogEvent): void {
    try {
      this.st.onEvent(d.key, e);
    } catch (err) {
      this.st.log.error({ key: d.key, event: e.type, err: String(err) }, 'sip: an inbound dialog\'s listener failed');
    }
  }

  /** Ends them all (the stack closes): BYE each answered one. */
  close(): void {
    for (const d of [...this.byKey.values()]) this.end(d, 'close');
    for (const d of this.byCallId.values()) clearTimeout(d.linger);
    this.byCallId.clear();
  }
}

function fromUser(rq: sip.Message): string | undefined {
  const from = rq.headers.from;
  const uri = from && typeof from === 'object' ? from.uri : undefined;
  return uri ? sip.parseUri(uri)?.user : undefined;
}

/** Record-Route as a Route header value (the entries in the order received). */
function routeOf(rr: sip.Aor[] | undefined): string | undefined {
  const route = (rr ?? []).map((r) => `<${sip.stringifyUri(r.uri)}>`).join(', ');
  return route || undefined;
}
