import sip from 'sip';
import { readOffer, type Negotiated } from './media/sdp.ts';
import { answerSession } from './session-timer.ts';
import { contactUri, headerText, sipHeaders } from './sip-message.ts';
import { TRANSACTION_MS } from './sip-endpoint.ts';
import { drive, type Dialog, type Peer, type Stack } from './sip-dialog.ts';
import { heldByFarEnd, holdEvent } from '../machines/dialog-state.ts';

// The far end's re-INVITE and UPDATE on an answered dialog (RFC 3261 14.2,
// RFC 3311) as the embedded stack carries them: what we answer is
// session-timer.ts's answerSession(), shared with drachtio.ts (420, 422,
// 491, 488, or a 200 with the session timer and our SDP); what is left here
// is the transport's: 481 for a dialog that is not up, 500 for a request
// older than the last one (RFC 3261 12.2.2, with Retry-After: `sip` does not
// order them), the target refresh, and retransmitting our 2xx to a
// re-INVITE until its ACK, which may bring the answer to our offer.

/** RFC 3261's T1 and T2: our own retransmissions (a 2xx to a re-INVITE) follow them. */
const T1_MS = 500;
const T2_MS = 4_000;

export function onSessionRequest(stack: Stack, d: Dialog, peer: Peer, rq: sip.Message, remote: sip.Remote): void {
  const method = rq.method as 'INVITE' | 'UPDATE';
  const reply = (status: number, reason: string, headers: sip.Headers = {}) => {
    stack.log.info({ key: d.key, callId: d.callId, method, status }, `sip: in-dialog ${method} refused: ${reason}`);
    stack.endpoint.respond(sip.makeResponse(rq, status, reason, { headers }));
  };
  // A fork we are hanging up, or a dialog no longer up: gone for the far end too.
  if (peer.tag !== d.snapshot.context.peerTag || !d.snapshot.matches({ live: 'answered' })) return reply(481, 'Call/Transaction Does Not Exist');
  const seq = (rq.headers.cseq as sip.CSeq).seq;
  if (peer.remoteCseq !== undefined && seq <= peer.remoteCseq) return reply(500, 'Server Internal Error', { 'retry-after': '1' });
  peer.remoteCseq = seq;

  const answer = answerSession({
    method,
    get: (name) => headerText(rq, name),
    body: typeof rq.content === 'string' ? rq.content : undefined,
    takesOffer: d.snapshot.can({ type: 'REMOTE_OFFER' }),
    now: d.media.remote,
    side: () => d.media.next(),
  });
  if (!answer.ok) {
    if (answer.why) stack.log.warn({ key: d.key, err: answer.why }, 'sip: an in-dialog offer without audio we can use');
    return reply(answer.status, answer.reason, sipHeaders(answer.headers));
  }
  if (answer.offered) applyOffer(stack, d, answer.offered);
  // A target refresh (RFC 3261 12.2.2): its new Contact is where our requests go now.
  peer.target = contactUri(rq) ?? peer.target;

  const rs = sip.makeResponse(rq, 200, 'OK', { headers: { contact: d.contact, ...sipHeaders(answer.headers) }, content: answer.body });
  stack.log.info({ key: d.key, callId: d.callId, method, offer: answer.offered !== undefined, held: heldByFarEnd(d.snapshot), sessionExpires: answer.sessionExpires }, `sip: in-dialog ${method} answered 200`);
  stack.endpoint.respond(rs);
  if (method !== 'INVITE') return;
  d.pending2xx = { seq, rs };
  if (answer.offerSent) void drive(stack, d, { type: 'OFFER_SENT' });
  // Over UDP the 2xx of an INVITE is ours to retransmit until its ACK (RFC 3261 13.3.1.4); TCP carries it once.
  if (remote.protocol.toUpperCase() === 'UDP') retransmit2xx(stack, d, rs, T1_MS, 0);
}

function retransmit2xx(stack: Stack, d: Dialog, rs: sip.Message, interval: number, elapsed: number): void {
  d.timers.set('retransmit2xx', interval, () => {
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
  d.timers.clear('retransmit2xx');
  if (!d.snapshot.matches({ live: { answered: { offer: 'sent' } } })) return;
  void drive(stack, d, { type: 'OFFER_DONE' });
  try {
    applyOffer(stack, d, readOffer(typeof rq.content === 'string' ? rq.content : '', d.media.remote));
  } catch (err) {
    stack.log.warn({ key: d.key, err: String(err) }, 'sip: the answer in the ACK has no audio we can use; the media stays as it was');
  }
}

/** The far end's new SDP applied to the stream (dialog-media.ts); the machine hears when it holds the call or resumes it. */
function applyOffer(stack: Stack, d: Dialog, n: Negotiated): void {
  const hold = holdEvent(d.snapshot, d.media.update(n));
  if (!hold) return;
  stack.log.info({ key: d.key, callId: d.callId, direction: n.direction }, hold.type === 'HOLD' ? 'sip: the far end holds the call' : 'sip: the far end resumed the call');
  void drive(stack, d, hold);
}
