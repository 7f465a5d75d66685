// A flood of SIP requests from strangers leaves nothing behind in the
// endpoint (sip-endpoint.ts): the answers it sent once, kept so that a
// retransmitted request gets the same answer, are dropped once SIP's
// transaction time has passed, even when no request follows the flood.

import dgram from 'node:dgram';
import { afterEach, describe, expect, test, vi } from 'vitest';
import sip from 'sip';
import { openSipEndpoint, type SipEndpoint } from './sip-endpoint.ts';
import { TRANSACTION_MS } from './sip-endpoint.ts';
import { until } from '../test/helpers/wait.ts';

let endpoint: SipEndpoint | null = null;
let sock: dgram.Socket | null = null;
afterEach(async () => {
  vi.useRealTimers();
  endpoint?.destroy();
  endpoint = null;
  await new Promise<void>((r) => (sock ? sock.close(() => r()) : r()));
  sock = null;
});

describe('a SIP flood', () => {
  test('3,000 requests from strangers (INVITEs without credentials, INVITEs claiming a trunk, OPTIONS, garbage) are each answered once, and what the endpoint kept of them is gone after the transaction time', async () => {
    endpoint = await openSipEndpoint('127.0.0.1:0', (rq) => {
      // As the gateway answers a stranger: an INVITE 403 (a trunk's name from an address not the trunk's
      // included), OPTIONS 200, each sent once (no Timer G reflection).
      endpoint!.respond(sip.makeResponse(rq, rq.method === 'OPTIONS' ? 200 : 403, rq.method === 'OPTIONS' ? 'OK' : 'Forbidden'), { once: true });
    }, { info() {}, warn() {}, error() {} });
    sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock!.bind(0, '127.0.0.1', () => r()));
    const answers = new Set<string>();
    sock.on("message", (m) => { const id = /Call-ID: (\S+)/i.exec(m.toString())?.[1]; if (id && / (403|200) /.test(m.toString().split('\r\n')[0]!)) answers.add(id); });
    const me = sock.address().port;
    const N = 3000;
    let garbage = 0;
    for (let i = 0; i < N; i++) {
      // Paced a little, so that what is lost on the way is the exception on a busy machine.
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 15));
      const kind = i % 4;
      if (kind === 3) {
        garbage++;
        sock.send(Buffer.from(`\x00\xffNOT SIP ${i} ${'x'.repeat(i % 200)}\r\n\r\n`, 'latin1'), endpoint.port, '127.0.0.1');
        continue;
      }
      const method = kind === 2 ? 'OPTIONS' : 'INVITE';
      const from = kind === 1 ? `<sip:+15550100@trunk.carrier.example>;tag=f${i}` : `<sip:x${i}@spoofed.example>;tag=f${i}`;
      sock.send([`${method} sip:svc@127.0.0.1:${endpoint.port} SIP/2.0`, `Via: SIP/2.0/UDP 127.0.0.1:${me};branch=z9hG4bKflood${i}`,
        `From: ${from}`, `To: <sip:svc@127.0.0.1>`, `Call-ID: flood-${i}`, `CSeq: 1 ${method}`, 'Max-Forwards: 70',
        `Contact: <sip:x@127.0.0.1:${me}>`, 'Content-Length: 0', '', ''].join('\r\n'), endpoint.port, '127.0.0.1');
    }
    // UDP: what the kernel's buffers could not hold of the burst is lost on the way; the rest is answered.
    let last = -1;
    await until('the answers stopped coming', async () => { const done = answers.size === last; last = answers.size; return done; }, { timeoutMs: 20_000, intervalMs: 1000 });
    expect(answers.size).toBeGreaterThan((N - garbage) / 2);
    // Kept while a retransmission may still come.
    expect(endpoint.retained()).toBeGreaterThanOrEqual(answers.size);
    // SIP's transaction time passes (the clock only: the endpoint's own timers run as they do), and no request comes.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + TRANSACTION_MS + 10_000 });
    await until('what the flood left dropped', async () => endpoint!.retained() === 0, { timeoutMs: 10_000, intervalMs: 100 });
    // And the endpoint still answers: a request after the flood is answered.
    vi.useRealTimers();
    const after = new Promise<string>((r) => sock!.on('message', (m) => { if (/Call-ID: after-flood/i.test(m.toString())) r(m.toString().split('\r\n')[0]!); }));
    sock.send([`OPTIONS sip:svc@127.0.0.1:${endpoint.port} SIP/2.0`, `Via: SIP/2.0/UDP 127.0.0.1:${me};branch=z9hG4bKafter`, `From: <sip:x@a.example>;tag=a`,
      `To: <sip:svc@127.0.0.1>`, 'Call-ID: after-flood', 'CSeq: 1 OPTIONS', 'Max-Forwards: 70', 'Content-Length: 0', '', ''].join('\r\n'), endpoint.port, '127.0.0.1');
    expect(await after).toMatch(/ 200 /);
  });
});
