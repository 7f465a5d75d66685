import type dgram from 'node:dgram';
import net from 'node:net';
import type sip from 'sip';
import { RecentMap, randomToken, transactionKey } from './sip-message.ts';
import { probeUnreachable, type SipLog } from './sip-sockets.ts';

// What the embedded stack's endpoint (sip-endpoint.ts) does between `sip`
// and its sockets: the branches it makes swapped for strong ones and back,
// a final answer written again only where RFC 3261 wants it (never over
// TCP; one sent `once` only to its request come again), the far end's 503
// kept for the transaction `sip` answers with its own, muted requests, and
// a UDP request still unanswered at its first retransmission probed for an
// ICMP unreachable. `sip` tells the logger each message just before it
// writes it (send) and each one it read (recv); the sockets' writes are
// gated by what send decided.

/** RFC 3261's 64*T1 (T1 = 500 ms): how long a transaction lives. */
export const TRANSACTION_MS = 64 * 500;
/** What `sip` makes of a branch: `z9hG4bK` and up to seven digits. Ours are 24 hex digits. */
const WEAK_BRANCH = /^z9hG4bK\d{1,7}$/;

export class SipWireGuard {
  // `sip`'s branch of each request we sent, by the transaction key the wire shows (our branch).
  private readonly weakBranches = new RecentMap<string, string>(2 * TRANSACTION_MS);
  // Responses already written once; those sent `once`, by transaction key; and
  // those a retransmitted request may have again.
  private readonly sentResponses = new WeakSet<sip.Message>();
  private readonly onceOnly = new WeakSet<sip.Message>();
  private readonly onceByKey = new RecentMap<string, sip.Message>(TRANSACTION_MS + 5_000);
  private readonly resendAllowed = new WeakSet<sip.Message>();
  private readonly muted = new WeakSet<sip.Message>();
  // `sip` takes a 503 from the far end for "try the next address" and, with
  // none left, hands us a 503 of its own making (no reason, no To tag): the
  // far end's is kept here, by transaction, to be handed on instead.
  private readonly remote503 = new Map<string, sip.Message>();
  // Requests whose destination is probed once they go unanswered (SipEndpoint.request's onUnreachable).
  private readonly unanswered = new Map<sip.Message, { sends: number; onUnreachable: (code: string) => void }>();
  private readonly probeSockets = new Set<dgram.Socket>();
  // Set by the logger's send just before `sip` writes that message; read by the socket it writes on.
  private readonly gate = { drop: false };
  // What a burst of requests left in these is dropped once it is too old, even when no request follows.
  private readonly pruning: NodeJS.Timeout;
  private closed = false;
  private rawUdpSend: ((buf: Buffer, port: number, address: string) => void) | undefined;
  private readonly log: SipLog;
  /** Told each request `sip` is about to write (the endpoint's wait for the wire). */
  private readonly onRequestWritten: (m: sip.Message) => void;

  constructor(log: SipLog, onRequestWritten: (m: sip.Message) => void) {
    this.log = log;
    this.onRequestWritten = onRequestWritten;
    this.pruning = setInterval(() => { this.weakBranches.prune(); this.onceByKey.prune(); }, 5_000);
    this.pruning.unref();
  }

  /** The logger `sip` is created with. */
  logger(): sip.Logger {
    return {
      send: (m, target) => this.onSend(m, target),
      recv: (m, remote) => this.onRecv(m, remote),
      error: (e) => this.log.warn({ err: String(e) }, 'sip: stack error'),
    };
  }

  private onSend(m: sip.Message, target: sip.Remote): void {
    if (m.method === undefined) {
      this.gate.drop = this.dropResponse(m, target);
      return;
    }
    this.strengthenBranch(m);
    this.gate.drop = this.muted.has(m);
    this.watchUnanswered(m, target);
    this.onRequestWritten(m);
  }

  private onRecv(m: sip.Message, remote: sip.Remote): void {
    if (m.method !== undefined) {
      if (m.method === 'ACK') return;
      const rs = this.onceByKey.get(transactionKey(m));
      if (!rs) return;
      // Its transaction answers it again (over UDP; over TCP nothing is sent twice).
      this.resendAllowed.add(rs);
      this.log.debug?.({ method: m.method, callId: m.headers['call-id'], transport: remote.protocol }, 'sip: a retransmitted request from outside our dialogs');
      return;
    }
    if (m.status === 503) {
      // Retransmissions land here too, after the transaction used them: keep the map small.
      if (this.remote503.size >= 256) this.remote503.delete(this.remote503.keys().next().value!);
      this.remote503.set(transactionKey(m), m);
    }
    // Our branch back to `sip`'s, for its transaction to find.
    const via = m.headers.via?.[0];
    const weak = via && this.weakBranches.get(transactionKey(m));
    if (via && weak) via.params.branch = weak;
  }

  /** Swaps a branch `sip` made for 96 random bits, remembered to map the responses back. */
  private strengthenBranch(m: sip.Message): void {
    const via = m.headers.via?.[0];
    const branch = via?.params.branch;
    if (!via || !branch || !WEAK_BRANCH.test(branch)) return;
    const strong = `z9hG4bK${randomToken(12)}`;
    via.params.branch = strong;
    this.weakBranches.set(transactionKey(m), branch);
  }

  /** Whether `sip` writing this response again is to be dropped (see the header). */
  private dropResponse(rs: sip.Message, target: sip.Remote): boolean {
    const again = this.sentResponses.has(rs);
    this.sentResponses.add(rs);
    if (!again) return false;
    if (target.protocol.toUpperCase() !== 'UDP') return true;
    return this.onceOnly.has(rs) && !this.resendAllowed.delete(rs);
  }

  /** The second transmission of a request over UDP means no answer in T1: its destination is probed. */
  private watchUnanswered(m: sip.Message, target: sip.Remote): void {
    const w = this.unanswered.get(m);
    if (!w) return;
    // TCP says a refused connection itself (`sip` answers a 503 of its own at once).
    if (target.protocol.toUpperCase() !== 'UDP') return void this.unanswered.delete(m);
    if (++w.sends < 2) return;
    this.unanswered.delete(m);
    if (this.closed) return;
    probeUnreachable(target.address, target.port, this.probeSockets, (code) => {
      if (!this.closed) w.onUnreachable(code);
    });
  }

  /** A final answer sent `once`: written again only when its request comes again. */
  sendingOnce(rs: sip.Message): void {
    this.onceOnly.add(rs);
    this.onceByKey.set(transactionKey(rs), rs);
  }

  /** Probe `m`'s destination should it go unanswered. */
  watch(m: sip.Message, onUnreachable: (code: string) => void): void {
    this.unanswered.set(m, { sends: 0, onUnreachable });
  }

  /** `m` has an answer (or is given up): no probe. */
  answered(m: sip.Message): void {
    this.unanswered.delete(m);
  }

  /** Stops putting `m` on the wire. */
  mute(m: sip.Message): void {
    this.muted.add(m);
    this.unanswered.delete(m);
  }

  /** The far end's own 503 for the transaction of `m`, when `sip` answered one of its making (taken once). */
  takeRemote503(m: sip.Message): sip.Message | undefined {
    const key = transactionKey(m);
    const rs = this.remote503.get(key);
    this.remote503.delete(key);
    return rs;
  }

  /** `sip`'s UDP socket: it writes every message through send(); the logger's send said just before whether to drop this one. */
  guardUdp(socket: dgram.Socket): void {
    const send = socket.send.bind(socket) as (...args: unknown[]) => void;
    this.rawUdpSend = (buf, port, address) => send(buf, 0, buf.length, port, address);
    (socket as unknown as { send: (...args: unknown[]) => void }).send = (...args) => {
      if (this.gate.drop) this.gate.drop = false;
      else send(...args);
    };
  }

  /** A datagram of our own making, past `sip` (the 400 to a request it would drop). */
  sendRaw(buf: Buffer, port: number, address: string): boolean {
    if (!this.rawUdpSend) return false;
    this.rawUdpSend(buf, port, address);
    return true;
  }

  /** A TCP connection of `sip`'s: it writes every message through write(); the logger's send said just before whether to drop this one. */
  readonly guardStream = (stream: net.Socket): net.Socket => {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    (stream as unknown as { write: (...args: unknown[]) => boolean }).write = (...args) => {
      if (!this.gate.drop) return write(...args);
      this.gate.drop = false;
      return true;
    };
    return stream;
  };

  /**
   * `sip` opens its TCP connections in send(), synchronously when the target
   * is an IP address: caught there as node:net hands them out, to be guarded
   * too. (One it opens after a DNS look-up is not: see sip-endpoint.ts.)
   */
  sendCatchingConnections(send: () => void): void {
    const netModule = net as unknown as { connect: (...args: unknown[]) => net.Socket };
    const connect = netModule.connect;
    netModule.connect = (...args) => this.guardStream(connect.apply(net, args));
    try {
      send();
    } finally {
      netModule.connect = connect;
    }
  }

  /** How many transactions' worth it keeps (SipEndpoint.retained). */
  retained(): number {
    return this.onceByKey.size + this.weakBranches.size + this.remote503.size + this.unanswered.size;
  }

  /** Forgets everything, closes its probes. */
  close(): void {
    this.closed = true;
    clearInterval(this.pruning);
    this.weakBranches.clear();
    this.onceByKey.clear();
    this.remote503.clear();
    this.unanswered.clear();
    for (const p of this.probeSockets) {
      try {
        p.close();
      } catch {
        // Already closed.
      }
    }
    this.probeSockets.clear();
  }
}
