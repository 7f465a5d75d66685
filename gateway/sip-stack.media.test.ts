// What the embedded stack (sip-stack.ts) does about the media of an answer
// (operator.md, "Calls and the SIP gateway"), against SIPp playing the
// callee (gateway/sipp/*.xml), the callee's side asserted from SIPp's trace:
// a 2xx without audio we can use (no SDP; G.729 or Opus only) is ACKed and
// hung up at once, reported as no_media instead of answered; an answered
// far end that sends no RTP and no RTCP for mediaTimeoutSeconds is hung up
// and reported as media_timeout, held or not (held, its RTCP keeps it up).

import dgram from 'node:dgram';
import { describe, expect, test } from 'vitest';
import { MediaPlane } from './media/plane.ts';
import { finished, flow, wire } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { quietFor, until } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp: callee } = sipRig();

/** A media plane that remembers the RTP port it opened for each key (RTCP is on the next one). */
async function plane() {
  const p = await MediaPlane.start('127.0.0.1');
  cleanups.push(() => p.stop());
  const ports = new Map<string, number>();
  const open = p.open.bind(p);
  p.open = async (key, o) => {
    const r = await open(key, o);
    ports.set(key, r.port);
    return r;
  };
  return { plane: p, ports };
}

describe('a 2xx without audio we can use: ACK, BYE at once, no_media', () => {
  test.each([
    ['answer-no-sdp', 'no SDP at all'],
    ['answer-g729', 'G.729 only'],
    ['answer-opus', 'Opus only'],
  ])('%s (%s): ringing, then no_media 200 OK, never answered; ACK then BYE on the wire', async (name) => {
    const s = await callee(name);
    const { plane: p } = await plane();
    const h = await signaling({ media: p, mediaTimeoutSeconds: 1 });
    await h.sig.place({ key: 'c1', target: s.uri('+15551230701'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'no_media', status: 200, reason: 'OK' },
    ]);
    expect(h.sig.active()).toEqual([]);
    expect(h.sig.hasMedia('c1')).toBe(false);
    await h.sig.hangup('c1'); // nothing left to hang up
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const [, , ok, ack, bye] = msgs;
    expect(ack!.header('CSeq')).toBe('1 ACK');
    expect(bye!.header('CSeq')).toBe('2 BYE');
    expect(bye!.header('To')).toBe(ok!.header('To'));
    // Its stream is closed: the plane has no stats for it any more.
    await until('the stream closed', async () => (await p.stats('c1')) === null, 2_000);
    await quietFor(1_500); // past the media timeout: nothing more is said
    expect(h.of('c1')).toHaveLength(2);
  });

  test('without a media plane the answer is judged the same way', async () => {
    const s = await callee('answer-no-sdp');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230702'), from: '+15550000000' });
    expect((await h.waitFor('c1', 2))[1]).toEqual({ type: 'no_media', status: 200, reason: 'OK' });
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace)).slice(-3)).toEqual(['> ACK', '> BYE', '< 200 OK']);
  });
});

describe('a far end that goes silent: BYE after mediaTimeoutSeconds, media_timeout', () => {
  test('answered, then no RTP and no RTCP: our BYE 2 s after the answer, media_timeout; nothing after it', async () => {
    const s = await callee('answer-wait-bye');
    const { plane: p } = await plane();
    const h = await signaling({ media: p, mediaTimeoutSeconds: 2 });
    await h.sig.place({ key: 'c1', target: s.uri('+15551230711'), from: '+15550000000' });
    expect(await h.waitFor('c1', 3, 6_000)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
      { type: 'media_timeout' },
    ]);
    const quiet = h.when('c1', 'media_timeout')! - h.when('c1', 'answered')!;
    // The watch starts when the stack learns of the answer, a moment before the
    // harness stamps the event it reports: a few ms of slack below 2 s.
    expect(quiet).toBeGreaterThanOrEqual(1_950);
    expect(quiet).toBeLessThan(3_500);
    expect(h.sig.active()).toEqual([]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    expect(msgs[4]!.header('CSeq')).toBe('2 BYE');
    // The media timeout reported once: nothing follows the 200 OK to its BYE (300 ms, well past any handling of it).
    await quietFor(300);
    expect(h.of('c1')).toHaveLength(3);
  });

  test('held (a=sendonly): its RTCP keeps the call up; once that stops too, BYE and media_timeout', async () => {
    const s = await callee('reinvite-hold-wait-bye');
    const { plane: p, ports } = await plane();
    const h = await signaling({ media: p, mediaTimeoutSeconds: 1 });
    await h.sig.place({ key: 'c1', target: s.uri('+15551230712'), from: '+15550000000' });
    await h.waitFor('c1', 2);
    // The far end's RTCP (any datagram on our RTCP port counts as heard), every 300 ms for 2.5 s: twice the timeout.
    const rtcp = dgram.createSocket('udp4');
    cleanups.push(() => new Promise((r) => rtcp.close(() => r())));
    const port = ports.get('c1')! + 1;
    const report = Buffer.from([0x80, 0xc8, 0x00, 0x06, ...new Array(24).fill(0)]); // an RTCP sender report's shape
    const sending = setInterval(() => rtcp.send(report, port, '127.0.0.1'), 300);
    await quietFor(2_500);
    clearInterval(sending);
    const stopped = Date.now();
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered']);
    expect(await h.waitFor('c1', 3, 4_000)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
      { type: 'media_timeout' },
    ]);
    expect(h.when('c1', 'media_timeout')! - stopped).toBeGreaterThanOrEqual(700);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 200 OK', '< ACK', '> BYE', '< 200 OK']);
    // We were held: our answer to the hold said recvonly.
    expect(msgs[5]!.body).toMatch(/^a=recvonly\r?$/m);
  });
});
