import sip from 'sip';
import { answer as sdpAnswer, negotiate, offer as sdpOffer, PAYLOAD_TYPE, type Negotiated } from './media/sdp.ts';
import { ALLOW, PLACEHOLDER_MEDIA_PORT, contactUri, optionTags, sessionExpiresOf } from './sip-message.ts';
import { TRANSACTION_MS } from './sip-endpoint.ts';
import { clearTimers, connectStream, drive, setTimer, type Dialog, type Peer, type Stack } from './sip-dialog.ts';

// The far end's re-INVITE and UPDATE on an answered dialog (RFC 3261 14.2,
// RFC 3311): hold and resume, a new media address, a session refresh
// (RFC 4028), each answered 200 with our SDP answer to its offer; a
// re-INVITE without an offer gets ours in the 200, and its ACK brings the
// answer. Refused, in this order: 481 for a dialog that is not up, 500 for a
// request older than the last one (RFC 3261 12.2.2, with Retry-After), 420
// for an option we do not have (Require), 422 for a session interval below
// our Min-SE, 491 for an offer that would cross ours still waiting for its
// answer, 488 for an offer without audio we can use.

/** RFC 3261's T1 and T2: our own retransmissions (a 2xx to a re-INVITE) follow them. */
const T1_MS = 500;
const T2_MS = 4_000;
/** The shortest session interval we accept (RFC 4028 Min-SE). */
export const MIN_SE = 90;
/** Our direction in an answer, given the far end's in its offer (RFC 3264 6.1). */
const MIRROR: Record<Negotiated['direction'], Negotiated['direction']> = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' };

export function onSessionRequest(stack: Stack, d: Dialog, peer: Peer, rq: sip.Message, remote: sip.Remote): void {
  const method = rq.method!;
  const reply = (status: number, reason: string, headers: sip.Headers = {}) => {
    stack.log.info({ key: d.key, callId: d.callId, method, status }, `sip: in-dialog ${method} refused: ${reason}`);
    stack.endpoint.respond(sip.makeResponse(rq, status, reason, { headers }));
  };
  // A fork we are hanging up, or a dialog no longer up: gone for the far end too.
  if (peer.tag !== d.snapshot.context.peerTag || !d.snapshot.matches({ live: 'answered' })) return reply(481, 'Call/Transaction Does Not Exist');
  const seq = (rq.headers.cseq as sip.CSeq).seq;
  if (peer.remoteCseq !== undefined && seq <= peer.remoteCseq) return reply(500, 'Server Internal Error', { 'retry-after': '1' });
  peer.remoteCseq = seq;
  const unsupported = optionTags(rq, 'require').filter((t) => t !== 'timer');
  if (unsupported.length > 0) return reply(420, 'Bad Extension', { unsupported: unsupported.join(', ') });
  const se = sessionExpiresOf(rq);
  if (se && se.delta < MIN_SE) return reply(422, 'Session Interval Too Small', { 'min-se': String(MIN_SE) });
  const sdp = typeof rq.content === 'string' && rq.content.trim() !== '' ? rq.content : undefined;
  // An offer, or a re-INVITE asking for ours: refused while our offer waits for its answer (the machine says).
  if ((sdp !== undefined || method === 'INVITE') && !d.snapshot.can({ type: 'REMOTE_OFFER' })) return reply(491, 'Request Pending');

  let content: string | undefined;
  if (sdp !== undefined) {
    let offered: Negotiated;
    try {
      offered = keepCodec(d, negotiate(sdp), sdp);
    } catch (err) {
      stack.log.warn({ key: d.key, err: String(err) }, 'sip: an in-dialog offer without audio we can use');
      return reply(488, 'Not Acceptable Here');
    }
    content = answerSdp(stack, d, offered);
    applyOffer(stack, d, offered);
  } else if (method === 'INVITE') {
    content = offerSdp(stack, d);
  }
  // A target refresh (RFC 3261 12.2.2): its new Contact is where our requests go now.
  peer.target = contactUri(rq) ?? peer.target;

  const headers: sip.Headers = { contact: d.contact, allow: ALLOW, supported: 'timer' };
  // RFC 4028: the session refresher is the side that sent this (uac), so we
  // never have to refresh. A UAC that does not support timers cannot
  // refresh either: then there is no session timer (no Session-Expires).
  const timer = optionTags(rq, 'supported').includes('timer') || optionTags(rq, 'require').includes('timer');
  if (se && timer) {
    headers['session-expires'] = `${se.delta};refresher=uac`;
    headers.require = 'timer';
  }
  if (content !== undefined) headers['content-type'] = 'application/sdp';
  const rs = sip.makeResponse(rq, 200, 'OK', { headers, content });
  const held = d.snapshot.matches({ live: { answered: { media: 'held' } } });
  stack.log.info({ key: d.key, callId: d.callId, method, offer: sdp !== undefined, held, sessionExpires: se?.delta }, `sip: in-dialog ${method} answered 200`);
  stack.endpoint.respond(rs);
  if (method !== 'INVITE') return;
  d.pending2xx = { seq, rs };
  if (sdp === undefined) void drive(stack, d, { type: 'OFFER_SENT' });
  // Over UDP the 2xx of an INVITE is ours to retransmit until its ACK (RFC 3261 13.3.1.4); TCP carries it once.
  if (remote.protocol.toUpperCase() === 'UDP') retransmit2xx(stack, d, rs, T1_MS, 0);
}

function retransmit2xx(stack: Stack, d: Dialog, rs: sip.Message, interval: number, elapsed: number): void {
  setTimer(d, 'retransmit2xx', interval, () => {
    if (d.pending2xx?.rs !== rs) return;
    if (elapsed + interval >= TRANSACTION_MS) {
      d.pending2xx = undefined;
      stack.log.warn({ key: d.key, callId: d.callId }, 'sip: no ACK to our 2xx to a re-INVITE');
      void drive(stack, d, { type: 'OFFER_DONE' });
      return;
    }
    stack.endpoint.respond(rs);
    retransmit2xx(stack, d, rs, Math.min(2 * interval, T2_MS), elapsed + interval);
  });
}

/** The ACK of our 2xx to a re-INVITE: its retransmissions stop; the answer to our offer, if it brings one, is applied. */
export function onSessionAck(stack: Stack, d: Dialog, rq: sip.Message): void {
  const pending = d.pending2xx;
  const cseq = rq.headers.cseq;
  if (!pending || typeof cseq !== 'object' || cseq.seq !== pending.seq) return;
  d.pending2xx = undefined;
  clearTimers(d, 'retransmit2xx');
  if (!d.snapshot.matches({ live: { answered: { offer: 'sent' } } })) return;
  void drive(stack, d, { type: 'OFFER_DONE' });
  const sdp = typeof rq.content === 'string' ? rq.content : '';
  try {
    applyOffer(stack, d, keepCodec(d, negotiate(sdp), sdp));
  } catch (err) {
    stack.log.warn({ key: d.key, err: String(err) }, 'sip: the answer in the ACK has no audio we can use; the media stays as it was');
  }
}

/**
 * The far end's new SDP applied to the stream. On hold (its direction
 * sendonly or inactive, or c=0.0.0.0, RFC 2543's hold) the stream keeps its
 * destination and only learns the direction: the media plane is to send
 * nothing while the far end does not receive.
 */
function applyOffer(stack: Stack, d: Dialog, n: Negotiated): void {
  const held = n.direction === 'sendonly' || n.direction === 'inactive';
  const wasHeld = d.snapshot.matches({ live: { answered: { media: 'held' } } });
  if (held !== wasHeld) {
    stack.log.info({ key: d.key, callId: d.callId, direction: n.direction }, held ? 'sip: the far end holds the call' : 'sip: the far end resumed the call');
    void drive(stack, d, { type: held ? 'HOLD' : 'RESUME' });
  }
  const next: Negotiated = held && d.remote ? { ...d.remote, direction: n.direction } : n;
  if (next.address === '0.0.0.0') return; // no destination yet, nothing to connect
  d.remote = next;
  connectStream(stack, d, next);
}

/**
 * A new offer that still has the codec the stream speaks keeps it (the
 * stream's RTP sender keeps its payload type); else the offer's first.
 */
function keepCodec(d: Dialog, n: Negotiated, sdp: string): Negotiated {
  // c=0.0.0.0 says "do not send to me": a hold, whatever the direction says.
  if (n.address === '0.0.0.0') n = { ...n, direction: n.direction === 'sendrecv' ? 'sendonly' : n.direction === 'recvonly' ? 'inactive' : n.direction };
  const now = d.remote;
  if (!now || now.payloadType === n.payloadType) return n;
  const offered = /^m=audio \d+ \S+ ([\d ]+)/m.exec(sdp)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  const mapped = new RegExp(`^a=rtpmap:${now.payloadType} ([^/\\s]+)/8000`, 'mi').exec(sdp)?.[1]?.toUpperCase();
  const same = offered.includes(now.payloadType) && (mapped ? mapped === now.codec : now.payloadType === PAYLOAD_TYPE[now.codec]);
  return same ? { ...n, codec: now.codec, payloadType: now.payloadType } : n;
}

/** Our answer to the far end's offer (RFC 3264 8): our stream's port, the next version, the direction that mirrors the far end's. */
function answerSdp(stack: Stack, d: Dialog, offered: Negotiated): string {
  const side = { host: stack.host, port: d.media?.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: d.sdpSession, version: ++d.sdpVersion };
  return sdpAnswer(side, offered).replace(/^a=sendrecv$/m, `a=${MIRROR[offered.direction]}`);
}

/** Our offer again (a re-INVITE without SDP asks for one), as the next version. */
function offerSdp(stack: Stack, d: Dialog): string {
  return sdpOffer({ host: stack.host, port: d.media?.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: d.sdpSession, version: ++d.sdpVersion });
}
