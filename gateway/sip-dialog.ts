import sip from 'sip';
import { saysHuman, saysVoicemail, type DialogEvent } from './signaling.ts';
import { negotiate, type Negotiated } from './media/sdp.ts';
import type { MediaWatch } from './media-watch.ts';
import type { DialogMedia } from './dialog-media.ts';
import { CANCEL_GUARD_MS, DialogTimers, driveDialog, reportEvent, type DrivenDialog } from './dialog-driver.ts';
import type { SipEndpoint, SipLog } from './sip-endpoint.ts';
import { ackOf, byeOf, cancelOf, contactUri, headerText, numberOf, randomToken, tagOf, type RemoteTarget } from './sip-message.ts';
import { answerChallenge, type DialogAuth, type DigestCache } from './sip-auth.ts';
import type { DialogEffect, DialogMachineEvent } from '../machines/dialog-events.ts';
import { dialogSettled, holdEvent } from '../machines/dialog-state.ts';

// The outbound dialogs of the embedded stack (sip-stack.ts): each one's life
// is the dialog machine (machines/dialog.ts), driven as drachtio.ts drives
// its own (dialog-driver.ts); this file turns what the wire and the timers
// say into the machine's events, and carries out what its transitions emit
// (report a DialogEvent, send a CANCEL, ACK or BYE, connect or close the
// media, arm or stop a timer). Its media is a DialogMedia (dialog-media.ts),
// as drachtio.ts's is. What it keeps besides is the transport's: the INVITE
// as sent, CSeq numbers, each answering fork's target, route set, ACK
// branch and BYE transaction.
//
// `sip` keeps no timer once a 1xx came (no ring timeout, no guard after our
// CANCEL), never ACKs a 2xx (it hands every retransmitted 2xx to us) and adds
// no Max-Forwards: the dialogs do all three.

/** How long a released dialog is remembered, to re-ACK a retransmitted 2xx or answer a late BYE (64*T1). */
const LINGER_MS = 32_000;

type TimerName = 'noResponse' | 'ring' | 'guard' | 'linger' | 'retransmit2xx';

/** One fork that answered the INVITE with a 2xx (its To tag). */
export type Peer = RemoteTarget & {
  /** The branch of our ACK: a retransmitted 2xx gets the very same ACK. */
  ackBranch: string;
  /** Our BYE to it: not sent, out, or answered (or theirs came). */
  bye: 'none' | 'sent' | 'done';
  /** The CSeq number of the last request it sent in the dialog (RFC 3261 12.2.2). */
  remoteCseq: number | undefined;
};

export type Dialog = DrivenDialog & {
  callId: string;
  localTag: string;
  /** Our From (with our tag) and the INVITE's To (no tag), as sent. */
  from: string;
  to: string;
  contact: string;
  /** The INVITE as handed to `sip`, which fills in its Via (the CANCEL copies it); after a redirect, the one to the new target. */
  invite: sip.Message;
  /** The last CSeq number we used (1 is the first INVITE). */
  cseq: number;
  /** The number dialed (numberOf the first target's user part): a redirect is followed only to the same number. */
  dialed: string;
  /** Every fork that answered, by To tag; the dialog's own is snapshot.context.peerTag. */
  peers: Map<string, Peer>;
  /** The answer of the 2xx being handled, for connectMedia. */
  answer: Negotiated | undefined;
  /** Where a 3xx being handled sends the INVITE, should the machine follow it. */
  redirectTo: string | undefined;
  timers: DialogTimers<TimerName>;
  /** Its RTP stream, our SDP session, and the far end's. */
  media: DialogMedia;
  /** Our 2xx to the far end's re-INVITE, retransmitted until its ACK. */
  pending2xx: { seq: number; rs: sip.Message } | undefined;
  /** Through a trunk with credentials: its digest state (sip-auth.ts). */
  auth: DialogAuth | undefined;
};

/** What the dialogs of one stack share. */
export type Stack = {
  endpoint: SipEndpoint;
  host: string;
  log: SipLog;
  /** Silence of answered dialogs (only with a media plane and a media timeout). */
  watch: MediaWatch | undefined;
  noResponseMs: number;
  onEvent: (key: string, e: DialogEvent) => void;
  /** Dialogs by key: placed and not released (active()). */
  active: Map<string, Dialog>;
  /** Every dialog we still answer for (released ones linger), by Call-ID. */
  byCallId: Map<string, Dialog>;
  /** Each trunk's digest nonce, shared by its calls (sip-auth.ts). */
  digests: DigestCache;
};

/** Hands an event to the dialog's machine and carries out what it decides (dialog-driver.ts). */
export function drive(stack: Stack, d: Dialog, event: DialogMachineEvent): Promise<void> {
  return driveDialog(d, event, (f) => carryOut(stack, d, f), (step) => stack.log.debug?.(step, 'sip: dialog'));
}

function carryOut(stack: Stack, d: Dialog, f: DialogEffect): Promise<void> | void {
  switch (f.type) {
    case 'report': return report(stack, d, f.event);
    case 'sendCancel': return sendCancel(stack, d);
    case 'sendAck': return sendAck(stack, d, f.tag);
    case 'sendBye': return sendBye(stack, d, f.tag);
    case 'armCancelGuard': return d.timers.set('guard', CANCEL_GUARD_MS, () => void drive(stack, d, { type: 'CANCEL_GUARD' }));
    case 'followRedirect': return followRedirect(stack, d);
    case 'connectMedia': return connectMedia(stack, d);
    case 'inviteOver': return d.timers.clear('noResponse', 'ring', 'guard');
    case 'release': return release(stack, d);
  }
}

function report(stack: Stack, d: Dialog, ev: DialogEvent): void {
  reportEvent(stack.log, 'sip', stack.onEvent, d.key, ev, { callId: d.callId });
}

/** Out of active(): its stream closed, its silence no longer watched; it lingers by Call-ID to finish its SIP (late 1xx/2xx, BYE). */
function release(stack: Stack, d: Dialog): void {
  d.media.close();
  if (stack.active.get(d.key) === d) stack.active.delete(d.key);
  d.timers.clear('retransmit2xx');
  d.pending2xx = undefined;
  d.timers.set('linger', LINGER_MS, () => forget(stack, d));
}

export function forget(stack: Stack, d: Dialog): void {
  d.media.close();
  d.timers.clearAll();
  if (stack.byCallId.get(d.callId) === d) stack.byCallId.delete(d.callId);
}

/** Nothing left to hear for this dialog: its INVITE is done (or never had an answer) and its BYEs answered, other forks' too. */
export function settled(d: Dialog): boolean {
  return dialogSettled(d.snapshot) && [...d.peers.values()].every((p) => p.bye !== 'sent');
}

/** The fork whose 2xx made the dialog, if one did. */
export function peerOf(d: Dialog): Peer | undefined {
  const tag = d.snapshot.context.peerTag;
  return tag === null ? undefined : d.peers.get(tag);
}

// --- The SIP our dialogs send ---

function inviteSeq(d: Dialog): number {
  const cseq = d.invite.headers.cseq;
  return typeof cseq === 'object' ? cseq.seq : 1;
}

function sendCancel(stack: Stack, d: Dialog): Promise<void> {
  stack.log.info({ key: d.key, callId: d.callId, why: d.snapshot.context.cancel ?? 'abandon' }, 'sip: CANCEL');
  return stack.endpoint.request(cancelOf(d.invite, d), (rs) => {
    if (rs.status !== undefined && rs.status >= 300) stack.log.warn({ key: d.key, status: rs.status }, 'sip: CANCEL refused');
  });
}

function sendAck(stack: Stack, d: Dialog, tag: string): void {
  const peer = d.peers.get(tag);
  if (peer) void stack.endpoint.request(ackOf(d, peer, inviteSeq(d), peer.ackBranch));
}

function sendBye(stack: Stack, d: Dialog, tag: string): Promise<void> | void {
  const peer = d.peers.get(tag);
  if (!peer || peer.bye !== 'none') return;
  peer.bye = 'sent';
  d.cseq += 1;
  stack.log.info({ key: d.key, callId: d.callId }, 'sip: BYE');
  return stack.endpoint.request(byeOf(d, peer, d.cseq), (rs) => {
    if (rs.status === undefined || rs.status < 200) return;
    peer.bye = 'done';
    if (rs.status >= 300) stack.log.warn({ key: d.key, status: rs.status }, 'sip: BYE answered with an error');
    if (tag === d.snapshot.context.peerTag) void drive(stack, d, { type: 'BYE_ANSWERED' });
  });
}

/** Hands the dialog's INVITE to `sip`; answers to an INVITE it has since replaced (a redirect) are not its. */
export function sendInvite(stack: Stack, d: Dialog): Promise<void> {
  const invite = d.invite;
  return stack.endpoint.request(invite, (rs) => {
    if (d.invite === invite) onInviteResponse(stack, d, rs);
  }, {
    onUnreachable: (code) => {
      if (d.invite === invite) onUnreachable(stack, d, code);
    },
  });
}

/** `sip` retransmits the INVITE and gives up after its own 32 s; this timer is ours and runs from the sending of the INVITE. */
export function armNoResponse(stack: Stack, d: Dialog): void {
  d.timers.set('noResponse', stack.noResponseMs, () => void drive(stack, d, { type: 'NO_RESPONSE' }));
}

// --- Answers to our INVITE ---

function onInviteResponse(stack: Stack, d: Dialog, rs: sip.Message): void {
  const status = rs.status ?? 0;
  // A response made up by `sip` itself (Timer B's 408, no address to send to) has neither a To tag nor a reason phrase.
  const local = !tagOf(rs.headers.to) && !rs.reason;
  if (status < 200) return void drive(stack, d, { type: 'PROVISIONAL', status });
  if (local) return void drive(stack, d, { type: 'GAVE_UP' });
  if (status < 300) return on2xx(stack, d, rs, status);
  // A trunk's challenge answered: the call goes on with the signed INVITE (`sip` ACKed the 401/407).
  if ((status === 401 || status === 407) && d.auth && authenticate(stack, d, rs)) return;
  // `sip`'s INVITE transaction ACKs the non-2xx itself.
  d.redirectTo = status === 301 || status === 302 ? redirectTarget(stack, d, rs) : undefined;
  void drive(stack, d, { type: 'FINAL_ERROR', status, reason: rs.reason ?? '', redirect: d.redirectTo !== undefined });
}

function on2xx(stack: Stack, d: Dialog, rs: sip.Message, status: number): void {
  const tag = tagOf(rs.headers.to) ?? '';
  if (!d.peers.has(tag)) d.peers.set(tag, peerFrom(rs, d, tag));
  // The answer to our offer must name a codec we speak (operator.md): without one the machine hangs up (no_media).
  try {
    d.answer = negotiate(typeof rs.content === 'string' ? rs.content : '');
  } catch (err) {
    d.answer = undefined;
    stack.log.debug?.({ key: d.key, tag, err: String(err) }, 'sip: a 2xx without media we can use');
  }
  const answeredBy = headerText(rs, 'x-tolk-answered-by');
  const voicemail = saysVoicemail(answeredBy);
  const human = saysHuman(answeredBy);
  void drive(stack, d, { type: 'FINAL_2XX', tag, status, reason: rs.reason ?? 'OK', usableMedia: d.answer !== undefined, voicemail, ...(human ? { human } : {}) });
}

function peerFrom(rs: sip.Message, d: Dialog, tag: string): Peer {
  const recordRoute = rs.headers['record-route'] ?? [];
  const route = [...recordRoute].reverse().map((r) => `<${sip.stringifyUri(r.uri)}>`).join(', ');
  return {
    tag,
    // Where in-dialog requests go: the 2xx's Contact.
    target: contactUri(rs) ?? sip.stringifyUri(d.invite.uri ?? ''),
    route: route || undefined,
    ackBranch: `z9hG4bK${randomToken(12)}`,
    bye: 'none',
    remoteCseq: undefined,
  };
}

/**
 * Where a 301 or 302 would send the INVITE, if we follow it: a carrier's
 * redirect is followed once (the machine knows whether it was), and only to a
 * sip: URI that dials the same number, since the policy checks that let this
 * call out were made for that number. Otherwise the call ends rejected with
 * the 3xx.
 */
function redirectTarget(stack: Stack, d: Dialog, rs: sip.Message): string | undefined {
  const to = contactUri(rs);
  const uri = to ? sip.parseUri(to) : undefined;
  const refused = d.snapshot.context.redirected ? 'a second redirect'
    : !uri || uri.schema !== 'sip' ? 'not a sip: URI'
    : numberOf(uri.user) !== d.dialed ? 'another number'
    : undefined;
  if (refused) {
    stack.log.info({ key: d.key, callId: d.callId, status: rs.status, contact: to ?? null, why: refused }, 'sip: redirect not followed');
    return undefined;
  }
  // Headers and a method in a Contact URI are the redirecting side's to choose, not ours to send.
  const params = { ...uri!.params };
  delete params.method;
  return sip.stringifyUri({ ...uri!, params, headers: {} });
}

/** A new INVITE to the redirect's target, in the same call (Call-ID, tags, the next CSeq); the ring timer keeps running from the first. */
function followRedirect(stack: Stack, d: Dialog): Promise<void> | void {
  const target = d.redirectTo;
  if (!target) return;
  d.cseq += 1;
  d.invite = {
    method: 'INVITE',
    uri: target,
    headers: { ...d.invite.headers, via: [], cseq: { seq: d.cseq, method: 'INVITE' } },
    content: d.invite.content,
  };
  delete d.invite.headers.route;
  armNoResponse(stack, d);
  stack.log.info({ key: d.key, callId: d.callId, target }, 'sip: redirected: INVITE to the new target');
  return sendInvite(stack, d);
}

/**
 * The INVITE again with the trunk's credentials (next CSeq, same Call-ID and
 * tags), when sip-auth.ts says the challenge is to be answered; false when it
 * is not (wrong credentials: the 401/407 ends the call).
 */
function authenticate(stack: Stack, d: Dialog, rs: sip.Message): boolean {
  const next: sip.Message = {
    method: 'INVITE',
    uri: d.invite.uri,
    headers: { ...d.invite.headers, via: [], cseq: { seq: d.cseq + 1, method: 'INVITE' } },
    content: d.invite.content,
  };
  if (!answerChallenge(d.auth!, rs, next)) {
    stack.log.warn({ key: d.key, callId: d.callId, status: rs.status }, 'sip: the trunk refused our credentials');
    return false;
  }
  d.cseq += 1;
  d.invite = next;
  armNoResponse(stack, d);
  stack.log.info({ key: d.key, callId: d.callId, status: rs.status }, 'sip: challenged: INVITE with credentials');
  void sendInvite(stack, d);
  return true;
}

/**
 * Nobody listens where the INVITE goes (ICMP port or host unreachable, seen
 * by the endpoint's probe): `no_response` at once, the same as no answer at
 * all, since no SIP answer came (sip_code stays null).
 */
function onUnreachable(stack: Stack, d: Dialog, code: string): void {
  if (!d.snapshot.can({ type: 'NO_RESPONSE' })) return;
  stack.endpoint.mute(d.invite); // its retransmissions would only hit the same wall
  stack.log.warn({ key: d.key, callId: d.callId, code, target: sip.stringifyUri(d.invite.uri ?? '') }, 'sip: the INVITE\'s destination is unreachable');
  void drive(stack, d, { type: 'NO_RESPONSE' });
}

// --- The dialog's media ---

/** The answer's SDP decides where and how our stream sends; from then on the far end's silence is watched. */
function connectMedia(stack: Stack, d: Dialog): void {
  const remote = d.answer;
  d.answer = undefined;
  if (!remote) return;
  const hold = holdEvent(d.snapshot, d.media.answered(remote));
  if (hold) void drive(stack, d, hold);
}
