import { describe, expect, it } from 'vitest';
import * as sdpTransform from 'sdp-transform';
import { SenderReportPacket } from 'rtp.js/packets';
import { nodeBufferToDataView } from 'rtp.js/utils';
import { answer, negotiate, offer, SdpError } from './sdp.ts';
import { createRequire } from 'node:module';
import { decodeG711, dtmfPayload, encodeG711, FRAME_SAMPLES, parseDtmf, parseRtp, RtpSender } from './rtp.ts';

// The media building blocks on their own: what our SDP says and how we read
// a peer's, the numbering of an RTP stream and its sender reports, G.711 and
// DTMF events. The calls tests drive them against SIPp and baresip.

// The G.711 library the gateway's table is built from, as rtp.ts loads it (CommonJS).
const { alaw, mulaw } = createRequire(import.meta.url)('alawmulaw') as typeof import('alawmulaw');

const CRLF = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** SIPp's uas answer (its scenario's SDP): PCMU only. */
const SIPP_ANSWER = CRLF([
  'v=0', 'o=user1 53655765 2353687637 IN IP4 127.0.0.2', 's=-', 'c=IN IP4 127.0.0.2', 't=0 0',
  'm=audio 6000 RTP/AVP 0', 'a=rtpmap:0 PCMU/8000',
]);

/** A softphone's offer: Opus first, then G.711, telephone-event at both rates, the address on the media line. */
const SOFTPHONE_OFFER = CRLF([
  'v=0', 'o=- 1179340416 3862187180 IN IP4 10.0.0.5', 's=-', 'c=IN IP4 10.0.0.5', 't=0 0',
  'm=audio 40112 RTP/AVP 96 8 0 101 102', 'c=IN IP4 192.0.2.44',
  'a=rtpmap:96 opus/48000/2', 'a=rtpmap:8 PCMA/8000', 'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:101 telephone-event/48000', 'a=rtpmap:102 telephone-event/8000', 'a=fmtp:102 0-15',
  'a=ptime:30', 'a=sendrecv',
]);

describe('SDP', () => {
  it('our offer: PCMU, PCMA and telephone-event/8000 in 20 ms packets, ASCII, readable by a parser and by ourselves', () => {
    const text = offer({ host: '127.0.0.1', port: 40000, sessionId: '4242' });
    expect(text).toMatch(/^[\x20-\x7e\r\n]+$/);
    expect(text.endsWith('\r\n')).toBe(true);
    const m = sdpTransform.parse(text).media[0]!;
    expect(m).toMatchObject({ type: 'audio', port: 40000, protocol: 'RTP/AVP', payloads: '0 8 101', ptime: 20, direction: 'sendrecv' });
    expect(m.rtp.map((r) => `${r.payload} ${r.codec}/${r.rate}`)).toEqual(['0 PCMU/8000', '8 PCMA/8000', '101 telephone-event/8000']);
    expect(negotiate(text)).toMatchObject({ address: '127.0.0.1', port: 40000, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, ptimeMs: 20 });
  });

  it('reads an answer that takes PCMU only and has no telephone-event', () => {
    expect(negotiate(SIPP_ANSWER)).toEqual({ address: '127.0.0.2', port: 6000, codec: 'PCMU', payloadType: 0, dtmfPayloadType: null, ptimeMs: 20, direction: 'sendrecv' });
  });

  it('reads an offer by its order of preference: the first G.711 (PCMA here, past Opus), the 8 kHz telephone-event, the media line\'s address', () => {
    const n = negotiate(SOFTPHONE_OFFER);
    expect(n).toEqual({ address: '192.0.2.44', port: 40112, codec: 'PCMA', payloadType: 8, dtmfPayloadType: 102, ptimeMs: 30, direction: 'sendrecv' });
    // Our answer keeps that codec and the peer's telephone-event type.
    const a = sdpTransform.parse(answer({ host: '127.0.0.1', port: 40002, sessionId: '7' }, n)).media[0]!;
    expect(a.payloads).toBe('8 102');
    expect(a.rtp.map((r) => r.codec)).toEqual(['PCMA', 'telephone-event']);
  });

  it('takes static payload types without an rtpmap, as RFC 3551 names them', () => {
    const bare = CRLF(['v=0', 'o=- 1 1 IN IP4 127.0.0.9', 's=-', 'c=IN IP4 127.0.0.9', 't=0 0', 'm=audio 7000 RTP/AVP 8']);
    expect(negotiate(bare)).toMatchObject({ codec: 'PCMA', payloadType: 8, port: 7000 });
  });

  it('refuses what it cannot speak: no audio, a disabled stream, no G.711, no address', () => {
    const cases: Array<[string, RegExp]> = [
      [CRLF(['v=0', 'o=- 1 1 IN IP4 1.2.3.4', 's=-', 'c=IN IP4 1.2.3.4', 't=0 0', 'm=video 5000 RTP/AVP 96', 'a=rtpmap:96 H264/90000']), /no active RTP\/AVP audio/],
      [SIPP_ANSWER.replace('m=audio 6000', 'm=audio 0'), /no active RTP\/AVP audio/],
      [CRLF(['v=0', 'o=- 1 1 IN IP4 1.2.3.4', 's=-', 'c=IN IP4 1.2.3.4', 't=0 0', 'm=audio 5000 RTP/AVP 96', 'a=rtpmap:96 opus/48000/2']), /no G\.711 codec among payload types 96/],
      [CRLF(['v=0', 'o=- 1 1 IN IP4 1.2.3.4', 's=-', 't=0 0', 'm=audio 5000 RTP/AVP 0']), /no connection address/],
    ];
    for (const [text, message] of cases) {
      expect(() => negotiate(text)).toThrow(SdpError);
      expect(() => negotiate(text)).toThrow(message);
    }
  });
});

describe('RTP', () => {
  it('numbers a stream: one SSRC, sequence +1 and timestamp +160 a packet, the marker on the first packet of each talkspurt', () => {
    const s = new RtpSender(0, { ssrc: 0x11223344, seq: 65534, ts: 2 ** 32 - 160 });
    const frame = new Uint8Array(FRAME_SAMPLES).fill(0xff);
    const got = [s.packet(frame), s.packet(frame), s.packet(frame)].map((b) => parseRtp(b)!);
    expect(got.map((p) => p.seq)).toEqual([65534, 65535, 0]);
    expect(got.map((p) => p.timestamp)).toEqual([2 ** 32 - 160, 0, 160]);
    expect(got.map((p) => p.marker)).toEqual([true, false, false]);
    expect(new Set(got.map((p) => p.ssrc))).toEqual(new Set([0x11223344]));
    expect(got.every((p) => p.payloadType === 0 && p.payload.length === 160 && p.payload.every((x) => x === 0xff))).toBe(true);
    // Half a second of silence not sent: the clock runs on, the next packet marks a new talkspurt.
    s.skip(4000);
    const after = parseRtp(s.packet(frame))!;
    expect(after).toMatchObject({ seq: 1, timestamp: 320 + 4000, marker: true });
    expect(s.sent).toEqual({ packets: 4, octets: 640 });
  });

  it('starts each stream at random (RFC 3550 section 5.1)', () => {
    const a = parseRtp(new RtpSender(8).packet(new Uint8Array(160)))!;
    const b = parseRtp(new RtpSender(8).packet(new Uint8Array(160)))!;
    expect([a.ssrc, a.seq, a.timestamp]).not.toEqual([b.ssrc, b.seq, b.timestamp]);
  });

  it('sends sender reports with the NTP time, the stream\'s timestamp and its counts; an RTCP packet is not read as RTP', () => {
    const s = new RtpSender(0, { ssrc: 7, seq: 1, ts: 1000 });
    for (let i = 0; i < 5; i++) s.packet(new Uint8Array(160));
    const wall = Date.UTC(2026, 10, 23, 12, 0, 0, 500);
    const buf = s.senderReport(wall);
    const sr = new SenderReportPacket(nodeBufferToDataView(buf));
    expect(sr.getSsrc()).toBe(7);
    expect(sr.getNtpSeconds()).toBe(wall / 1000 - 0.5 + 2_208_988_800);
    expect(sr.getNtpFraction()).toBe(2 ** 31);
    expect(sr.getRtpTimestamp()).toBe(1800);
    expect(sr.getPacketCount()).toBe(5);
    expect(sr.getOctetCount()).toBe(800);
    expect(parseRtp(buf)).toBeNull();
    expect(parseRtp(Buffer.from('not a packet'))).toBeNull();
  });
});

describe('G.711', () => {
  it('carries a 1 kHz tone through PCMU and PCMA with a signal-to-noise ratio over 30 dB', () => {
    const pcm = Int16Array.from({ length: 8000 }, (_, i) => Math.round(12_000 * Math.sin((2 * Math.PI * 1000 * i) / 8000 + 0.3)));
    for (const codec of ['PCMU', 'PCMA'] as const) {
      const bytes = encodeG711(codec, pcm);
      expect(bytes.length).toBe(8000);
      const back = decodeG711(codec, bytes);
      let signal = 0;
      let noise = 0;
      for (let i = 0; i < pcm.length; i++) {
        signal += pcm[i]! ** 2;
        noise += (pcm[i]! - back[i]!) ** 2;
      }
      expect(10 * Math.log10(signal / noise), codec).toBeGreaterThan(30);
    }
  });

  it('encodes every one of the 65,536 samples to the byte ITU-T G.711 gives (alawmulaw, sample by sample)', () => {
    const every = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    for (const codec of ['PCMU', 'PCMA'] as const) {
      const ours = encodeG711(codec, every);
      const lib = codec === 'PCMU' ? mulaw.encode(every) : alaw.encode(every);
      expect(Buffer.from(ours).equals(Buffer.from(lib)), codec).toBe(true);
      // Spot checks from the standard's tables: silence, and the ends of the range.
      const at = (x: number) => ours[x + 32768]!;
      expect([at(0), at(32767), at(-32768)]).toEqual(codec === 'PCMU' ? [0xff, 0x80, 0x00] : [0xd5, 0xaa, 0x2a]);
    }
  });
});

describe('DTMF (RFC 4733)', () => {
  it('reads the 16 events, their end bit, volume and duration; refuses other events', () => {
    for (const digit of '0123456789*#ABCD') {
      expect(parseDtmf(dtmfPayload(digit, { end: false, duration: 160 }))).toEqual({ digit, end: false, volume: 10, duration: 160 });
    }
    expect(parseDtmf(dtmfPayload('5', { end: true, duration: 1280, volume: 7 }))).toEqual({ digit: '5', end: true, volume: 7, duration: 1280 });
    expect(parseDtmf(Buffer.from([16, 0x80, 0, 160]))).toBeNull();
    expect(parseDtmf(Buffer.from([1, 2]))).toBeNull();
  });
});
