// The gateway's embedded SIP signaling (SipSignaling, signaling.ts) on the npm
// `sip` package: one UDP/TCP stack per process that places INVITEs as a UAC,
// follows each dialog and reports its events by the caller's key.
//
// `sip` gives us the message parser, the transport and RFC 3261 transactions
// (INVITE retransmissions, Timer B, the ACK of non-2xx answers, absorbing
// retransmitted requests). The rest is ours, by concern:
//   - sip-endpoint.ts (with sip-sockets.ts): the transport, with what `sip`
//     gets wrong worked around (bind errors, its local 404 and 503, weak
//     branches, strict parsing, Timer G over TCP, ICMP unreachable);
//   - sip-message.ts: tokens, tags, headers, the requests a dialog sends;
//   - machines/dialog.ts: a dialog's life as a state machine, and
//     sip-dialog.ts, which feeds it the wire and the timers and carries out
//     what it decides (report, CANCEL, ACK, BYE, media);
//   - sip-session.ts: the far end's re-INVITE and UPDATE on our transport;
//   - shared with drachtio.ts: dialog-driver.ts (driving the machine, the
//     dialog's timers), dialog-media.ts (its stream and SDP session),
//     session-timer.ts (what we answer mid-call), media-watch.ts (the media
//     timeout of answered dialogs);
//   - sip-place.ts: the INVITE of a placed call (checked, caller id);
//     sip-ping.ts: OPTIONS to a trunk;
//   - this file: the SipSignaling interface over them, and requests from
//     outside our dialogs (403 or 480, OPTIONS, 481, 405).
// Everything other code imports from the stack is exported here.

import sip from 'sip';
import type { PingResult, PlaceRequest, SignalingOptions, SipSignaling } from './signaling.ts';
import { ALLOW, CAPABILITIES } from './session-timer.ts';
import { openSipEndpoint, SILENT, type SipEndpoint, type SipLog } from './sip-endpoint.ts';
import { RecentMap, numberOf, randomToken, sipHeaders, tagOf, withToTag } from './sip-message.ts';
import { armNoResponse, drive, forget, peerOf, sendInvite, settled, type Dialog, type Stack } from './sip-dialog.ts';
import { DialogMedia } from './dialog-media.ts';
import { CLOSE_WAIT_MS, DialogTimers, settleWithin } from './dialog-driver.ts';
import { onSessionAck, onSessionRequest } from './sip-session.ts';
import { watchMedia } from './media-watch.ts';
import { checkPlaceRequest, inviteOf } from './sip-place.ts';
import { pingOver } from './sip-ping.ts';
import { startDialog } from '../machines/dialog.ts';
import { DigestCache, signAhead } from './sip-auth.ts';
import { InboundDialogs } from './sip-inbound.ts';

export { openSipEndpoint, SipListenError, type SipEndpoint, type SipLog } from './sip-endpoint.ts';
export { freeUdpPort, parseListen } from './sip-sockets.ts';
export { audioSdp, formatAor, headerText, randomToken, tagOf } from './sip-message.ts';

/** The embedded stack's options: SignalingOptions, and the hook the trunks will fill. */
export type SipStackOptions = Omit<SignalingOptions, 'log'> & {
  log?: SipLog;
  /**
   * Whether a source is one of our trunks: its INVITEs go to `inbound` (or
   * are answered 480 without it), anyone else's 403 (operator.md). Unset: nobody is.
   */
  fromTrunk?: (source: { address: string; port: number }) => boolean;
};

/**
 * Starts the embedded SIP stack on `opts.listen` and returns the signaling
 * over it. Rejects (SipListenError) when the address cannot be bound.
 */
export async function createSipSignaling(opts: SipStackOptions): Promise<SipSignaling> {
  const log: SipLog = opts.log ?? SILENT;
  // The endpoint hands its requests to the signaling made right after it
  // (no request can come in between: both happen in one turn of the loop).
  let signaling: EmbeddedSipSignaling | undefined;
  const endpoint = await openSipEndpoint(opts.listen, (rq, remote) => signaling!.onRequest(rq, remote), log);
  signaling = new EmbeddedSipSignaling(opts, log, endpoint);
  log.info({ address: endpoint.address }, 'sip: stack listening');
  return signaling;
}

/** The SipSignaling on one `sip` endpoint: its dialogs (sip-dialog.ts) and what comes from outside them. */
class EmbeddedSipSignaling implements SipSignaling {
  readonly address: string;
  private readonly opts: SipStackOptions;
  private readonly log: SipLog;
  private readonly endpoint: SipEndpoint;
  /** What the dialogs share (sip-dialog.ts). */
  private readonly stack: Stack;
  /** Sources of requests from outside our dialogs seen in the last minute: logged at info once, then at debug. */
  private readonly strangers = new RecentMap<string, true>(60_000, 4_096);
  /** The calls our trunks send us (sip-inbound.ts). */
  private readonly inbound: InboundDialogs | undefined;
  private closing: Promise<void> | undefined;

  constructor(opts: SipStackOptions, log: SipLog, endpoint: SipEndpoint) {
    this.opts = opts;
    this.log = log;
    this.endpoint = endpoint;
    this.address = endpoint.address;
    const stack: Stack = {
      endpoint,
      host: endpoint.host,
      log,
      noResponseMs: (opts.noResponseSeconds ?? 32) * 1000,
      onEvent: opts.onEvent,
      active: new Map(),
      byCallId: new Map(),
      digests: new DigestCache(),
      watch: opts.media && opts.mediaTimeoutSeconds !== undefined
        ? watchMedia({
          plane: opts.media,
          timeoutSeconds: opts.mediaTimeoutSeconds,
          log,
          onSilent: (key, quietMs) => {
            const d = stack.active.get(key);
            const inbound = this.inbound?.byKey.get(key);
            if (inbound) {
              log.warn({ key, callId: inbound.callId, quietMs }, 'sip: no RTP or RTCP from the caller: BYE');
              return this.inbound!.end(inbound, 'media_timeout');
            }
            if (!d) return;
            log.warn({ key, callId: d.callId, quietMs }, 'sip: no RTP or RTCP from the far end: BYE');
            void drive(stack, d, { type: 'MEDIA_SILENT' });
          },
        })
        : undefined,
    };
    this.stack = stack;
    const inbound = opts.inbound;
    this.inbound = inbound
      ? new InboundDialogs({ endpoint, host: endpoint.host, address: endpoint.address, log, plane: opts.media, watch: stack.watch, onEvent: inbound.onEvent, decide: inbound.decide })
      : undefined;
  }

  // --- Requests we receive ---

  onRequest(rq: sip.Message, remote: sip.Remote): void {
    const { endpoint, stack } = this;
    const method = rq.method ?? '';
    const callId = rq.headers['call-id'] ?? '';
    if (this.inbound?.has(callId)) {
      if (method === 'INVITE' && !tagOf(rq.headers.to)) return; // a retransmitted INVITE: its transaction answers it
      return this.inbound.request(rq, remote);
    }
    const d = stack.byCallId.get(callId);
    if (method === 'ACK') {
      if (d) onSessionAck(stack, d, rq);
      return; // never answered
    }
    const toTag = tagOf(rq.headers.to);
    const fromTag = tagOf(rq.headers.from);
    // In-dialog for us: our tag in To, a tag of a fork that answered in From.
    const peer = d && toTag === d.localTag ? d.peers.get(fromTag ?? '') : undefined;
    const source = `${remote.address}:${remote.port}`;

    if (method === 'BYE') {
      if (!d || !peer) {
        endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
        return;
      }
      endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
      if (peer.bye === 'none') peer.bye = 'done'; // ours is not needed any more
      if (peer === peerOf(d)) void drive(stack, d, { type: 'REMOTE_BYE' });
      return;
    }
    if (method === 'OPTIONS') {
      endpoint.respond(withToTag(rq, sip.makeResponse(rq, 200, 'OK', { headers: sipHeaders(CAPABILITIES) })));
      return;
    }
    if (d && peer && (method === 'INVITE' || method === 'UPDATE')) return onSessionRequest(stack, d, peer, rq, remote);
    if (toTag && !peer) {
      // In-dialog request for a dialog we do not have (or a CANCEL of an INVITE we never got).
      this.logStranger({ method, from: source, status: 481 }, 'sip: request for a dialog we do not have', remote.address);
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'), { once: true });
      return;
    }
    if (method === 'CANCEL' || method === 'UPDATE') {
      // No INVITE of theirs to cancel; no dialog to update.
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (method === 'INVITE') return this.refuseCall(rq, remote);
    this.logStranger({ method, from: source, status: 405 }, 'sip: request not supported', remote.address);
    endpoint.respond(withToTag(rq, sip.makeResponse(rq, 405, 'Method Not Allowed', { headers: { allow: ALLOW } })));
  }

  /** A request from outside our dialogs: logged at info the first time its source is seen in a minute, then at debug (a scanner sends thousands). */
  private logStranger(o: object, msg: string, address: string): void {
    if (this.strangers.get(address)) return this.log.debug?.(o, msg);
    this.strangers.set(address, true);
    this.log.info(o, msg);
  }

  /**
   * An INVITE from outside our dialogs: 403 from an unknown source; from one
   * of our trunks (opts.fromTrunk), the inbound listener's to decide
   * (sip-inbound.ts), 480 without one. A refusal is answered once: `sip`'s
   * transaction repeats it to a retransmitted INVITE only, never on its own.
   */
  private refuseCall(rq: sip.Message, remote: sip.Remote): void {
    const trunk = this.opts.fromTrunk?.({ address: remote.address, port: remote.port }) ?? false;
    if (trunk && this.inbound && !this.closing) {
      this.inbound.invite(rq, remote).catch((err) => this.log.error({ callId: rq.headers['call-id'], err: String(err) }, 'sip: an inbound call failed'));
      return;
    }
    const [status, reason] = trunk ? [480, 'Temporarily Unavailable'] : [403, 'Forbidden'];
    this.logStranger({ from: `${remote.address}:${remote.port}`, callId: rq.headers['call-id'], status }, 'sip: INVITE from outside our dialogs refused', remote.address);
    this.endpoint.respond(withToTag(rq, sip.makeResponse(rq, status, reason)), { once: true });
  }

  // --- The interface ---

  async place(req: PlaceRequest): Promise<void> {
    const { stack, log } = this;
    if (this.closing) throw new Error('place: the SIP stack is closed');
    if (stack.active.has(req.key)) throw new Error(`place: a dialog with key ${req.key} is already active`);
    checkPlaceRequest(req);
    const t = req.trunk;
    const localTag = randomToken(8);
    const callId = `${randomToken(12)}@${stack.host}`;
    // With a media plane, the offer names this call's own RTP port. Without
    // one nothing is awaited: the dialog is active before place() returns,
    // so a hangup right after it finds the dialog.
    const media = new DialogMedia({ key: req.key, host: stack.host, plane: this.opts.media, watch: stack.watch, log });
    const opening = media.open();
    if (opening) await opening;
    const { from, to, contact, invite } = inviteOf(req, { localTag, callId, address: this.address, offer: media.offer() });
    const d: Dialog = {
      key: req.key,
      callId,
      localTag,
      from,
      to,
      contact,
      invite,
      cseq: 1,
      dialed: numberOf(sip.parseUri(req.target)?.user),
      snapshot: startDialog(),
      queue: [],
      driving: false,
      peers: new Map(),
      answer: undefined,
      redirectTo: undefined,
      timers: new DialogTimers(),
      media,
      pending2xx: undefined,
      auth: t?.credentials ? { creds: t.credentials, ctx: stack.digests.get(t.id), answered: 0, staleRetried: false } : undefined,
    };
    if (d.auth) signAhead(d.auth, d.invite);
    stack.active.set(d.key, d);
    stack.byCallId.set(callId, d);

    armNoResponse(stack, d);
    // Ours too, from the sending of the first INVITE (a redirect does not restart it).
    d.timers.set('ring', this.opts.ringTimeoutSeconds * 1000, () => void drive(stack, d, { type: 'RING_TIMEOUT' }));
    log.info({ key: d.key, callId, target: req.target, ...(t ? { trunk: t.id } : {}) }, 'sip: INVITE');
    await sendInvite(stack, d);
  }

  /** Our BYE (answered) or CANCEL (not yet): the machine decides, and reports nothing for it but a CANCEL's outcome. */
  async hangup(key: string): Promise<void> {
    if (this.inbound?.byKey.has(key)) return this.inbound.hangup(key);
    const d = this.stack.active.get(key);
    if (d) await drive(this.stack, d, { type: 'HANGUP' });
  }

  active(): string[] {
    return [...this.stack.active.keys()];
  }

  hasMedia(key: string): boolean {
    return (this.stack.active.get(key) ?? this.inbound?.byKey.get(key))?.media.playable ?? false;
  }

  async play(key: string, utterance: string, pcm: Int16Array, o: { more?: boolean; interruptible?: boolean } = {}): Promise<{ queuedMs: number }> {
    const d = this.stack.active.get(key) ?? this.inbound?.byKey.get(key);
    if (!d) throw new Error(`play: dialog ${key} has no media`);
    return d.media.play(utterance, pcm, o);
  }

  async close(): Promise<void> {
    const { stack, endpoint } = this;
    this.closing ??= (async () => {
      stack.watch?.stop();
      // Nothing is reported for what close() ends: the answered get a BYE, the ringing a CANCEL;
      // an INVITE without any answer is simply abandoned (a late 1xx or 2xx finds the stack closed).
      for (const d of [...stack.byCallId.values()]) void drive(stack, d, { type: 'CLOSE' });
      this.inbound?.close();
      await settleWithin(() => stack.byCallId.values(), settled, CLOSE_WAIT_MS);
      await endpoint.settle();
      for (const d of [...stack.byCallId.values()]) forget(stack, d);
      stack.byCallId.clear();
      stack.active.clear();
      endpoint.destroy();
      this.log.info({ address: this.address }, 'sip: stack closed');
    })();
    return this.closing;
  }

  /** OPTIONS to a trunk (signaling.ts ping): sip-ping.ts. */
  async ping(uri: string, o: { proxy?: string; timeoutMs: number }): Promise<PingResult> {
    if (this.closing) return { ok: false, reason: 'the SIP stack is closed' };
    return pingOver(this.endpoint, uri, o);
  }
}
