// The gateway's media behind its signaling, against SIPp as the callee with
// its RTP echo (`-rtp_echo`: every RTP packet it gets goes back to its
// sender): our INVITE offers the call's own RTP port, SIPp's answer connects
// the stream, and what we speak comes back to us, at its loudness.

import { afterEach, expect, test } from 'vitest';
import { createSipSignaling } from '../sip-stack.ts';
import { MediaPlane } from './plane.ts';
import type { DialogEvent } from '../signaling.ts';
import { startSipp, wire, evenFreePort } from '../../test/helpers/sipp.ts';
import { until } from '../../test/helpers/wait.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const tone = (ms: number, hz = 440, amp = 8000) => Int16Array.from({ length: (ms * 8000) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 8000)));


test('a call to SIPp with RTP echo: the offer names our stream, the answer connects it, a tone spoken comes back', async () => {
  const plane = await MediaPlane.start('127.0.0.1');
  cleanups.push(() => plane.stop());
  const events: DialogEvent[] = [];
  const sig = await createSipSignaling({ listen: '127.0.0.1:0', ringTimeoutSeconds: 5, onEvent: (_k, e) => events.push(e), media: plane });
  cleanups.push(() => sig.close());
  const mediaPort = await evenFreePort();
  const sipp = await startSipp({ scenario: new URL('../sipp/answer-wait-bye.xml', import.meta.url).pathname, extraArgs: ['-rtp_echo', '-mp', String(mediaPort)] });
  cleanups.push(() => sipp.stop());

  await sig.place({ key: 'echo-1', target: sipp.uri('callee'), from: '+15550001111' });
  await until('answered', async () => events.some((e) => e.type === 'answered'), 5_000);
  const finished = new Promise<void>((ok) => plane.on('finished', (k) => { if (k === 'echo-1') ok(); }));
  const { queuedMs } = await sig.play('echo-1', 'greeting', tone(1000));
  expect(queuedMs).toBe(0);
  await finished;
  const stats = await until('the echo is back', async () => {
    const st = await plane.stats('echo-1');
    return st && st.played >= 48 ? st : null;
  }, 3_000);
  expect(stats.sent).toBe(50);
  expect(stats.received).toBeGreaterThanOrEqual(48);
  const loud = stats.energy.filter((e) => e > 1000);
  expect(loud.length).toBeGreaterThanOrEqual(45);
  const mean = loud.reduce((a, b) => a + b, 0) / loud.length;
  expect(Math.abs(mean - 8000 / Math.SQRT2)).toBeLessThan(300);

  await sig.hangup('echo-1');
  const result = await sipp.done();
  expect(result.code, result.errors).toBe(0);
  // The INVITE offered a real port of ours (not the discard port), with both G.711 codecs and telephone-event.
  const invite = wire(result.trace).find((m) => m.startLine.startsWith('INVITE'))!;
  expect(invite.body).toMatch(/^m=audio (\d+) RTP\/AVP 0 8 101\r?$/m);
  expect(Number(/^m=audio (\d+)/m.exec(invite.body)![1])).not.toBe(9);
  // The stream closed with the dialog.
  await until('the stream is closed', async () => (await plane.stats('echo-1')) === null, 3_000);
});
