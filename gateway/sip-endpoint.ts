// The transport of the embedded SIP stack (sip-stack.ts): a `sip` stack (the
// npm package) bound to one address, UDP and TCP, with what `sip` 0.0.6 gets
// wrong or leaves out worked around where it happens:
//   - it binds its sockets without an 'error' listener (an address in use
//     would crash the process) and never exposes them: openSipEndpoint catches
//     them as node:dgram / node:net hand them out;
//   - it answers a local 404 when the next hop's host equals its own host
//     (whatever the port), which is every loopback call: it is given a host
//     name that matches nothing (see startEndpoint);
//   - it swallows a 503 from the far end (taken for "try the next address")
//     and hands us one of its own making: the far end's is handed on instead;
//   - sending on it after destroy() throws from inside its timers: settle()
//     waits until what it was handed is on the wire before destroying it;
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
//     host unreachable: a request still unanswered at its first
//     retransmission has its destination probed (sip-sockets.ts).
// Its Content-Length counts JavaScript characters: bodies stay ASCII.

import dgram from 'node:dgram';
import net from 'node:net';
import sip from 'sip';
import { KNOWN_METHODS, RecentMap, formatAors, randomToken, transactionKey, withToTag } from './sip-message.ts';
import { createCapturingSockets, freeUdpPort, missingHeaders, parseListen, probeUnreachable, type SipLog } from './sip-sockets.ts';

/** The service's logger as SignalingOptions gives it (sip-sockets.ts); `debug` is used when it has one (pino does). */
export type { SipLog };

export const SILENT: SipLog = { info() {}, warn() {}, error() {} };

/** Longest wait for a message handed to `sip` to reach the socket (a DNS look-up at worst). */
const WIRE_TIMEOUT_MS = 5_000;
/** RFC 3261's 64*T1 (T1 = 500 ms): how long a transaction lives. */
export const TRANSACTION_MS = 64 * 500;
/** What `sip` makes of a branch: `z9hG4bK` and up to seven digits. Ours are 24 hex digits. */
const WEAK_BRANCH = /^z9hG4bK\d{1,7}$/;

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
  /** How many transactions' worth this endpoint keeps of its own (answers sent once, branches, far ends' 503s, requests watched): bounded in time and number. */
  retained(): number;
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
  // What a burst of requests left in these is dropped once it is too old, even when no request follows.
  const pruning = setInterval(() => { weakBranches.prune(); onceByKey.prune(); }, 5_000);
  pruning.unref();
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
    if (destroyed) return;
    probeUnreachable(target.address, target.port, probeSockets, (code) => {
      if (!destroyed) w.onUnreachable(code);
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
    const missing = missingHeaders(data);
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
    retained: () => onceByKey.size + weakBranches.size + remote503.size + unanswered.size,
    async settle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearInterval(pruning);
      weakBranches.clear();
      onceByKey.clear();
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
