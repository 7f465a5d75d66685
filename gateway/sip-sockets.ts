// The sockets under the embedded stack's `sip` (sip-endpoint.ts): the
// address to bind and a free port; catching the sockets `sip` creates, so
// that their errors are heard; probing a destination for an ICMP
// unreachable, which `sip`'s unconnected UDP socket never hears; and
// spotting a datagram `sip` would drop without a word.

import dgram from 'node:dgram';
import net from 'node:net';
import type { EventEmitter } from 'node:events';
import sip from 'sip';
import type { SignalingOptions } from './signaling.ts';

/** The service's logger as SignalingOptions gives it; `debug` is used when it has one (pino does). */
export type SipLog = NonNullable<SignalingOptions['log']> & { debug?: (o: object, m: string) => void };

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

/** How long a probe waits for an ICMP unreachable. */
const PROBE_MS = 2_000;
/** Socket errors that say nobody listens there (ICMP port or host unreachable). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * An unconnected UDP socket (the stack's) never hears of an ICMP
 * unreachable; a connected one does, as ECONNREFUSED or EHOSTUNREACH. So an
 * empty datagram goes to the same address from a socket of its own: SIP
 * stacks ignore it (`sip`, Kamailio, Asterisk, SIPp), and a closed port or
 * unreachable host answers it with ICMP. The socket is kept in `sockets`
 * until it closes (PROBE_MS at most), for the endpoint to close at destroy.
 */
export function probeUnreachable(address: string, port: number, sockets: Set<dgram.Socket>, onUnreachable: (code: string) => void): void {
  const s = dgram.createSocket(net.isIPv6(address) ? 'udp6' : 'udp4');
  sockets.add(s);
  const close = () => {
    clearTimeout(timer);
    if (!sockets.delete(s)) return;
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
    const open = sockets.has(s);
    close();
    if (open && err.code && UNREACHABLE.has(err.code)) onUnreachable(err.code);
  });
  s.connect(port, address, (err?: Error) => {
    if (err) return close();
    s.send(Buffer.alloc(0), () => {});
  });
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

/**
 * The headers a datagram that starts like a request lacks among those `sip`
 * will not do without; none for anything else. Cheap: the head is only
 * searched, never parsed.
 */
export function missingHeaders(data: Buffer): string[] {
  const text = data.toString('binary');
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  if (!REQUEST_LINE.test(head)) return [];
  return REQUIRED_HEADERS.filter(([, re]) => !re.test(head)).map(([name]) => name);
}

/**
 * sip.create(), catching the UDP socket and TCP server it creates
 * (synchronously, inside create) as node:dgram and node:net hand them out, to
 * listen for their errors: `sip` adds no 'error' listener, so a bind error
 * would be an uncaught exception. `listening` settles once both are bound.
 */
export function createCapturingSockets(
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
