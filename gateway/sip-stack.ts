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
//     waits until what it handed to `sip` is on the wire before destroying it;
//   - its branches are `z9hG4bK` + Math.random()*1e6 (about 20 bits, and
//     guessable): each is swapped for 96 random bits on the wire, and back in
//     the responses, so its transactions still match (strengthenBranch);
//   - it drops a request missing Call-ID, CSeq, From, To or Via without a
//     word: one with a Via is answered 400 here (UDP; dropped over TCP);
//   - it retransmits a final answer to an INVITE until its ACK (Timer G),
//     over TCP too and to any source: here nothing is written twice over
//     TCP, and an answer sent `once` (to a source we do not know) goes again
//     only when its request comes again. Its writes are gated where it makes
//     them: the UDP socket, the TCP connections it accepts, and those it
//     opens to an IP address (not those it opens after a DNS look-up: a TCP
//     trunk named by host name);
//   - its UDP socket is not connected, so it never hears an ICMP port or
//     host unreachable: an INVITE still unanswered at its first
//     retransmission has its destination probed (see probe).

import dgram from 'node:dgram';
import net from 'node:net';
import type { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import sip from 'sip';
import { saysVoicemail, type DialogEvent, type PlaceRequest, type SignalingOptions, type SipSignaling } from './signaling.ts';
import { answer as sdpAnswer, negotiate, offer as sdpOffer, PAYLOAD_TYPE, type Negotiated } from './media/sdp.ts';

/** The service's logger as SignalingOptions gives it; `debug` is used when it has one (pino does). */
export type SipLog = NonNullable<SignalingOptions['log']> & { debug?: (o: object, m: string) => void };

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
/** RFC 3261's T1, T2 and 64*T1: our own retransmissions (a 2xx to a re-INVITE) follow them. */
const T1_MS = 500;
const T2_MS = 4_000;
const TRANSACTION_MS = 64 * T1_MS;
/** How long after sending it an unanswered INVITE's destination is probed for an ICMP unreachable. */
const PROBE_MS = 2_000;
/** Socket errors that say nobody listens there (ICMP port or host unreachable). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
/** The methods of the SIP registry: anything else is answered 501 (RFC 3261 21.5.2), these 405 where we do not take them. */
const KNOWN_METHODS = new Set(['INVITE', 'ACK', 'BYE', 'CANCEL', 'OPTIONS', 'REGISTER', 'PRACK', 'SUBSCRIBE', 'NOTIFY', 'PUBLISH', 'INFO', 'REFER', 'MESSAGE', 'UPDATE']);
/** What `sip` makes of a branch: `z9hG4bK` and up to seven digits. Ours are 24 hex digits. */
const WEAK_BRANCH = /^z9hG4bK\d{1,7}$/;

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
   * the wire, or `sip` gave up on it. Never throws. `onUnreachable`: should
   * the request go unanswered over UDP until its first retransmission, its
   * destination is probed, and a port or host unreachable is reported here.
   */
  request(m: sip.Message, onResponse?: (rs: sip.Message) => void, o?: { onUnreachable?: (code: string) => void }): Promise<void>;
  /**
   * Sends a response through the request's server transaction. Never throws.
   * `once`: a final answer to a source we do not know; `sip` retransmits it
   * only when the request comes again, never on its own (Timer G: no
   * reflection of one spoofed INVITE into seven answers).
   */
  respond(rs: sip.Message, o?: { once?: boolean }): void;
  /** Stops putting `m` (a request handed to request()) on the wire: its retransmissions are dropped. */
  mute(m: sip.Message): void;
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
  // `sip`'s branch of each request we sent, by the transaction key the wire shows (our branch).
  const weakBranches = new RecentMap<string, string>(2 * TRANSACTION_MS);
  // Responses already written once; those sent `once`, by transaction key; and
  // those a retransmitted request may have again.
  const sentResponses = new WeakSet<sip.Message>();
  const onceOnly = new WeakSet<sip.Message>();
  const onceByKey = new RecentMap<string, sip.Message>(TRANSACTION_MS + 5_000);
  const resendAllowed = new WeakSet<sip.Message>();
  const muted = new WeakSet<sip.Message>();
  // Requests whose destination is probed once they go unanswered (request()'s onUnreachable).
  const unanswered = new Map<sip.Message, { sends: number; onUnreachable: (code: string) => void }>();
  const probeSockets = new Set<dgram.Socket>();
  // Set by logger.send just before `sip` writes that message; read by the socket it writes on.
  const gate = { drop: false };
  let rawUdpSend: ((buf: Buffer, port: number, address: string) => void) | undefined;

  /** Swaps a branch `sip` made for 96 random bits, remembered to map the responses back. */
  function strengthenBranch(m: sip.Message): void {
    const via = m.headers.via?.[0];
    const branch = via?.params.branch;
    if (!via || !branch || !WEAK_BRANCH.test(branch)) return;
    const strong = `z9hG4bK${randomToken(12)}`;
    via.params.branch = strong;
    weakBranches.set(transactionKey(m), branch);
  }

  /** Whether `sip` writing this response again is to be dropped (see the header). */
  function dropResponse(rs: sip.Message, target: sip.Remote): boolean {
    const again = sentResponses.has(rs);
    sentResponses.add(rs);
    if (!again) return false;
    if (target.protocol.toUpperCase() !== 'UDP') return true;
    return onceOnly.has(rs) && !resendAllowed.delete(rs);
  }

  /** The second transmission of a request over UDP means no answer in T1: its destination is probed. */
  function watchUnanswered(m: sip.Message, target: sip.Remote): void {
    const w = unanswered.get(m);
    if (!w) return;
    // TCP says a refused connection itself (`sip` answers a 503 of its own at once).
    if (target.protocol.toUpperCase() !== 'UDP') return void unanswered.delete(m);
    if (++w.sends < 2) return;
    unanswered.delete(m);
    probe(target.address, target.port, w.onUnreachable);
  }

  /**
   * An unconnected UDP socket (the stack's) never hears of an ICMP
   * unreachable; a connected one does, as ECONNREFUSED or EHOSTUNREACH. So an
   * empty datagram goes to the same address from a socket of its own: SIP
   * stacks ignore it (`sip`, Kamailio, Asterisk, SIPp), and a closed port or
   * unreachable host answers it with ICMP.
   */
  function probe(address: string, port: number, onUnreachable: (code: string) => void): void {
    if (destroyed) return;
    const s = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
    probeSockets.add(s);
    const close = () => {
      clearTimeout(timer);
      if (!probeSockets.delete(s)) return;
      try {
        s.close();
      } catch {
        // Already closed.
      }
    };
    const timer = setTimeout(close, PROBE_MS);
    timer.unref();
    s.unref();
    s.on('error', (err: NodeJS.ErrnoException) => {
      const open = probeSockets.has(s);
      close();
      if (open && !destroyed && err.code && UNREACHABLE.has(err.code)) onUnreachable(err.code);
    });
    s.connect(port, address, (err?: Error) => {
      if (err) return close();
      s.send(Buffer.alloc(0), () => {});
    });
  }

  /**
   * `sip` drops, without a word, a request missing Call-ID, CSeq, From, To or
   * Via: here, one that has a Via to answer to is answered 400 (to where it
   * came from). Cheap for the others: only a request whose head lacks one of
   * them is parsed again.
   */
  function checkDatagram(data: Buffer, rinfo: dgram.RemoteInfo): void {
    if (destroyed || !rawUdpSend) return;
    const text = data.toString('binary');
    const end = text.indexOf('\r\n\r\n');
    const head = end < 0 ? text : text.slice(0, end);
    if (!REQUEST_LINE.test(head)) return;
    const missing = REQUIRED_HEADERS.filter(([, re]) => !re.test(head)).map(([name]) => name);
    if (missing.length === 0) return;
    const rq = sip.parse(data);
    const via = rq?.headers.via;
    if (!rq || !rq.method || rq.method === 'ACK' || !Array.isArray(via) || !via[0]?.host) {
      log.debug?.({ from: `${rinfo.address}:${rinfo.port}`, missing }, 'sip: malformed request dropped');
      return;
    }
    const rs = withToTag(rq, sip.makeResponse(rq, 400, `Missing ${missing.join(', ')}`));
    rs.version = '2.0';
    formatAors(rs);
    log.debug?.({ from: `${rinfo.address}:${rinfo.port}`, method: rq.method, missing }, 'sip: malformed request answered 400');
    rawUdpSend(Buffer.from(sip.stringify(rs), 'binary'), rinfo.port, rinfo.address);
  }

  /** Answers itself what no UA takes (505, 400, 501); true when it did. `sip` made a server transaction for it. */
  function refuseMalformed(rq: sip.Message): boolean {
    const cseq = rq.headers.cseq;
    const reply = (status: number, reason: string) => {
      stackRespond(withToTag(rq, sip.makeResponse(rq, status, reason)), { once: true });
      log.debug?.({ method: rq.method, status }, `sip: request refused: ${reason}`);
      return true;
    };
    if (rq.method === 'ACK') return rq.version !== '2.0'; // never answered
    if (rq.version !== '2.0') return reply(505, 'Version Not Supported');
    if (typeof cseq !== 'object' || cseq.method !== rq.method) return reply(400, 'CSeq Method Does Not Match');
    if (!KNOWN_METHODS.has(rq.method ?? '')) return reply(501, 'Not Implemented');
    return false;
  }

  function stackRespond(rs: sip.Message, o?: { once?: boolean }): void {
    if (destroyed) return;
    rs.version = '2.0';
    formatAors(rs);
    if (o?.once && (rs.status ?? 0) >= 200) {
      onceOnly.add(rs);
      onceByKey.set(transactionKey(rs), rs);
    }
    try {
      stack.send(rs);
    } catch (err) {
      log.error({ err: String(err), status: rs.status }, 'sip: sending a response failed');
    }
  }

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
      send: (m, target) => {
        if (m.method === undefined) {
          gate.drop = dropResponse(m, target);
          return;
        }
        strengthenBranch(m);
        gate.drop = muted.has(m);
        watchUnanswered(m, target);
        const done = onWire.get(m);
        if (done) done();
      },
      recv: (m, remote) => {
        if (m.method !== undefined) {
          if (m.method === 'ACK') return;
          const rs = onceByKey.get(transactionKey(m));
          if (!rs) return;
          // Its transaction answers it again (over UDP; over TCP nothing is sent twice).
          resendAllowed.add(rs);
          log.debug?.({ method: m.method, callId: m.headers['call-id'], transport: remote.protocol }, 'sip: a retransmitted request from outside our dialogs');
          return;
        }
        if (m.status === 503) {
          // Retransmissions land here too, after the transaction used them: keep the map small.
          if (remote503.size >= 256) remote503.delete(remote503.keys().next().value!);
          remote503.set(transactionKey(m), m);
        }
        // Our branch back to `sip`'s, for its transaction to find.
        const via = m.headers.via?.[0];
        const weak = via && weakBranches.get(transactionKey(m));
        if (via && weak) via.params.branch = weak;
      },
      error: (e) => log.warn({ err: String(e) }, 'sip: stack error'),
    },
  };

  const { stack, listening } = createCapturingSockets(options, (rq, remote) => {
    if (destroyed || refuseMalformed(rq)) return;
    try {
      onRequest(rq, remote);
    } catch (err) {
      // `sip` would answer 500 and log; say it here.
      log.error({ err: String(err), method: rq.method }, 'sip: request handler failed');
      throw err;
    }
  }, log, {
    udp(socket) {
      // `sip` writes every message through send(); logger.send said just before whether to drop this one.
      const send = socket.send.bind(socket) as (...args: unknown[]) => void;
      rawUdpSend = (buf, port, address) => send(buf, 0, buf.length, port, address);
      (socket as unknown as { send: (...args: unknown[]) => void }).send = (...args) => {
        if (gate.drop) gate.drop = false;
        else send(...args);
      };
      socket.on('message', checkDatagram);
    },
    tcp(server) {
      server.on('connection', guardStream);
    },
  });

  /** A TCP connection of `sip`'s: it writes every message through write(); logger.send said just before whether to drop this one. */
  function guardStream(stream: net.Socket): net.Socket {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    (stream as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
      if (!gate.drop) return write(...args);
      gate.drop = false;
      return true;
    };
    return stream;
  }

  /**
   * `sip` opens its TCP connections in send(), synchronously when the target
   * is an IP address: caught there as node:net hands them out, to be guarded
   * too. (One it opens after a DNS look-up is not: see the header.)
   */
  function sendCatchingConnections(send: () => void): void {
    const netModule = net as unknown as { connect: (...args: unknown[]) => net.Socket };
    const connect = netModule.connect;
    netModule.connect = (...args) => guardStream(connect.apply(net, args));
    try {
      send();
    } finally {
      netModule.connect = connect;
    }
  }
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
    request(m, onResponse, o) {
      if (destroyed) return Promise.resolve();
      if (o?.onUnreachable) unanswered.set(m, { sends: 0, onUnreachable: o.onUnreachable });
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
        sendCatchingConnections(() => stack.send(m, (rs) => {
          finish(); // a local answer (no address, 503) also ends the wait
          unanswered.delete(m);
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
        }));
      } catch (err) {
        log.error({ err: String(err), method: m.method }, 'sip: send failed');
        finish();
      }
      return p;
    },
    respond: stackRespond,
    mute(m) {
      muted.add(m);
      unanswered.delete(m);
    },
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      remote503.clear();
      unanswered.clear();
      for (const p of probeSockets) {
        try {
          p.close();
        } catch {
          // Already closed.
        }
      }
      probeSockets.clear();
      for (const finish of [...finishers]) finish();
      try {
        stack.destroy();
      } catch (err) {
        log.warn({ err: String(err) }, 'sip: destroy failed');
      }
    },
  };
}

/** Identifies a transaction as `sip` does: CSeq method, Call-ID, top Via branch. */
function transactionKey(m: sip.Message): string {
  const cseq = m.headers.cseq;
  const method = typeof cseq === 'object' ? cseq.method : String(cseq ?? '').split(/\s+/)[1];
  return [method, m.headers['call-id'], m.headers.via?.[0]?.params.branch].join();
}

/** A request's start line, as `sip` reads one. */
const REQUEST_LINE = /^\s*[\w\-.!%*_+`'~]+\s\S+\sSIP\s*\/\s*\d+\.\d+/;
/** The headers `sip` will not do without (RFC 3261 8.1.1), long or compact form, in a message's head. */
const REQUIRED_HEADERS: [string, RegExp][] = [
  ['Via', /\r\n(?:via|v)[ \t]*:/i],
  ['Call-ID', /\r\n(?:call-id|i)[ \t]*:/i],
  ['CSeq', /\r\ncseq[ \t]*:/i],
  ['From', /\r\n(?:from|f)[ \t]*:/i],
  ['To', /\r\n(?:to|t)[ \t]*:/i],
];

/** A Map whose entries are forgotten `ttlMs` after they were set, and which never holds more than `max`. */
class RecentMap<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();
  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs: number, max = 100_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }
  get(k: K): V | undefined {
    const e = this.entries.get(k);
    return e && Date.now() - e.at < this.ttlMs ? e.value : undefined;
  }
  set(k: K, value: V): void {
    this.entries.delete(k);
    this.entries.set(k, { value, at: Date.now() });
    // Oldest first: drop from the front what is too old, or too many.
    const now = Date.now();
    for (const [key, e] of this.entries) {
      if (now - e.at < this.ttlMs && this.entries.size <= this.max) break;
      this.entries.delete(key);
    }
  }
}

/** A final response outside a dialog carries a To tag of ours (RFC 3261 8.2.6.2). */
function withToTag(rq: sip.Message, rs: sip.Message): sip.Message {
  const to = rq.headers.to;
  if (to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag: randomToken(8) } };
  return rs;
}

/** `sip` writes a name-addr without display name as `To:  <uri>`: written here instead. */
function formatAors(rs: sip.Message): void {
  for (const h of ['to', 'from'] as const) {
    const v = rs.headers[h];
    if (v && typeof v === 'object') rs.headers[h] = formatAor(v);
  }
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
  hooks: { udp(socket: dgram.Socket): void; tcp(server: net.Server): void },
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
  dgramModule.createSocket = (...args) => {
    const socket = watch('udp', createSocket.apply(dgram, args));
    hooks.udp(socket as dgram.Socket);
    return socket;
  };
  netModule.createServer = (...args) => {
    const server = watch('tcp', createServer.apply(net, args));
    hooks.tcp(server as net.Server);
    return server;
  };
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

/** The methods we take, as OPTIONS and 405 say. */
const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE';
/** The shortest session interval we accept (RFC 4028 Min-SE). */
const MIN_SE = 90;
/** Our direction in an answer, given the peer's in its offer (RFC 3264 6.1). */
const MIRROR: Record<Negotiated['direction'], Negotiated['direction']> = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' };

/** The option tags of a Supported or Require header, lower-cased. */
function optionTags(m: sip.Message, name: 'supported' | 'require'): string[] {
  return (headerText(m, name) ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
}

/** The interval of `Session-Expires: 1800;refresher=uac` (or its compact form `x`); undefined when absent or unreadable. */
function sessionExpiresOf(m: sip.Message): { delta: number } | undefined {
  const text = headerText(m, 'session-expires') ?? headerText(m, 'x');
  const r = text === undefined ? null : /^\s*(\d{1,10})\s*(?:;.*)?$/.exec(text);
  return r ? { delta: Number(r[1]) } : undefined;
}

/** The number a SIP user part dials, without visual separators or a leading `+`, to compare two targets. */
function numberOf(user: string | undefined): string {
  return (user ?? '').split(';')[0]!.replace(/[-.()\s]/g, '').replace(/^\+/, '');
}

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
  /** The CSeq number of the last request it sent in the dialog (RFC 3261 12.2.2). */
  remoteCseq: number | undefined;
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
  /** The INVITE as handed to `sip`, which fills in its Via (the CANCEL copies it); after a redirect, the one to the new target. */
  invite: sip.Message;
  /** The last CSeq number we used (1 is the first INVITE). */
  cseq: number;
  /** The number dialed (numberOf the first target's user part): a redirect is followed only to the same number. */
  dialed: string;
  /** A 3xx was followed already: the next one ends the call. */
  redirected: boolean;
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
  timers: Map<'noResponse' | 'ring' | 'guard' | 'linger' | 'retransmit2xx', NodeJS.Timeout>;
  /** This dialog's RTP stream (with a media plane): its port, offered in our SDP. */
  media: { port: number } | undefined;
  /** The stream is being (or was) connected to the answer's SDP. */
  connecting?: Promise<void>;
  connected: boolean;
  /** Our SDP's o= session id and the version of the last SDP we sent (each new one is the next). */
  sdpSession: string;
  sdpVersion: number;
  /** What the peer's SDP says now: where and how the stream sends (kept through a hold). */
  remote: Negotiated | undefined;
  /** The peer's direction is sendonly or inactive: we must not send. */
  held: boolean;
  /** Our 2xx to the peer's re-INVITE, until its ACK; `awaitingAnswer`: it carried our offer, the ACK brings the answer. */
  pending2xx: { seq: number; rs: sip.Message; awaitingAnswer: boolean } | undefined;
};

function isTerminal(ev: DialogEvent): boolean {
  return ev.type !== 'ringing' && ev.type !== 'answered';
}

/** The embedded stack's options: SignalingOptions, and the hook the trunks will fill. */
export type SipStackOptions = Omit<SignalingOptions, 'log'> & {
  log?: SipLog;
  /**
   * Whether a source is one of our trunks: its INVITEs are answered 480 (we
   * take no calls yet), anyone else's 403 (operator.md). Unset: nobody is.
   */
  fromTrunk?: (source: { address: string; port: number }) => boolean;
};

/**
 * Starts the embedded SIP stack on `opts.listen` and returns the signaling
 * over it. Rejects (SipListenError) when the address cannot be bound.
 */
export async function createSipSignaling(opts: SipStackOptions): Promise<SipSignaling> {
  const log: SipLog = opts.log ?? SILENT;
  const noResponseMs = (opts.noResponseSeconds ?? 32) * 1000;
  const ringMs = opts.ringTimeoutSeconds * 1000;
  /** Dialogs by key: placed and not ended. */
  const active = new Map<string, Dialog>();
  /** Every dialog we still answer for (ended ones linger), by Call-ID. */
  const byCallId = new Map<string, Dialog>();
  /** Sources of requests from outside our dialogs seen in the last minute: logged at info once, then at debug. */
  const strangers = new RecentMap<string, true>(60_000, 4_096);
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
    clearTimers(d, 'noResponse', 'ring', 'guard', 'retransmit2xx');
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
        cseq: { seq: inviteSeq(d), method: 'CANCEL' },
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
        cseq: { seq: inviteSeq(d), method: 'ACK' },
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
      ackBranch: `z9hG4bK${randomToken(12)}`,
      byeSent: false,
      byeDone: false,
      remoteCseq: undefined,
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
    // `sip`'s INVITE transaction ACKs the non-2xx itself.
    if ((status === 301 || status === 302) && !local && !d.cancel && !d.ended && followRedirect(d, rs)) return;
    d.final = true;
    clearTimers(d, 'noResponse', 'ring', 'guard');
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
      d.remote = remote;
      d.held = remote.direction === 'sendonly' || remote.direction === 'inactive';
      connectStream(d, remote);
    } catch (err) {
      log.warn({ key: d.key, err: String(err) }, 'media: no usable SDP in the answer; the call has no audio');
    }
  }

  /** (Re)connects the dialog's stream, after any connect still under way. */
  function connectStream(d: Dialog, remote: Negotiated): void {
    const media = opts.media;
    if (!d.media || !media) return;
    const before = d.connecting?.catch(() => {}) ?? Promise.resolve();
    const connecting = before.then(() => media.connect(d.key, remote)).then(() => { d.connected = true; });
    d.connecting = connecting;
    connecting.catch((err) => log.warn({ key: d.key, err: String(err) }, 'media: connect failed'));
  }

  async function play(key: string, utterance: string, pcm: Int16Array): Promise<{ queuedMs: number }> {
    const d = active.get(key);
    if (!d || !d.media || !opts.media || !d.connecting) throw new Error(`play: dialog ${key} has no media`);
    await d.connecting;
    return opts.media.play(key, utterance, pcm);
  }

  // --- The INVITE, its redirect, its unreachable destination ---

  function inviteSeq(d: Dialog): number {
    const cseq = d.invite.headers.cseq;
    return typeof cseq === 'object' ? cseq.seq : 1;
  }

  /** Hands the dialog's INVITE to `sip`; answers to an INVITE it has since replaced (a redirect) are not its. */
  function sendInvite(d: Dialog): Promise<void> {
    const invite = d.invite;
    return endpoint.request(invite, (rs) => {
      if (d.invite === invite) onInviteResponse(d, rs);
    }, {
      onUnreachable: (code) => {
        if (d.invite === invite) onUnreachable(d, code);
      },
    });
  }

  /** `sip` retransmits the INVITE and gives up after its own 32 s; this timer is ours and runs from the sending of the INVITE. */
  function armNoResponse(d: Dialog): void {
    setTimer(d, 'noResponse', noResponseMs, () => {
      if (d.responded || d.ended) return;
      report(d, { type: 'no_response' });
      d.cancel = 'abandon'; // should it answer after all: CANCEL (1xx) or ACK and BYE (2xx)
    });
  }

  /**
   * Nobody listens where the INVITE goes (ICMP port or host unreachable, seen
   * by the endpoint's probe): reported at once as `no_response`, the same as
   * no answer at all, since no SIP answer came (sip_code stays null).
   */
  function onUnreachable(d: Dialog, code: string): void {
    if (d.responded || d.final || d.ended) return;
    endpoint.mute(d.invite); // its retransmissions would only hit the same wall
    log.warn({ key: d.key, callId: d.callId, code, target: sip.stringifyUri(d.invite.uri ?? '') }, 'sip: the INVITE\'s destination is unreachable');
    const ev: DialogEvent = d.cancel ? cancelOutcome(d) : { type: 'no_response' };
    d.cancel ??= 'abandon';
    report(d, ev);
  }

  /**
   * A 301 or 302 is followed once, as a carrier's redirect: a new INVITE to
   * its first Contact, same call (Call-ID, tags, the next CSeq). Only to a
   * sip: URI that dials the same number, since the policy checks that let
   * this call out were made for that number; a second redirect, another
   * number or another scheme ends the call rejected with the 3xx.
   */
  function followRedirect(d: Dialog, rs: sip.Message): boolean {
    const contact = rs.headers.contact;
    const first = Array.isArray(contact) ? contact[0] : undefined;
    const uri = first ? sip.parseUri(first.uri) : undefined;
    const refused = d.redirected ? 'a second redirect'
      : !uri || uri.schema !== 'sip' ? 'not a sip: URI'
      : numberOf(uri.user) !== d.dialed ? 'another number'
      : undefined;
    const to = first ? sip.stringifyUri(first.uri) : null;
    if (refused) {
      log.info({ key: d.key, callId: d.callId, status: rs.status, contact: to, why: refused }, 'sip: redirect not followed');
      return false;
    }
    // Headers and a method in a Contact URI are the redirecting side's to choose, not ours to send.
    const params = { ...uri!.params };
    delete params.method;
    const target = sip.stringifyUri({ ...uri!, params, headers: {} });
    d.redirected = true;
    d.cseq += 1;
    d.invite = {
      method: 'INVITE',
      uri: target,
      headers: { ...d.invite.headers, via: [], cseq: { seq: d.cseq, method: 'INVITE' } },
      content: d.invite.content,
    };
    delete d.invite.headers.route;
    d.responded = false;
    d.provisional = false;
    armNoResponse(d); // the ring timer keeps running from the first INVITE
    log.info({ key: d.key, callId: d.callId, status: rs.status, target }, 'sip: redirected: INVITE to the new target');
    void sendInvite(d);
    return true;
  }

  // --- Requests we receive ---

  function onRequest(rq: sip.Message, remote: sip.Remote): void {
    const method = rq.method ?? '';
    if (method === 'ACK') return onAck(rq); // never answered
    const d = byCallId.get(rq.headers['call-id'] ?? '');
    const toTag = tagOf(rq.headers.to);
    const fromTag = tagOf(rq.headers.from);
    // In-dialog for us: our tag in To, the callee's in From.
    const peer = d && toTag === d.localTag ? (d.peer?.tag === fromTag ? d.peer : d.forks.get(fromTag ?? '')) : undefined;
    const source = `${remote.address}:${remote.port}`;

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
      endpoint.respond(withToTag(rq, sip.makeResponse(rq, 200, 'OK', { headers: { allow: ALLOW, accept: 'application/sdp', supported: 'timer' } })));
      return;
    }
    if (d && peer && (method === 'INVITE' || method === 'UPDATE')) return onSessionRequest(d, peer, rq, remote);
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

  /**
   * A re-INVITE or UPDATE from the callee on the answered dialog (RFC 3261
   * 14.2, RFC 3311): hold and resume, a new media address, or a session
   * refresh (RFC 4028). Answered 200 with our SDP answer to its offer; a
   * re-INVITE without one gets our offer, and its ACK brings the answer.
   */
  function onSessionRequest(d: Dialog, peer: Peer, rq: sip.Message, remote: sip.Remote): void {
    const method = rq.method!;
    const reply = (status: number, reason: string, headers: sip.Headers = {}) => {
      log.info({ key: d.key, callId: d.callId, method, status }, `sip: in-dialog ${method} refused: ${reason}`);
      endpoint.respond(sip.makeResponse(rq, status, reason, { headers }));
    };
    // A fork we are hanging up, or a dialog we ended: gone for the peer too.
    if (peer !== d.peer || d.ended || peer.byeSent) return reply(481, 'Call/Transaction Does Not Exist');
    const seq = (rq.headers.cseq as sip.CSeq).seq;
    if (peer.remoteCseq !== undefined && seq <= peer.remoteCseq) return reply(500, 'Server Internal Error', { 'retry-after': '1' });
    peer.remoteCseq = seq;
    const unsupported = optionTags(rq, 'require').filter((t) => t !== 'timer');
    if (unsupported.length > 0) return reply(420, 'Bad Extension', { unsupported: unsupported.join(', ') });
    const se = sessionExpiresOf(rq);
    if (se && se.delta < MIN_SE) return reply(422, 'Session Interval Too Small', { 'min-se': String(MIN_SE) });
    const sdp = typeof rq.content === 'string' && rq.content.trim() !== '' ? rq.content : undefined;
    // Our offer (in a 2xx) still waits for its answer (in the ACK): a new offer crosses it (RFC 3261 14.2).
    if ((sdp !== undefined || method === 'INVITE') && d.pending2xx?.awaitingAnswer) return reply(491, 'Request Pending');

    let content: string | undefined;
    if (sdp !== undefined) {
      let offered: Negotiated;
      try {
        offered = keepCodec(d, negotiate(sdp), sdp);
      } catch (err) {
        log.warn({ key: d.key, err: String(err) }, 'sip: an in-dialog offer without audio we can use');
        return reply(488, 'Not Acceptable Here');
      }
      content = answerSdp(d, offered);
      applyOffer(d, offered);
    } else if (method === 'INVITE') {
      content = offerSdp(d);
    }
    // A target refresh (RFC 3261 12.2.2): its new Contact is where our requests go now.
    const contact = rq.headers.contact;
    const first = Array.isArray(contact) ? contact[0] : undefined;
    if (first) peer.target = sip.stringifyUri(first.uri);

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
    log.info({ key: d.key, callId: d.callId, method, offer: sdp !== undefined, held: d.held, sessionExpires: se?.delta }, `sip: in-dialog ${method} answered 200`);
    endpoint.respond(rs);
    if (method === 'INVITE') {
      d.pending2xx = { seq, rs, awaitingAnswer: sdp === undefined };
      // Over UDP the 2xx of an INVITE is ours to retransmit until its ACK (RFC 3261 13.3.1.4); TCP carries it once.
      if (remote.protocol.toUpperCase() === 'UDP') retransmit2xx(d, rs, T1_MS, 0);
    }
  }

  function retransmit2xx(d: Dialog, rs: sip.Message, interval: number, elapsed: number): void {
    setTimer(d, 'retransmit2xx', interval, () => {
      if (d.pending2xx?.rs !== rs) return;
      if (elapsed + interval >= TRANSACTION_MS) {
        d.pending2xx = undefined;
        log.warn({ key: d.key, callId: d.callId }, 'sip: no ACK to our 2xx to a re-INVITE');
        return;
      }
      endpoint.respond(rs);
      retransmit2xx(d, rs, Math.min(2 * interval, T2_MS), elapsed + interval);
    });
  }

  /** The ACK of our 2xx to a re-INVITE: its retransmissions stop; the answer to our offer, if it brings one, is applied. */
  function onAck(rq: sip.Message): void {
    const d = byCallId.get(rq.headers['call-id'] ?? '');
    const pending = d?.pending2xx;
    const cseq = rq.headers.cseq;
    if (!d || !pending || typeof cseq !== 'object' || cseq.seq !== pending.seq) return;
    d.pending2xx = undefined;
    clearTimers(d, 'retransmit2xx');
    if (!pending.awaitingAnswer) return;
    const sdp = typeof rq.content === 'string' ? rq.content : '';
    try {
      applyOffer(d, keepCodec(d, negotiate(sdp), sdp));
    } catch (err) {
      log.warn({ key: d.key, err: String(err) }, 'sip: the answer in the ACK has no audio we can use; the media stays as it was');
    }
  }

  /**
   * The peer's new SDP applied to the stream. On hold (its direction
   * sendonly or inactive, or c=0.0.0.0, RFC 2543's hold) the stream keeps its
   * destination and only learns the direction: the media plane is to send
   * nothing while the peer does not receive.
   */
  function applyOffer(d: Dialog, n: Negotiated): void {
    const held = n.direction === 'sendonly' || n.direction === 'inactive';
    if (held !== d.held) log.info({ key: d.key, callId: d.callId, direction: n.direction }, held ? 'sip: the far end holds the call' : 'sip: the far end resumed the call');
    d.held = held;
    const next: Negotiated = held && d.remote ? { ...d.remote, direction: n.direction } : n;
    if (next.address === '0.0.0.0') return; // no destination yet, nothing to connect
    d.remote = next;
    connectStream(d, next);
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

  /** Our answer to the peer's offer (RFC 3264 8): our stream's port, the next version, the direction that mirrors the peer's. */
  function answerSdp(d: Dialog, offered: Negotiated): string {
    const side = { host, port: d.media?.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: d.sdpSession, version: ++d.sdpVersion };
    return sdpAnswer(side, offered).replace(/^a=sendrecv$/m, `a=${MIRROR[offered.direction]}`);
  }

  /** Our offer again (a re-INVITE without SDP asks for one), as the next version. */
  function offerSdp(d: Dialog): string {
    return sdpOffer({ host, port: d.media?.port ?? PLACEHOLDER_MEDIA_PORT, sessionId: d.sdpSession, version: ++d.sdpVersion });
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
    const localTag = randomToken(8);
    const callId = `${randomToken(12)}@${host}`;
    // With a media plane, the offer names this call's own RTP port.
    const media = opts.media ? await opts.media.open(req.key, { hear: true }) : undefined;
    const sdpSession = String(Date.now());
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
          // UPDATE included: the callee may refresh the session with it (RFC 3311, RFC 4028).
          allow: ALLOW,
          ...req.headers,
          'content-type': 'application/sdp',
        },
        content: media ? sdpOffer({ host, port: media.port, sessionId: sdpSession }) : audioSdp(host, PLACEHOLDER_MEDIA_PORT, sdpSession),
      },
      media,
      connected: false,
      // audioSdp writes the session id as its version too.
      sdpSession,
      sdpVersion: media ? 1 : Number(sdpSession),
      remote: undefined,
      held: false,
      pending2xx: undefined,
      cseq: 1,
      dialed: numberOf(sip.parseUri(req.target)?.user),
      redirected: false,
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

    armNoResponse(d);
    // Ours too, from the sending of the first INVITE (a redirect does not restart it).
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
    await sendInvite(d);
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
