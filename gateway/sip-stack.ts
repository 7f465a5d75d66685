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
//   - this file: the SipSignaling interface over them, and requests from
//     outside our dialogs (403 or 480, OPTIONS, 481, 405).
// Everything other code imports from the stack is exported here.

import net from 'node:net';
import sip from 'sip';
import type { PingResult, PlaceRequest, SignalingOptions, SipSignaling } from './signaling.ts';
import { ALLOW, CAPABILITIES } from './session-timer.ts';
import { openSipEndpoint, SILENT, type SipLog } from './sip-endpoint.ts';
import { MAX_FORWARDS, RESERVED_HEADERS, RecentMap, numberOf, randomToken, sipHeaders, tagOf, withToTag } from './sip-message.ts';
import { armNoResponse, drive, forget, peerOf, sendInvite, settled, type Dialog, type Stack } from './sip-dialog.ts';
import { DialogMedia } from './dialog-media.ts';
import { CLOSE_WAIT_MS, DialogTimers, settleWithin } from './dialog-driver.ts';
import { onSessionAck, onSessionRequest } from './sip-session.ts';
import { watchMedia } from './media-watch.ts';
import { startDialog } from '../machines/dialog.ts';
import { DigestCache, signAhead } from './sip-auth.ts';

export { openSipEndpoint, SipListenError, type SipEndpoint, type SipLog } from './sip-endpoint.ts';
export { freeUdpPort, parseListen } from './sip-sockets.ts';
export { audioSdp, formatAor, headerText, randomToken, tagOf } from './sip-message.ts';

/** The embedded stack's options: SignalingOptions, and the hook the trunks will fill. */
export type SipStackOptions = Omit<SignalingOptions, 'log'> & {
  log?: SipLog;
  /**
   * Whether a source is one of our trunks: its INVITEs are answered 480 (we
   * take no calls yet), anyone else's 403 (operator.md). Unset: nobody is.
   */
  fromTrunk?: (source: { address: string; port: number }) => boolean;
};

/** Why a TCP connection to host:port cannot be made (ECONNREFUSED, a timeout…), or null when it can (closed at once). */
function tcpRefused(host: string, port: number, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: host.replace(/^\[|\]$/g, ''), port });
    const done = (why: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no TCP connection in ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
}

/** A proxy's URI as a loose Route (RFC 3261 16.12: `;lr`, so the Request-URI stays the trunk's). */
function looseRoute(uri: string): string {
  return /;lr(?:[;=]|$)/i.test(uri) ? uri : `${uri};lr`;
}

/**
 * From, and P-Asserted-Identity with Privacy, of a call's INVITE. Without a
 * trunk, or with the trunk's caller id in From: From is the caller id at
 * our address (or the trunk's domain). With it in P-Asserted-Identity, that
 * header carries the caller id and From the trunk's account, or anonymous
 * with Privacy: id (RFC 3325, RFC 3323).
 */
function callerIdHeaders(req: PlaceRequest, tag: string, address: string): { from: string; identity: Record<string, string> } {
  const t = req.trunk;
  const host = t?.domain ?? address;
  const asserted = `<sip:${req.from}@${host}>`;
  if (!t || t.callerId === 'from') return { from: `<sip:${req.from ? `${req.from}@` : ''}${host}>;tag=${tag}`, identity: {} };
  if (t.privacy) {
    return { from: `"Anonymous" <sip:anonymous@anonymous.invalid>;tag=${tag}`, identity: { 'p-asserted-identity': asserted, privacy: 'id' } };
  }
  const account = t.username && /^[A-Za-z0-9._+-]+$/.test(t.username) ? t.username : req.from;
  return { from: `<sip:${account}@${host}>;tag=${tag}`, identity: { 'p-asserted-identity': asserted } };
}

/**
 * Starts the embedded SIP stack on `opts.listen` and returns the signaling
 * over it. Rejects (SipListenError) when the address cannot be bound.
 */
export async function createSipSignaling(opts: SipStackOptions): Promise<SipSignaling> {
  const log: SipLog = opts.log ?? SILENT;
  const ringMs = opts.ringTimeoutSeconds * 1000;
  /** Sources of requests from outside our dialogs seen in the last minute: logged at info once, then at debug. */
  const strangers = new RecentMap<string, true>(60_000, 4_096);
  let closing: Promise<void> | undefined;

  const endpoint = await openSipEndpoint(opts.listen, onRequest, log);
  const { host, address } = endpoint;
  const stack: Stack = {
    endpoint,
    host,
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
          if (!d) return;
          log.warn({ key, callId: d.callId, quietMs }, 'sip: no RTP or RTCP from the far end: BYE');
          void drive(stack, d, { type: 'MEDIA_SILENT' });
        },
      })
      : undefined,
  };

  // --- Requests we receive ---

  function onRequest(rq: sip.Message, remote: sip.Remote): void {
    const method = rq.method ?? '';
    const d = stack.byCallId.get(rq.headers['call-id'] ?? '');
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
      logStranger({ method, from: source, status: 481 }, 'sip: request for a dialog we do not have', remote.address);
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'), { once: true });
      return;
    }
    if (method === 'CANCEL' || method === 'UPDATE') {
      // No INVITE of theirs to cancel; no dialog to update.
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (method === 'INVITE') return refuseCall(rq, remote);
    logStranger({ method, from: source, status: 405 }, 'sip: request not supported', remote.address);
    endpoint.respond(withToTag(rq, sip.makeResponse(rq, 405, 'Method Not Allowed', { headers: { allow: ALLOW } })));
  }

  /** A request from outside our dialogs: logged at info the first time its source is seen in a minute, then at debug (a scanner sends thousands). */
  function logStranger(o: object, msg: string, address: string): void {
    if (strangers.get(address)) return log.debug?.(o, msg);
    strangers.set(address, true);
    log.info(o, msg);
  }

  /**
   * An INVITE from outside our dialogs: nobody calls us (yet). 403 from an
   * unknown source, 480 from one of our trunks (opts.fromTrunk; inbound
   * calls are the trunks issue's). Answered once: `sip`'s transaction repeats
   * it to a retransmitted INVITE only, never on its own.
   */
  function refuseCall(rq: sip.Message, remote: sip.Remote): void {
    const trunk = opts.fromTrunk?.({ address: remote.address, port: remote.port }) ?? false;
    const [status, reason] = trunk ? [480, 'Temporarily Unavailable'] : [403, 'Forbidden'];
    logStranger({ from: `${remote.address}:${remote.port}`, callId: rq.headers['call-id'], status }, 'sip: INVITE from outside our dialogs refused', remote.address);
    endpoint.respond(withToTag(rq, sip.makeResponse(rq, status, reason)), { once: true });
  }

  // --- The interface ---

  function checkRequest(req: PlaceRequest): void {
    if (!sip.parseUri(req.target)) throw new Error(`place: target is not a SIP URI: ${JSON.stringify(req.target)}`);
    if (!/^[+0-9A-Za-z._-]*$/.test(req.from)) throw new Error(`place: from must be a phone number or SIP user (got ${JSON.stringify(req.from)})`);
    for (const [name, value] of Object.entries(req.headers ?? {})) {
      if (!/^[A-Za-z0-9!%*_+`'~.-]+$/.test(name)) throw new Error(`place: bad header name ${JSON.stringify(name)}`);
      if (RESERVED_HEADERS.has(name.toLowerCase())) throw new Error(`place: header ${name} is set by the stack`);
      // ASCII only (Content-Length counts characters) and no line breaks (no header injection).
      if (!/^[\x20-\x7e\t]*$/.test(value)) throw new Error(`place: header ${name} must be printable ASCII on one line`);
    }
  }

  async function place(req: PlaceRequest): Promise<void> {
    if (closing) throw new Error('place: the SIP stack is closed');
    if (stack.active.has(req.key)) throw new Error(`place: a dialog with key ${req.key} is already active`);
    checkRequest(req);
    const t = req.trunk;
    const localTag = randomToken(8);
    const callId = `${randomToken(12)}@${host}`;
    // With a media plane, the offer names this call's own RTP port. Without
    // one nothing is awaited: the dialog is active before place() returns,
    // so a hangup right after it finds the dialog.
    const media = new DialogMedia({ key: req.key, host, plane: opts.media, watch: stack.watch, log });
    const opening = media.open();
    if (opening) await opening;
    const user = req.from ? `${req.from}@` : '';
    const { from, identity } = callerIdHeaders(req, localTag, address);
    const to = `<${req.target}>`;
    const contact = `<sip:${user}${address}>`;
    const d: Dialog = {
      key: req.key,
      callId,
      localTag,
      from,
      to,
      contact,
      invite: {
        method: 'INVITE',
        uri: req.target,
        headers: {
          via: [], // `sip` adds ours, with the bound address and a branch
          'max-forwards': MAX_FORWARDS,
          from,
          to,
          'call-id': callId,
          cseq: { seq: 1, method: 'INVITE' },
          contact,
          allow: ALLOW,
          ...(t?.proxy ? { route: `<${looseRoute(t.proxy)}>` } : {}),
          ...identity,
          ...req.headers,
          'content-type': 'application/sdp',
        },
        content: media.offer(),
      },
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
    d.timers.set('ring', ringMs, () => void drive(stack, d, { type: 'RING_TIMEOUT' }));
    log.info({ key: d.key, callId, target: req.target, ...(t ? { trunk: t.id } : {}) }, 'sip: INVITE');
    await sendInvite(stack, d);
  }

  /** Our BYE (answered) or CANCEL (not yet): the machine decides, and reports nothing for it but a CANCEL's outcome. */
  async function hangup(key: string): Promise<void> {
    const d = stack.active.get(key);
    if (d) await drive(stack, d, { type: 'HANGUP' });
  }

  async function play(key: string, utterance: string, pcm: Int16Array, o: { more?: boolean } = {}): Promise<{ queuedMs: number }> {
    const d = stack.active.get(key);
    if (!d) throw new Error(`play: dialog ${key} has no media`);
    return d.media.play(utterance, pcm, o);
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      stack.watch?.stop();
      // Nothing is reported for what close() ends: the answered get a BYE, the ringing a CANCEL;
      // an INVITE without any answer is simply abandoned (a late 1xx or 2xx finds the stack closed).
      for (const d of [...stack.byCallId.values()]) void drive(stack, d, { type: 'CLOSE' });
      await settleWithin(() => stack.byCallId.values(), settled, CLOSE_WAIT_MS);
      await endpoint.settle();
      for (const d of [...stack.byCallId.values()]) forget(stack, d);
      stack.byCallId.clear();
      stack.active.clear();
      endpoint.destroy();
      log.info({ address }, 'sip: stack closed');
    })();
    return closing;
  }

  /** OPTIONS to a trunk (signaling.ts ping): its own Call-ID and tags, no dialog. */
  async function ping(uri: string, o: { proxy?: string; timeoutMs: number }): Promise<PingResult> {
    if (closing) return { ok: false, reason: 'the SIP stack is closed' };
    const hop = sip.parseUri(o.proxy ?? uri);
    if (!sip.parseUri(uri) || !hop) return { ok: false, reason: `not a SIP URI: ${uri}` };
    // Over TCP the connection is tried here first: `sip` prints a refused connection on stdout
    // (console.log), which would break the JSON log every interval while a TCP trunk is down.
    if ((hop.params.transport ?? '').toLowerCase() === 'tcp') {
      const refused = await tcpRefused(hop.host, hop.port ?? 5060, o.timeoutMs);
      if (refused) return { ok: false, reason: `unreachable (${refused})` };
    }
    const rq: sip.Message = {
      method: 'OPTIONS',
      uri,
      headers: {
        via: [],
        'max-forwards': MAX_FORWARDS,
        ...(o.proxy ? { route: `<${looseRoute(o.proxy)}>` } : {}),
        from: `<sip:ping@${address}>;tag=${randomToken(8)}`,
        to: `<${uri}>`,
        'call-id': `${randomToken(12)}@${host}`,
        cseq: { seq: 1, method: 'OPTIONS' },
        contact: `<sip:ping@${address}>`,
        accept: 'application/sdp',
      },
    };
    return new Promise<PingResult>((resolve) => {
      let done = false;
      const finish = (r: PingResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        endpoint.mute(rq);
        resolve(r);
      };
      const timer = setTimeout(() => finish({ ok: false, reason: `no answer to OPTIONS in ${o.timeoutMs} ms` }), o.timeoutMs);
      void endpoint.request(rq, (rs) => {
        const status = rs.status ?? 0;
        if (status < 200) return;
        // `sip`'s own 408 (Timer F) or 503 (nowhere to send it) have no reason phrase and no To tag.
        const local = !tagOf(rs.headers.to) && !rs.reason;
        if (local || status === 408 || status === 503) finish({ ok: false, reason: local ? 'no answer to OPTIONS' : `OPTIONS answered ${status} ${rs.reason ?? ''}`.trim() });
        else finish({ ok: true, status });
      }, { onUnreachable: (code) => finish({ ok: false, reason: `unreachable (${code})` }) });
    });
  }

  log.info({ address }, 'sip: stack listening');
  return {
    ping,
    address,
    place,
    hangup,
    active: () => [...stack.active.keys()],
    hasMedia: (key: string) => {
      return stack.active.get(key)?.media.playable ?? false;
    },
    close,
    play,
  };
}
