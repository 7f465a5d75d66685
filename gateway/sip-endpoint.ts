// The transport of the embedded SIP stack (sip-stack.ts): a `sip` stack (the
// npm package) bound to one address, UDP and TCP, with what `sip` 0.0.6 gets
// wrong or leaves out worked around where it happens:
//   - it binds its sockets without an 'error' listener (an address in use
//     would crash the process) and never exposes them: openSipEndpoint catches
//     them as node:dgram / node:net hand them out;
//   - it answers a local 404 when the next hop's host equals its own host
//     (whatever the port), which is every loopback call: it is given a host
//     name that matches nothing (see the SipStackEndpoint constructor);
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
//
// The guards between `sip` and its sockets (branches, answers written again,
// 503s, muted requests, unreachable probes) are sip-wire.ts's; this file is
// the endpoint over them, with the malformed requests it answers itself.

import type dgram from 'node:dgram';
import sip from 'sip';
import { KNOWN_METHODS, formatAors, withToTag } from './sip-message.ts';
import { createCapturingSockets, freeUdpPort, missingHeaders, parseListen, type SipLog } from './sip-sockets.ts';
import { SipWireGuard } from './sip-wire.ts';

/** The service's logger as SignalingOptions gives it (sip-sockets.ts); `debug` is used when it has one (pino does). */
export type { SipLog };
export { TRANSACTION_MS } from './sip-wire.ts';

export const SILENT: SipLog = { info() {}, warn() {}, error() {} };

/** Longest wait for a message handed to `sip` to reach the socket (a DNS look-up at worst). */
const WIRE_TIMEOUT_MS = 5_000;

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
      return await SipStackEndpoint.start(host, port === 0 ? await freeUdpPort(host) : port, onRequest, log);
    } catch (err) {
      last = err;
      if (!(err instanceof SipListenError && err.code === 'EADDRINUSE')) break;
    }
  }
  throw last;
}

/** The endpoint: `sip`'s stack, its wire guarded (sip-wire.ts), the requests handed to it followed to the wire. */
class SipStackEndpoint implements SipEndpoint {
  /** Binds and listens; rejects with SipListenError. */
  static async start(
    host: string,
    port: number,
    onRequest: (rq: sip.Message, remote: sip.Remote) => void,
    log: SipLog,
  ): Promise<SipStackEndpoint> {
    const endpoint = new SipStackEndpoint(host, port, onRequest, log);
    await endpoint.listen();
    return endpoint;
  }

  readonly host: string;
  readonly port: number;
  readonly address: string;
  private readonly log: SipLog;
  private readonly onRequest: (rq: sip.Message, remote: sip.Remote) => void;
  // Requests waiting to reach the socket, by identity: `sip` hands our own
  // message object to the logger's send just before writing it.
  private readonly onWire = new Map<sip.Message, () => void>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly finishers = new Set<() => void>();
  private readonly wire: SipWireGuard;
  private readonly stack: sip.Stack;
  private readonly listening: Promise<void>;
  private destroyed = false;

  private constructor(host: string, port: number, onRequest: (rq: sip.Message, remote: sip.Remote) => void, log: SipLog) {
    this.host = host;
    this.port = port;
    this.address = `${host}:${port}`;
    this.log = log;
    this.onRequest = onRequest;
    this.wire = new SipWireGuard(log, (m) => this.onWire.get(m)?.());
    const options: sip.Options = {
      address: host,
      port,
      // `sip` remembers its host name once, here, and answers 404 itself to any
      // request whose next hop has that host (it expects a flow token there),
      // port not considered: on loopback every call would fail. It reads the
      // Via host from these options at each send, so it gets a name that
      // matches no host now, removed right after create() so Via says `host`.
      publicAddress: 'tolk-gateway.invalid',
      logger: this.wire.logger(),
    };
    const { stack, listening } = createCapturingSockets(options, (rq, remote) => this.receive(rq, remote), log, {
      udp: (socket) => {
        this.wire.guardUdp(socket);
        socket.on('message', (data, rinfo) => this.checkDatagram(data, rinfo));
      },
      tcp: (server) => {
        server.on('connection', this.wire.guardStream);
      },
    });
    delete options.publicAddress;
    this.stack = stack;
    this.listening = listening;
  }

  private async listen(): Promise<void> {
    try {
      await this.listening;
    } catch (err) {
      try {
        this.stack.destroy();
      } catch {
        // The socket that failed to bind may refuse to close: nothing to free.
      }
      const code = (err as NodeJS.ErrnoException).code;
      const why = code === 'EADDRINUSE' ? 'the address is already in use' : (err as Error).message;
      throw new SipListenError(`SIP stack cannot listen on ${this.host}:${this.port} (UDP and TCP): ${why}`, code, err);
    }
  }

  /** A request `sip` hands us: answered here when malformed, else the owner's. */
  private receive(rq: sip.Message, remote: sip.Remote): void {
    if (this.destroyed || this.refuseMalformed(rq)) return;
    try {
      this.onRequest(rq, remote);
    } catch (err) {
      // `sip` would answer 500 and log; say it here.
      this.log.error({ err: String(err), method: rq.method }, 'sip: request handler failed');
      throw err;
    }
  }

  /**
   * `sip` drops, without a word, a request missing Call-ID, CSeq, From, To or
   * Via: here, one that has a Via to answer to is answered 400 (to where it
   * came from). Cheap for the others: only a request whose head lacks one of
   * them is parsed again.
   */
  private checkDatagram(data: Buffer, rinfo: dgram.RemoteInfo): void {
    if (this.destroyed) return;
    const missing = missingHeaders(data);
    if (missing.length === 0) return;
    const rq = sip.parse(data);
    const via = rq?.headers.via;
    if (!rq || !rq.method || rq.method === 'ACK' || !Array.isArray(via) || !via[0]?.host) {
      this.log.debug?.({ from: `${rinfo.address}:${rinfo.port}`, missing }, 'sip: malformed request dropped');
      return;
    }
    const rs = withToTag(rq, sip.makeResponse(rq, 400, `Missing ${missing.join(', ')}`));
    rs.version = '2.0';
    formatAors(rs);
    this.log.debug?.({ from: `${rinfo.address}:${rinfo.port}`, method: rq.method, missing }, 'sip: malformed request answered 400');
    this.wire.sendRaw(Buffer.from(sip.stringify(rs), 'binary'), rinfo.port, rinfo.address);
  }

  /** Answers itself what no UA takes (505, 400, 501); true when it did. `sip` made a server transaction for it. */
  private refuseMalformed(rq: sip.Message): boolean {
    const cseq = rq.headers.cseq;
    const reply = (status: number, reason: string) => {
      this.respond(withToTag(rq, sip.makeResponse(rq, status, reason)), { once: true });
      this.log.debug?.({ method: rq.method, status }, `sip: request refused: ${reason}`);
      return true;
    };
    if (rq.method === 'ACK') return rq.version !== '2.0'; // never answered
    if (rq.version !== '2.0') return reply(505, 'Version Not Supported');
    if (typeof cseq !== 'object' || cseq.method !== rq.method) return reply(400, 'CSeq Method Does Not Match');
    if (!KNOWN_METHODS.has(rq.method ?? '')) return reply(501, 'Not Implemented');
    return false;
  }

  request(m: sip.Message, onResponse?: (rs: sip.Message) => void, o?: { onUnreachable?: (code: string) => void }): Promise<void> {
    if (this.destroyed) return Promise.resolve();
    if (o?.onUnreachable) this.wire.watch(m, o.onUnreachable);
    let finish!: () => void;
    const p = new Promise<void>((resolve) => {
      const timer = setTimeout(() => finish(), WIRE_TIMEOUT_MS);
      finish = () => {
        clearTimeout(timer);
        this.onWire.delete(m);
        this.finishers.delete(finish);
        this.inFlight.delete(p);
        resolve();
      };
    });
    this.onWire.set(m, finish);
    this.finishers.add(finish);
    this.inFlight.add(p);
    try {
      this.wire.sendCatchingConnections(() => this.stack.send(m, (rs) => {
        finish(); // a local answer (no address, 503) also ends the wait
        this.wire.answered(m);
        if (this.destroyed || !onResponse) return;
        if (rs.status === 503) rs = this.wire.takeRemote503(m) ?? rs;
        try {
          onResponse(rs);
        } catch (err) {
          this.log.error({ err: String(err), method: m.method }, 'sip: response handler failed');
        }
      }));
    } catch (err) {
      this.log.error({ err: String(err), method: m.method }, 'sip: send failed');
      finish();
    }
    return p;
  }

  respond(rs: sip.Message, o?: { once?: boolean }): void {
    if (this.destroyed) return;
    rs.version = '2.0';
    formatAors(rs);
    if (o?.once && (rs.status ?? 0) >= 200) this.wire.sendingOnce(rs);
    try {
      this.stack.send(rs);
    } catch (err) {
      this.log.error({ err: String(err), status: rs.status }, 'sip: sending a response failed');
    }
  }

  mute(m: sip.Message): void {
    this.wire.mute(m);
  }

  retained(): number {
    return this.wire.retained();
  }

  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.wire.close();
    for (const finish of [...this.finishers]) finish();
    try {
      this.stack.destroy();
    } catch (err) {
      this.log.warn({ err: String(err) }, 'sip: destroy failed');
    }
  }
}
