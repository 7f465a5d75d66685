import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A real webhook receiver: a Node HTTP server on 127.0.0.1 that keeps every
// request (headers and raw body) and answers as the test tells it.

export type Received = { headers: http.IncomingHttpHeaders; body: string; at: number; answered: number };

export type Receiver = {
  url: string;
  origin: string;
  received: Received[];
  /** Status to answer (default 200), or a function of the request; `delayMs` holds the answer. */
  respond: { status: number | ((r: Received) => number); delayMs: number };
  /** Resolves once `n` requests have arrived (rejects after timeoutMs). */
  waitFor: (n: number, timeoutMs?: number) => Promise<Received[]>;
  close: () => Promise<void>;
};

export async function startReceiver(path = '/hooks'): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const respond: Receiver['respond'] = { status: 200, delayMs: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now(), answered: 0 };
      const status = typeof respond.status === 'function' ? respond.status(r) : respond.status;
      r.answered = status;
      received.push(r);
      for (const w of waiters.splice(0)) w();
      setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end('ok'), respond.delayMs);
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${path}`,
    origin,
    received,
    respond,
    waitFor: (n, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`receiver got ${received.length} of ${n} requests in ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          if (received.length >= n) {
            clearTimeout(deadline);
            resolve(received.slice());
          } else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
