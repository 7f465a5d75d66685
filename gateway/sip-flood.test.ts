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
  test('3,000 INVITEs from strangers are each answered once, and what the endpoint kept of them is gone after the transaction time', async () => {
    endpoint = await openSipEndpoint('127.0.0.1:0', (rq) => {
      // As the gateway answers a stranger's INVITE: 403, sent once (no Timer G reflection).
      endpoint!.respond(sip.makeResponse(rq, 403, 'Forbidden'), { once: true });
    }, { info() {}, warn() {}, error() {} });
    sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock!.bind(0, '127.0.0.1', () => r()));
    const answers = new Set<string>();
    sock.on("message", (m) => { const id = /Call-ID: (\S+)/i.exec(m.toString())?.[1]; if (id && / 403 /.test(m.toString().split('\r\n')[0]!)) answers.add(id); });
    const me = sock.address().port;
    const N = 3000;
    for (let i = 0; i < N; i++) {
      sock.send([`INVITE sip:svc@127.0.0.1:${endpoint.port} SIP/2.0`, `Via: SIP/2.0/UDP 127.0.0.1:${me};branch=z9hG4bKflood${i}`,
        `From: <sip:x${i}@spoofed.example>;tag=f${i}`, `To: <sip:svc@127.0.0.1>`, `Call-ID: flood-${i}`, 'CSeq: 1 INVITE', 'Max-Forwards: 70',
        `Contact: <sip:x@127.0.0.1:${me}>`, 'Content-Length: 0', '', ''].join('\r\n'), endpoint.port, '127.0.0.1');
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 10));
    }
    // UDP: what the kernel's buffers could not hold of the burst is lost on the way; the rest is answered.
    let last = -1;
    await until('the answers stopped coming', async () => { const done = answers.size === last; last = answers.size; return done; }, { timeoutMs: 20_000, intervalMs: 1000 });
    expect(answers.size).toBeGreaterThan(N / 2);
    // Kept while a retransmission may still come.
    expect(endpoint.retained()).toBeGreaterThanOrEqual(answers.size);
    // SIP's transaction time passes (the clock only: the endpoint's own timers run as they do), and no request comes.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + TRANSACTION_MS + 10_000 });
    await until('what the flood left dropped', async () => endpoint!.retained() === 0, { timeoutMs: 10_000, intervalMs: 100 });
  });
});
