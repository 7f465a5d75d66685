// The gateway's embedded SIP signaling (SipSignaling, signaling.ts) on the npm
// `sip` package: one UDP/TCP stack per process that places INVITEs as a UAC,
// follows each dialog and reports its events by the caller's key.
//
// `sip` gives us the message parser, the transport and RFC 3261 transactions
// (INVITE retransmissions, Timer B, the ACK of non-2xx answers, absorbing
// retransmitted requests). The dialog layer is ours, and so is a list of what
// `sip` 0.0.6 does not do, each worked around below where it happens:
//   - it binds its sockets without an 'error' listener (an address in use
//     would crash the process) and never exposes them: openSipEndpoint catches
//     them as node:dgram / node:net hand them out;
//   - it answers a local 404 when the next hop's host equals its own host
//     (whatever the port), which is every loopback call: it is given a host
//     name that matches nothing (see startEndpoint);
//   - it adds no Max-Forwards to our requests: we do;
//   - it has no timer once a 1xx came (no ring timeout, no guard after our
//     CANCEL), and never ACKs a 2xx (it hands every retransmitted 2xx to us):
//     our dialogs do both;
//   - it swallows a 503 from the far end (taken for "try the next address")
//     and hands us one of its own making: the far end's is handed on instead;
//   - its Content-Length counts JavaScript characters: bodies stay ASCII;
//   - sending on it after destroy() throws from inside its timers: close()
//     waits until what it handed to `sip` is on the wire before destroying it.

import dgram from 'node:dgram';
import net from 'node:net';
import type { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import sip from 'sip';
import { saysVoicemail, type DialogEvent, type PlaceRequest, type SignalingOptions, type SipSignaling } from './signaling.ts';
import { negotiate, offer as sdpOffer } from './media/sdp.ts';

export type SipLog = NonNullable<SignalingOptions['log']>;

const SILENT: SipLog = { info() {}, warn() {}, error() {} };

/** Longest wait for a message handed to `sip` to reach the socket (a DNS look-up at worst). */
const WIRE_TIMEOUT_MS = 5_000;
/** After our CANCEL, how long we wait for the INVITE's final answer before giving up on it. */
const CANCEL_GUARD_MS = 4_000;
/** How long close() waits for the answers to its BYEs and CANCELs. */
const CLOSE_WAIT_MS = 2_000;
/** How long an ended dialog is remembered, to re-ACK a retransmitted 2xx or answer a late BYE (64*T1). */
const LINGER_MS = 32_000;
const MAX_FORWARDS = 70;

// --- The transport: a `sip` stack bound to one address -----------------------

/** A `sip` stack bound and listening, with the guards the package lacks. */
export type SipEndpoint = {
  readonly host: string;
  readonly port: number;
  /** `host:port`, as put in Via and Contact. */
  readonly address: string;
  /**
   * Sends a request (`onResponse` gets every response, retransmitted 2xx
   * included; never called after destroy). Resolves once the request is on
   * the wire, or `sip` gave up on it. Never throws.
   */
  request(m: sip.Message, onResponse?: (rs: sip.Message) => void): Promise<void>;
  /** Sends a response through the request's server transaction. Never throws. */
  respond(rs: sip.Message): void;
  /** Resolves once every request handed to `sip` is on the wire (or given up), so destroy() cannot race it. */
  settle(): Promise<void>;
  /** Closes the sockets and stops every transaction timer. Idempotent. */
  destroy(): void;
};

/** What openSipEndpoint rejects with when the address cannot be bound. */
export class SipListenError extends Error {
  override name = 'SipListenError';
  code: string | undefined;
  constructor(message: string, code: string | undefined, cause: unknown) {
    super(message, { cause });
    this.code = code;
  }
}

/** Splits `host:port`. IPv6 is refused: `sip` writes it unbracketed in Via. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^([^:\s]+):(\d{1,5})$/.exec(listen.trim());
  if (!m || Number(m[2]) > 65535) {
    throw new Error(`SIP listen address must be host:port with an IPv4 address or a host name (got ${JSON.stringify(listen)})`);
  }
  return { host: m[1]!, port: Number(m[2]) };
}

/** A UDP port free on `host` now (bound to port 0, then released). */
export function freeUdpPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket('udp4');
    s.once('error', reject);
    s.bind(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a `sip` stack on `listen` (UDP and TCP; port 0 picks a free one).
 * `onRequest` gets every incoming request (ACKs of 2xx included; `sip`
 * absorbs retransmissions) and must answer through `respond`.
 */
export async function openSipEndpoint(
  listen: string,
  onRequest: (rq: sip.Message, remote: sip.Remote) => void,
  log: SipLog = SILENT,
): Promise<SipEndpoint> {
  const { host, port } = parseListen(listen);
  // `sip` treats port 0 as 5060, so a free port is chosen here. UDP decides
  // it; should TCP be taken on that number, another one is tried.
  const attempts = port === 0 ? 5 : 1;
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await startEndpoint(host, port === 0 ? await freeUdpPort(host) : port, onRequest, log);
    } catch (err) {
      last = err;
      if (!(err instanceof SipListenError && err.code === 'EADDRINUSE')) break;
    }
  }
  throw last;
}

async function startEndpoint(
  host: string,
  port: number,
  onRequest: (rq: sip.Message, remote: sip.Remote) => void,
  log: SipLog,
): Promise<SipEndpoint> {
  // Requests waiting to reach the socket, by identity: `sip` hands our own
  // message object to logger.send just before writing it.
  const onWire = new Map<sip.Message, () => void>();
  const inFlight = new Set<Promise<void>>();
  const finishers = new Set<() => void>();
  // `sip` takes a 503 from the far end for "try the next address" and, with
  // none left, hands us a 503 of its own making (no reason, no To tag): the
  // far end's is kept here, by transaction, to be handed on instead.
  const remote503 = new Map<string, sip.Message>();
  let destroyed = false;

  const options: sip.Options = {
    address: host,
    port,
    // `sip` remembers its host name once, here, and answers 404 itself to any
    // request whose next hop has that host (it expects a flow token there),
    // port not considered: on loopback every call would fail. It reads the
    // Via host from these options at each send, so it gets a name that
    // matches no host now, removed right after create() so Via says `host`.
    publicAddress: 'tolk-gateway.invalid',
    logger: {
      send: (m) => {
        const done = onWire.get(m);
        if (done) done();
      },
      recv: (m) => {
        if (m.status !== 503) return;
        // Retransmissions land here too, after the transaction used them: keep the map small.
        if (remote503.size >= 256) remote503.delete(remote503.keys().next().value!);
        remote503.set(transactionKey(m), m);
      },
      error: (e) => log.warn({ err: String(e) }, 'sip: stack error'),
    },
  };

  const { stack, listening } = createCapturingSockets(options, (rq, remote) => {
    if (destroyed) return;
    try {
      onRequest(rq, remote);
    } catch (err) {
      // `sip` would answer 500 and log; say it here.
      log.error({ err: String(err), method: rq.method }, 'sip: request handler failed');
      throw err;
    }
  }, log);
  delete options.publicAddress;

  try {
    await listening;
  } catch (err) {
    try {
      stack.destroy();
    } catch {
      // The socket that failed to bind may refuse to close: nothing to free.
    }
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EADDRINUSE' ? 'the address is already in use' : (err as Error).message;
    throw new SipListenError(`SIP stack cannot listen on ${host}:${port} (UDP and TCP): ${why}`, code, err);
  }

  return {
    host,
    port,
    address: `${host}:${port}`,
    request(m, onResponse) {
      if (destroyed) return Promise.resolve();
      let finish!: () => void;
      const p = new Promise<void>((resolve) => {
        const timer = setTimeout(() => finish(), WIRE_TIMEOUT_MS);
        finish = () => {
          clearTimeout(timer);
          onWire.delete(m);
          finishers.delete(finish);
          inFlight.delete(p);
          resolve();
        };
      });
      onWire.set(m, finish);
      finishers.add(finish);
      inFlight.add(p);
      try {
        stack.send(m, (rs) => {
          finish(); // a local answer (no address, 503) also ends the wait
          if (destroyed || !onResponse) return;
          if (rs.status === 503) {
            const key = transactionKey(m);
            rs = remote503.get(key) ?? rs;
            remote503.delete(key);
          }
          try {
            onResponse(rs);
          } catch (err) {
            log.error({ err: String(err), method: m.method }, 'sip: response handler failed');
          }
        });
      } catch (err) {
        log.error({ err: String(err), method: m.method }, 'sip: send failed');
        finish();
      }
      return p;
    },
    respond(rs) {
      if (destroyed) return;
      // `sip` writes a name-addr without display name as `To:  <uri>`: written here instead.
      for (const h of ['to', 'from'] as const) {
        const v = rs.headers[h];
        if (v && typeof v === 'object') rs.headers[h] = formatAor(v);
      }
      try {
        stack.send(rs);
      } catch (err) {
        log.error({ err: String(err), status: rs.status }, 'sip: sending a response failed');
      }
    },
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      remote503.clear();
      for (const finish of [...finishers]) finish();
      try {
        stack.destroy();
      } catch (err) {
        log.warn({ err: String(err) }, 'sip: destroy failed');
      }
    },
  };
}

/** Identifies a client transaction as `sip` does: CSeq method, Call-ID, top Via branch. */
function transactionKey(m: sip.Message): string {
  const cseq = m.headers.cseq;
  const method = typeof cseq === 'object' ? cseq.method : String(cseq ?? '').split(/\s+/)[1];
  return [method, m.headers['call-id'], m.headers.via?.[0]?.params.branch].join();
}

/** A To/From/Contact value as text: `"name" <uri>;params`. */
export function formatAor(a: sip.Aor): string {
  const params = Object.entries(a.params ?? {}).map(([k, v]) => (v === null ? `;${k}` : `;${k}=${v}`)).join('');
  return `${a.name ? `${a.name} ` : ''}<${sip.stringifyUri(a.uri)}>${params}`;
}

/**
 * sip.create(), catching the UDP socket and TCP server it creates
 * (synchronously, inside create) as node:dgram and node:net hand them out, to
 * listen for their errors: `sip` adds no 'error' listener, so a bind error
 * would be an uncaught exception. `listening` settles once both are bound.
 */
function createCapturingSockets(
  options: sip.Options,
  onRequest: (rq: sip.Message, remote: sip.Remote) => void,
  log: SipLog,
): { stack: sip.Stack; listening: Promise<void> } {
  type Factory = (...args: unknown[]) => EventEmitter;
  const dgramModule = dgram as unknown as { createSocket: Factory };
  const netModule = net as unknown as { createServer: Factory };
  const createSocket = dgramModule.createSocket;
  const createServer = netModule.createServer;
  const ready: Promise<void>[] = [];
  const watch = (what: string, e: EventEmitter) => {
    let bound = false;
    ready.push(new Promise<void>((resolve, reject) => {
      e.once('listening', () => {
        bound = true;
        resolve();
      });
      // Permanent: after the bind, an error (a failed send) is logged, never thrown.
      e.on('error', (err: Error) => {
        if (!bound) reject(err);
        else log.error({ err: String(err), transport: what }, 'sip: socket error');
      });
    }));
    return e;
  };
  dgramModule.createSocket = (...args) => watch('udp', createSocket.apply(dgram, args));
  netModule.createServer = (...args) => watch('tcp', createServer.apply(net, args));
  let stack: sip.Stack;
  try {
    stack = sip.create(options, onRequest);
  } finally {
    dgramModule.createSocket = createSocket;
    netModule.createServer = createServer;
  }
  return { stack, listening: Promise.all(ready).then(() => undefined) };
}

// --- Small SIP helpers ---------------------------------------------------------

export function randomToken(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

/** The tag of a To or From header, parsed by `sip` or not. */
export function tagOf(h: unknown): string | undefined {
  if (h && typeof h === 'object' && 'params' in h) {
    const tag = (h as sip.Aor).params.tag;
    return tag ?? undefined;
  }
  if (typeof h === 'string') return /;\s*tag=([^;,\s]+)/i.exec(h)?.[1];
  return undefined;
}

/** A header value `sip` parsed into a plain string (generic headers), lower-cased name. */
export function headerText(m: sip.Message, name: string): string | undefined {
  const v = m.headers[name.toLowerCase()];
  return typeof v === 'string' ? v : undefined;
}

/**
 * An ASCII SDP body (`sip` counts Content-Length in characters, which is
 * bytes only for ASCII): the offer has PCMU, PCMA and telephone-event; an
 * answer picks PCMU and telephone-event.
 */
export function audioSdp(host: string, mediaPort: number, sessionId: string, kind: 'offer' | 'answer' = 'offer'): string {
  const offer = kind === 'offer';
  return [
    'v=0',
    `o=tolk ${sessionId} ${sessionId} IN IP4 ${host}`,
    's=tolk',
    `c=IN IP4 ${host}`,
    't=0 0',
    `m=audio ${mediaPort} RTP/AVP ${offer ? '0 8 101' : '0 101'}`,
    'a=rtpmap:0 PCMU/8000',
    ...(offer ? ['a=rtpmap:8 PCMA/8000'] : []),
    'a=rtpmap:101 telephone-event/8000',
    'a=fmtp:101 0-16',
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

/** Media port put in our SDP: no RTP flows yet, so the discard port stands in. */
const PLACEHOLDER_MEDIA_PORT = 9;

const RESERVED_HEADERS = new Set(['via', 'from', 'to', 'call-id', 'cseq', 'contact', 'max-forwards', 'content-type', 'content-length', 'route', 'record-route']);

// --- The dialogs ------------------------------------------------------------------

/** The callee side of an answered dialog (one per 2xx To tag). */
type Peer = {
  tag: string;
  /** Where in-dialog requests go: the 2xx's Contact. */
  target: string;
  /** The route set (the 2xx's Record-Route, reversed), as a Route header value. */
  route: string | undefined;
  /** The branch of our ACK: a retransmitted 2xx gets the very same ACK. */
  ackBranch: string;
  byeSent: boolean;
  byeDone: boolean;
};

/** Why we want a not-yet-answered INVITE to end. */
type CancelReason = 'hangup' | 'ring_timeout' | 'abandon';

type Dialog = {
  key: string;
  callId: string;
  localTag: string;
  /** Our From (with our tag) and the INVITE's To (no tag), as sent. */
  from: string;
  to: string;
  contact: string;
  /** The INVITE as handed to `sip`, which fills in its Via (the CANCEL copies it). */
  invite: sip.Message;
  /** The last CSeq number we used (1 is the INVITE). */
  cseq: number;
  /** Any response came (a 100 Trying included). */
  responded: boolean;
  /** A 1xx came: from then on a CANCEL may be sent (RFC 3261 9.1). */
  provisional: boolean;
  /** `ringing` was reported. */
  ringing: boolean;
  /** The INVITE has its final answer. */
  final: boolean;
  /** A terminal event was reported, or we hung up: no longer in active(). */
  ended: boolean;
  cancel: CancelReason | undefined;
  cancelSent: boolean;
  /** The answered dialog. */
  peer: Peer | undefined;
  /** 2xx from other forks (other To tags): ACKed and hung up at once. */
  forks: Map<string, Peer>;
  timers: Map<'noResponse' | 'ring' | 'guard' | 'linger', NodeJS.Timeout>;
  /** This dialog's RTP stream (with a media plane): its port, offered in our SDP. */
  media: { port: number } | undefined;
  /** The stream is being (or was) connected to the answer's SDP. */
  connecting?: Promise<void>;
  connected: boolean;
};

function isTerminal(ev: DialogEvent): boolean {
  return ev.type !== 'ringing' && ev.type !== 'answered';
}

/**
 * Starts the embedded SIP stack on `opts.listen` and returns the signaling
 * over it. Rejects (SipListenError) when the address cannot be bound.
 */
export async function createSipSignaling(opts: SignalingOptions): Promise<SipSignaling> {
  const log = opts.log ?? SILENT;
  const noResponseMs = (opts.noResponseSeconds ?? 32) * 1000;
  const ringMs = opts.ringTimeoutSeconds * 1000;
  /** Dialogs by key: placed and not ended. */
  const active = new Map<string, Dialog>();
  /** Every dialog we still answer for (ended ones linger), by Call-ID. */
  const byCallId = new Map<string, Dialog>();
  let closing: Promise<void> | undefined;

  const endpoint = await openSipEndpoint(opts.listen, onRequest, log);
  const { host, address } = endpoint;

  function setTimer(d: Dialog, name: Parameters<Dialog['timers']['set']>[0], ms: number, fn: () => void): void {
    clearTimeout(d.timers.get(name));
    const t = setTimeout(() => {
      d.timers.delete(name);
      fn();
    }, ms);
    t.unref();
    d.timers.set(name, t);
  }

  function clearTimers(d: Dialog, ...names: Parameters<Dialog['timers']['get']>[0][]): void {
    for (const name of names) {
      clearTimeout(d.timers.get(name));
      d.timers.delete(name);
    }
  }

  /** Reports to the listener; a terminal event ends the dialog. Nothing is reported once it ended. */
  function report(d: Dialog, ev: DialogEvent): void {
    if (d.ended) return;
    if (isTerminal(ev)) end(d);
    log.info({ key: d.key, callId: d.callId, event: ev }, `sip: ${ev.type}`);
    try {
      opts.onEvent(d.key, ev);
    } catch (err) {
      log.error({ err: String(err), key: d.key, event: ev.type }, 'sip: onEvent threw');
    }
  }

  /** The dialog's RTP stream, if it has one, is closed (once). */
  function closeMedia(d: Dialog): void {
    if (!d.media || !opts.media) return;
    d.media = undefined;
    d.connected = false;
    opts.media.close(d.key).catch((err) => log.warn({ key: d.key, err: String(err) }, 'media: close failed'));
  }

  /** Takes the dialog out of active(); it lingers by Call-ID to finish its SIP (late 1xx/2xx, BYE). */
  function end(d: Dialog): void {
    if (d.ended) return;
    d.ended = true;
    closeMedia(d);
    if (active.get(d.key) === d) active.delete(d.key);
    clearTimers(d, 'noResponse', 'ring', 'guard');
    setTimer(d, 'linger', LINGER_MS, () => forget(d));
  }

  function forget(d: Dialog): void {
    closeMedia(d);
    for (const t of d.timers.values()) clearTimeout(t);
    d.timers.clear();
    if (byCallId.get(d.callId) === d) byCallId.delete(d.callId);
  }

  /** The event that ends a dialog we were CANCELing (or abandoning), given the final answer if any. */
  function cancelOutcome(d: Dialog, rs?: sip.Message): DialogEvent {
    if (d.cancel === 'ring_timeout') return { type: 'ring_timeout' };
    if (d.cancel === 'abandon') return { type: 'no_response' };
    if (rs && rs.status !== undefined && rs.status >= 300) return { type: 'rejected', status: rs.status, reason: rs.reason ?? '' };
    // No 487 came (or a 2xx crossed our CANCEL and was hung up): as if it had.
    return { type: 'rejected', status: 487, reason: 'Request Terminated' };
  }

  // --- Requests we send ---

  function sendCancel(d: Dialog): void {
    if (d.cancelSent || d.final) return;
    d.cancelSent = true;
    // A CANCEL is hop-by-hop: same Request-URI, top Via (branch), From, To,
    // Call-ID and CSeq number as the INVITE. `sip` keeps its branch as given.
    const via = d.invite.headers.via?.[0];
    const cancel: sip.Message = {
      method: 'CANCEL',
      uri: d.invite.uri,
      headers: {
        via: via ? [{ ...via, params: { ...via.params } }] : [],
        'max-forwards': MAX_FORWARDS,
        from: d.from,
        to: d.to,
        'call-id': d.callId,
        cseq: { seq: 1, method: 'CANCEL' },
      },
    };
    log.info({ key: d.key, callId: d.callId, why: d.cancel }, 'sip: CANCEL');
    void endpoint.request(cancel, (rs) => {
      if (rs.status !== undefined && rs.status >= 300) log.warn({ key: d.key, status: rs.status }, 'sip: CANCEL refused');
    });
    // `sip` keeps no timer once a 1xx came: if the 487 never comes, we stop waiting.
    if (!d.ended) setTimer(d, 'guard', CANCEL_GUARD_MS, () => report(d, cancelOutcome(d)));
  }

  function sendAck(d: Dialog, peer: Peer): void {
    // The ACK of a 2xx is a new transaction of its own (`sip` only ACKs
    // non-2xx): to the 2xx's Contact, with its route set and tags, CSeq of
    // the INVITE. Built afresh each time (`sip` rewrites Via and Route in
    // place), with the same branch, so a retransmitted 2xx gets the same ACK.
    const ack: sip.Message = {
      method: 'ACK',
      uri: peer.target,
      headers: {
        via: [{ params: { branch: peer.ackBranch } }],
        'max-forwards': MAX_FORWARDS,
        ...(peer.route ? { route: peer.route } : {}),
        from: d.from,
        to: `${d.to};tag=${peer.tag}`,
        'call-id': d.callId,
        cseq: { seq: 1, method: 'ACK' },
      },
    };
    void endpoint.request(ack);
  }

  function sendBye(d: Dialog, peer: Peer): Promise<void> {
    if (peer.byeSent) return Promise.resolve();
    peer.byeSent = true;
    d.cseq += 1;
    const bye: sip.Message = {
      method: 'BYE',
      uri: peer.target,
      headers: {
        via: [],
        'max-forwards': MAX_FORWARDS,
        ...(peer.route ? { route: peer.route } : {}),
        from: d.from,
        to: `${d.to};tag=${peer.tag}`,
        'call-id': d.callId,
        cseq: { seq: d.cseq, method: 'BYE' },
        contact: d.contact,
      },
    };
    log.info({ key: d.key, callId: d.callId }, 'sip: BYE');
    return endpoint.request(bye, (rs) => {
      if (rs.status === undefined || rs.status < 200) return;
      peer.byeDone = true;
      if (rs.status >= 300) log.warn({ key: d.key, status: rs.status }, 'sip: BYE answered with an error');
    });
  }

  // --- Answers to our INVITEs ---

  function peerFrom(rs: sip.Message, d: Dialog, tag: string): Peer {
    const contact = rs.headers.contact;
    const first = Array.isArray(contact) ? contact[0] : undefined;
    const recordRoute = rs.headers['record-route'] ?? [];
    const route = [...recordRoute].reverse().map((r) => `<${sip.stringifyUri(r.uri)}>`).join(', ');
    return {
      tag,
      target: first ? sip.stringifyUri(first.uri) : (sip.stringifyUri(d.invite.uri ?? '')),
      route: route || undefined,
      ackBranch: sip.generateBranch() + randomToken(4),
      byeSent: false,
      byeDone: false,
    };
  }

  function onInviteResponse(d: Dialog, rs: sip.Message): void {
    const status = rs.status ?? 0;
    // A response made up by `sip` itself (Timer B's 408, no address to send
    // to) has neither a To tag nor a reason phrase.
    const local = !tagOf(rs.headers.to) && !rs.reason;
    if (!local) {
      d.responded = true;
      clearTimers(d, 'noResponse');
    }
    if (status < 200) {
      if (d.final) return;
      d.provisional = true;
      // Asked to end before any 1xx: the CANCEL may go now.
      if (d.cancel) return sendCancel(d);
      if (status > 100 && !d.ringing) {
        d.ringing = true;
        report(d, { type: 'ringing', status });
      }
      return;
    }
    if (status < 300) return on2xx(d, rs, status);

    if (d.final) return;
    d.final = true;
    clearTimers(d, 'noResponse', 'ring', 'guard');
    // `sip`'s INVITE transaction ACKs the non-2xx itself.
    if (local) report(d, d.cancel ? cancelOutcome(d) : { type: 'no_response' });
    else report(d, d.cancel ? cancelOutcome(d, rs) : { type: 'rejected', status, reason: rs.reason ?? '' });
  }

  function on2xx(d: Dialog, rs: sip.Message, status: number): void {
    const tag = tagOf(rs.headers.to) ?? '';
    const known = d.peer?.tag === tag ? d.peer : d.forks.get(tag);
    if (known) {
      // A retransmission: our ACK was lost, or crossed it. Same ACK again.
      sendAck(d, known);
      return;
    }
    const peer = peerFrom(rs, d, tag);
    if (d.peer) {
      // Another fork answered too: one call only, so that one is hung up.
      d.forks.set(tag, peer);
      sendAck(d, peer);
      void sendBye(d, peer);
      return;
    }
    d.peer = peer;
    d.final = true;
    clearTimers(d, 'noResponse', 'ring', 'guard');
    sendAck(d, peer);
    if (d.ended || d.cancel) {
      // The answer crossed our CANCEL (or came after we gave up): RFC 3261
      // wants it ACKed, then hung up.
      void sendBye(d, peer);
      report(d, cancelOutcome(d));
      return;
    }
    const voicemail = saysVoicemail(headerText(rs, 'x-tolk-answered-by'));
    connectMedia(d, rs);
    report(d, { type: 'answered', status, voicemail });
  }

  /** The answer's SDP decides where and how our stream sends; without a usable one the call stays silent. */
  function connectMedia(d: Dialog, rs: sip.Message): void {
    if (!d.media || !opts.media) return;
    try {
      const remote = negotiate(typeof rs.content === 'string' ? rs.content : '');
      d.connecting = opts.media.connect(d.key, remote).then(() => { d.connected = true; });
      d.connecting.catch((err) => log.warn({ key: d.key, err: String(err) }, 'media: connect failed'));
    } catch (err) {
      log.warn({ key: d.key, err: String(err) }, 'media: no usable SDP in the answer; the call has no audio');
    }
  }

  async function play(key: string, utterance: string, pcm: Int16Array): Promise<{ queuedMs: number }> {
    const d = active.get(key);
    if (!d || !d.media || !opts.media || !d.connecting) throw new Error(`play: dialog ${key} has no media`);
    await d.connecting;
    return opts.media.play(key, utterance, pcm);
  }

  // --- Requests we receive ---

  function onRequest(rq: sip.Message, remote: sip.Remote): void {
    const method = rq.method ?? '';
    if (method === 'ACK') return; // Never answered; we send no 2xx to be ACKed.
    const d = byCallId.get(rq.headers['call-id'] ?? '');
    const toTag = tagOf(rq.headers.to);
    const fromTag = tagOf(rq.headers.from);
    // In-dialog for us: our tag in To, the callee's in From.
    const peer = d && toTag === d.localTag ? (d.peer?.tag === fromTag ? d.peer : d.forks.get(fromTag ?? '')) : undefined;

    if (method === 'BYE') {
      if (!d || !peer) {
        endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
        return;
      }
      endpoint.respond(sip.makeResponse(rq, 200, 'OK'));
      if (peer.byeSent) return; // Both sides hung up at once.
      peer.byeSent = true;
      peer.byeDone = true;
      if (peer === d.peer) report(d, { type: 'remote_hangup' });
      return;
    }
    if (method === 'OPTIONS') {
      endpoint.respond(withToTag(rq, sip.makeResponse(rq, 200, 'OK', { headers: { allow: 'INVITE, ACK, CANCEL, BYE, OPTIONS', accept: 'application/sdp' } })));
      return;
    }
    if (toTag && !peer) {
      // In-dialog request for a dialog we do not have (or a CANCEL of an INVITE we never got).
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    if (method === 'CANCEL') {
      endpoint.respond(sip.makeResponse(rq, 481, 'Call/Transaction Does Not Exist'));
      return;
    }
    log.warn({ method, from: `${remote.address}:${remote.port}` }, 'sip: request not supported');
    endpoint.respond(withToTag(rq, sip.makeResponse(rq, 405, 'Method Not Allowed', { headers: { allow: 'ACK, CANCEL, BYE, OPTIONS' } })));
  }

  /** A final response outside a dialog carries a To tag of ours (RFC 3261 8.2.6.2). */
  function withToTag(rq: sip.Message, rs: sip.Message): sip.Message {
    const to = rq.headers.to;
    if (to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag: randomToken(4) } };
    return rs;
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
    if (active.has(req.key)) throw new Error(`place: a dialog with key ${req.key} is already active`);
    checkRequest(req);
    const user = req.from ? `${req.from}@` : '';
    const localTag = randomToken(6);
    const callId = `${randomToken(12)}@${host}`;
    // With a media plane, the offer names this call's own RTP port.
    const media = opts.media ? await opts.media.open(req.key, { hear: true }) : undefined;
    const d: Dialog = {
      key: req.key,
      callId,
      localTag,
      from: `<sip:${user}${address}>;tag=${localTag}`,
      to: `<${req.target}>`,
      contact: `<sip:${user}${address}>`,
      invite: {
        method: 'INVITE',
        uri: req.target,
        headers: {
          via: [], // `sip` adds ours, with the bound address and a branch
          'max-forwards': MAX_FORWARDS,
          from: '',
          to: '',
          'call-id': callId,
          cseq: { seq: 1, method: 'INVITE' },
          contact: '',
          ...req.headers,
          'content-type': 'application/sdp',
        },
        content: media ? sdpOffer({ host, port: media.port, sessionId: String(Date.now()) }) : audioSdp(host, PLACEHOLDER_MEDIA_PORT, String(Date.now())),
      },
      media,
      connected: false,
      cseq: 1,
      responded: false,
      provisional: false,
      ringing: false,
      final: false,
      ended: false,
      cancel: undefined,
      cancelSent: false,
      peer: undefined,
      forks: new Map(),
      timers: new Map(),
    };
    d.invite.headers.from = d.from;
    d.invite.headers.to = d.to;
    d.invite.headers.contact = d.contact;
    active.set(d.key, d);
    byCallId.set(callId, d);

    // `sip` retransmits the INVITE and gives up after its own 32 s; both
    // these timers are ours and run from the sending of the INVITE.
    setTimer(d, 'noResponse', noResponseMs, () => {
      if (d.responded || d.ended) return;
      report(d, { type: 'no_response' });
      d.cancel = 'abandon'; // should it answer after all: CANCEL (1xx) or ACK and BYE (2xx)
    });
    setTimer(d, 'ring', ringMs, () => {
      if (d.final || d.ended || d.cancel) return;
      if (d.provisional) {
        d.cancel = 'ring_timeout';
        sendCancel(d);
      } else {
        // Not even a 1xx in all the time we would let it ring: nothing answered.
        d.cancel = 'abandon';
        report(d, { type: 'no_response' });
      }
    });
    log.info({ key: d.key, callId, target: req.target }, 'sip: INVITE');
    await endpoint.request(d.invite, (rs) => onInviteResponse(d, rs));
  }

  async function hangup(key: string): Promise<void> {
    const d = active.get(key);
    if (!d) return;
    if (d.peer) {
      end(d); // our own BYE is not reported: the caller knows
      await sendBye(d, d.peer);
      return;
    }
    if (d.cancel) return; // already being CANCELed
    d.cancel = 'hangup';
    if (d.provisional) {
      sendCancel(d);
    } else {
      // No 1xx yet, so no CANCEL yet (RFC 3261 9.1): it goes when the 1xx
      // comes; if nothing comes, we stop waiting after the same guard.
      setTimer(d, 'guard', CANCEL_GUARD_MS, () => report(d, cancelOutcome(d)));
    }
  }

  /** Nothing left to hear for this dialog: its INVITE is done (or never got an answer) and its BYEs answered. */
  function settled(d: Dialog): boolean {
    if (d.responded && !d.final) return false;
    return [d.peer, ...d.forks.values()].every((p) => !p || !p.byeSent || p.byeDone);
  }

  async function close(): Promise<void> {
    closing ??= (async () => {
      for (const d of byCallId.values()) {
        d.cancel ??= 'abandon';
        end(d); // nothing is reported for what close() ends
        if (d.peer) void sendBye(d, d.peer);
        else if (d.provisional) sendCancel(d);
        // Without any answer the INVITE is simply abandoned: a late 1xx or 2xx finds the stack closed.
      }
      const deadline = Date.now() + CLOSE_WAIT_MS;
      while (Date.now() < deadline && ![...byCallId.values()].every(settled)) {
        await new Promise((r) => setTimeout(r, 10));
      }
      await endpoint.settle();
      for (const d of byCallId.values()) forget(d);
      byCallId.clear();
      active.clear();
      endpoint.destroy();
      log.info({ address }, 'sip: stack closed');
    })();
    return closing;
  }

  log.info({ address }, 'sip: stack listening');
  return {
    address,
    place,
    hangup,
    active: () => [...active.keys()],
    hasMedia: (key: string) => {
      const d = active.get(key);
      return Boolean(d && d.media && opts.media && d.connecting);
    },
    close,
    play,
  };
}
