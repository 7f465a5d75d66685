import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { MediaPlane } from './plane.ts';
import { dtmfPayload, parseRtp, RtpSender, type ReceivedRtp } from './rtp.ts';
import type { Negotiated } from './sdp.ts';
import { until } from '../../test/helpers/wait.ts';

// The media plane over real UDP on loopback: what a peer receives from a
// stream (numbering, codec, pacing, the audio itself), symmetric RTP, DTMF
// events, and queued utterances.

let plane: MediaPlane;
beforeAll(async () => { plane = await MediaPlane.start('127.0.0.1'); });
afterAll(async () => { await plane?.stop(); });

const remote = (port: number, o: Partial<Negotiated> = {}): Negotiated => ({
  address: '127.0.0.1', port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, ptimeMs: 20, direction: 'sendrecv', ...o,
});

/** `ms` of a sine at `hz` and amplitude `amp`, 8 kHz. */
const tone = (ms: number, hz = 440, amp = 8000) => Int16Array.from({ length: (ms * 8000) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 8000)));

/** A UDP peer on loopback that keeps what it receives, with the time of arrival. */
async function peer() {
  const sock = dgram.createSocket('udp4');
  sock.bind(0, '127.0.0.1');
  await once(sock, 'listening');
  const got: Array<{ p: ReceivedRtp; at: number; from: number }> = [];
  sock.on('message', (b, r) => { const p = parseRtp(b); if (p) got.push({ p, at: performance.now(), from: r.port }); });
  return { sock, port: sock.address().port, got, close: () => sock.close() };
}

const finished = (key: string, utterance: string) =>
  new Promise<void>((ok) => { const f = (k: string, u: string) => { if (k === key && u === utterance) { plane.off('finished', f); ok(); } }; plane.on('finished', f); });

describe('media plane', () => {
  it('speaks an utterance as paced RTP: one packet per 20 ms, numbered, PCMA as negotiated, the audio intact', async () => {
    const p = await peer();
    const { port } = await plane.open('call-1');
    expect(port % 2).toBe(0);
    await plane.connect('call-1', remote(p.port, { codec: 'PCMA', payloadType: 8 }));
    const done = finished('call-1', 'u1');
    const { queuedMs } = await plane.play('call-1', 'u1', tone(1000));
    expect(queuedMs).toBe(0);
    await done;
    await until('the last packet at the peer', async () => p.got.length >= 50, 2_000);
    const pk = p.got.map((g) => g.p);
    expect(pk).toHaveLength(50);
    expect(pk.every((x) => x.payloadType === 8 && x.payload.length === 160)).toBe(true);
    expect(pk.map((x) => x.marker)).toEqual([true, ...Array(49).fill(false)]);
    for (let i = 1; i < pk.length; i++) {
      expect((pk[i]!.seq - pk[i - 1]!.seq + 65536) % 65536).toBe(1);
      expect((pk[i]!.timestamp - pk[i - 1]!.timestamp + 2 ** 32) % 2 ** 32).toBe(160);
    }
    expect(new Set(pk.map((x) => x.ssrc)).size).toBe(1);
    // Paced, not a burst: 50 packets span about a second on the wire.
    expect(p.got.at(-1)!.at - p.got[0]!.at).toBeGreaterThan(900);
    // Sent from the stream's own port.
    expect(new Set(p.got.map((g) => g.from))).toEqual(new Set([port]));
    const stats = await plane.close('call-1');
    expect(stats).toMatchObject({ sent: 50 });
    p.close();
  });

  it('two streams talk: the far side hears the tone at its loudness; replies go where the packets came from, whatever the SDP said', async () => {
    await plane.open('a');
    const b = await plane.open('b');
    await plane.connect('a', remote(b.port));
    // b's SDP names a wrong port for a: b answers to where a's packets come from.
    await plane.connect('b', remote(9));
    const done = finished('a', 'hello');
    await plane.play('a', 'hello', tone(600, 440, 8000));
    await done;
    const back = finished('b', 'reply');
    await plane.play('b', 'reply', tone(200, 880, 4000));
    await back;
    await until('each side to have heard the other out', async () => (await plane.stats('b'))!.received >= 30 && (await plane.stats('a'))!.received >= 10, 2_000);
    const sa = (await plane.close('a'))!;
    const sb = (await plane.close('b'))!;
    expect(sb.received).toBe(30);
    expect(sa.received).toBe(10);
    // What b played out: the tone's RMS (8000 / sqrt 2), within G.711's error.
    const loud = sb.energy.filter((e) => e > 1000);
    expect(loud.length).toBeGreaterThanOrEqual(27);
    const mean = loud.reduce((x, y) => x + y, 0) / loud.length;
    expect(Math.abs(mean - 8000 / Math.SQRT2)).toBeLessThan(300);
    expect(sb.jitter).toMatchObject({ lost: 0, late: 0 });
  });

  it('queues utterances: the second waits behind the first and says how long', async () => {
    const p = await peer();
    await plane.open('q');
    await plane.connect('q', remote(p.port));
    const order: string[] = [];
    const onStart = (k: string, u: string) => { if (k === 'q') order.push(u); };
    plane.on('started', onStart);
    const first = await plane.play('q', 'one', tone(400));
    const second = await plane.play('q', 'two', tone(200));
    expect(first.queuedMs).toBe(0);
    expect(second.queuedMs).toBeGreaterThan(300);
    expect(second.queuedMs).toBeLessThanOrEqual(400);
    await finished('q', 'two');
    await until('the last packet at the peer', async () => p.got.length >= 30, 2_000);
    plane.off('started', onStart);
    expect(order).toEqual(['one', 'two']);
    // Back to back, one talkspurt: the marker on its first packet only, the numbering unbroken.
    expect(p.got.map((g) => g.p.marker)).toEqual([true, ...Array(29).fill(false)]);
    expect(p.got).toHaveLength(30);
    await plane.close('q');
    p.close();
  });

  it('hears DTMF (RFC 4733): one digit per event, however often its end is repeated', async () => {
    const { port } = await plane.open('d');
    await plane.connect('d', remote(9));
    const digits: string[] = [];
    const onDtmf = (k: string, d: string) => { if (k === 'd') digits.push(d); };
    plane.on('dtmf', onDtmf);
    const sock = dgram.createSocket('udp4');
    const s = new RtpSender(101);
    const send = (b: Buffer) => new Promise<void>((ok) => sock.send(b, port, '127.0.0.1', () => ok()));
    for (const [n, digit] of ['7', '#'].entries()) {
      // One event: updates with the same timestamp, then the end three times.
      const start = new RtpSender(101, { ssrc: s.ssrc, seq: n * 10 + 1, ts: 1000 + n * 8000 });
      for (const d of [160, 320, 480]) await send(start.packet(dtmfPayload(digit, { end: false, duration: d }), 0));
      for (let i = 0; i < 3; i++) await send(start.packet(dtmfPayload(digit, { end: true, duration: 640 }), 0));
      // Every packet of the event in before the next one's: the plane counts each it takes, and reports a digit before counting on.
      await until(`the ${digit} event's 6 packets taken`, async () => (await plane.stats('d'))!.received >= (n + 1) * 6, 2_000);
    }
    plane.off('dtmf', onDtmf);
    sock.close();
    expect(digits).toEqual(['7', '#']);
    await plane.close('d');
  });
});
