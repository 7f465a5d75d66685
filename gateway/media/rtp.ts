import { randomInt } from 'node:crypto';
import { RtpPacket, SenderReportPacket, isRtp, isRtcp } from 'rtp.js/packets';
import { nodeBufferToDataView, dataViewToNodeBuffer } from 'rtp.js/utils';
import { createRequire } from 'node:module';
import { CLOCK_RATE, PTIME_MS, type Codec } from './sdp.ts';

// alawmulaw's ESM entry has no named exports under plain Node (a worker thread
// loads this file without a bundler): its CommonJS build, the same everywhere.
const { alaw, mulaw } = createRequire(import.meta.url)('alawmulaw') as typeof import('alawmulaw');

// RTP for the gateway's audio (RFC 3550), packets by rtp.js: G.711 at 8 kHz,
// 20 ms (160 samples, 160 bytes) a packet. Pacing is the caller's (a worker
// thread's monotonic clock); this file keeps a stream's numbering right.

/** Samples (and G.711 bytes) in one 20 ms packet. */
export const FRAME_SAMPLES = (CLOCK_RATE * PTIME_MS) / 1000;

/**
 * alawmulaw's encoding of every 16-bit sample, indexed by the sample's bits
 * (sample & 0xffff): encoding a phrase is then one table look-up a sample,
 * the same bytes as the library's per-sample arithmetic at a fraction of its
 * cost (every call's AI disclosure is encoded whole when it is played).
 */
function encodingTable(encode: (pcm: Int16Array) => Uint8Array): Uint8Array {
  const every = new Int16Array(65536);
  for (let i = 0; i < 65536; i++) every[i] = (i << 16) >> 16;
  return encode(every);
}
const ENCODE = { PCMU: encodingTable((p) => mulaw.encode(p)), PCMA: encodingTable((p) => alaw.encode(p)) };

/** 16-bit linear PCM at 8 kHz to G.711 bytes. */
export function encodeG711(codec: Codec, pcm: Int16Array): Uint8Array {
  const table = ENCODE[codec];
  const out = new Uint8Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = table[pcm[i]! & 0xffff]!;
  return out;
}

/** G.711 bytes to 16-bit linear PCM at 8 kHz. */
export function decodeG711(codec: Codec, bytes: Uint8Array): Int16Array {
  return codec === 'PCMU' ? mulaw.decode(bytes) : alaw.decode(bytes);
}

/** Seconds between 1900 (NTP's epoch) and 1970. */
const NTP_EPOCH_OFFSET = 2_208_988_800;

/**
 * One outgoing RTP stream: a random SSRC, sequence number and timestamp to
 * start (RFC 3550 section 5.1), the sequence stepping by one per packet and
 * the timestamp by the samples each packet holds, also across silence that is
 * not sent. Counts what it sent, for RTCP sender reports.
 */
export class RtpSender {
  readonly ssrc: number;
  readonly payloadType: number;
  private seq: number;
  private ts: number;
  private packets = 0;
  private octets = 0;
  /** The next packet starts a talkspurt (marker bit, RFC 3551 section 4.1). */
  private talkspurt = true;

  constructor(payloadType: number, start: { ssrc?: number; seq?: number; ts?: number } = {}) {
    this.payloadType = payloadType;
    this.ssrc = start.ssrc ?? randomInt(0, 2 ** 32);
    this.seq = start.seq ?? randomInt(0, 2 ** 16);
    this.ts = start.ts ?? randomInt(0, 2 ** 32);
  }

  /** The packet of one frame of audio, and the stream moves on by its samples. */
  packet(payload: Uint8Array, samples = payload.length): Buffer {
    const p = new RtpPacket();
    p.setPayloadType(this.payloadType);
    p.setSequenceNumber(this.seq);
    p.setTimestamp(this.ts);
    p.setSsrc(this.ssrc);
    p.setMarker(this.talkspurt);
    p.setPayload(nodeBufferToDataView(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)));
    const out = Buffer.from(dataViewToNodeBuffer(p.getView()));
    this.talkspurt = false;
    this.seq = (this.seq + 1) % 2 ** 16;
    this.ts = (this.ts + samples) % 2 ** 32;
    this.packets++;
    this.octets += payload.byteLength;
    return out;
  }

  /**
   * Time passes without packets (silence not sent, or a pause between
   * utterances): the timestamp moves on, and the next packet starts a talkspurt.
   */
  skip(samples: number): void {
    this.ts = (this.ts + samples) % 2 ** 32;
    this.talkspurt = true;
  }

  /** An RTCP sender report (RFC 3550 section 6.4.1) for the moment `wallMs` (Unix ms), at the stream's current timestamp. */
  senderReport(wallMs: number = Date.now()): Buffer {
    const sr = new SenderReportPacket();
    sr.setSsrc(this.ssrc);
    const seconds = Math.floor(wallMs / 1000);
    sr.setNtpSeconds((seconds + NTP_EPOCH_OFFSET) >>> 0);
    sr.setNtpFraction(Math.floor(((wallMs % 1000) / 1000) * 2 ** 32) >>> 0);
    sr.setRtpTimestamp(this.ts);
    sr.setPacketCount(this.packets >>> 0);
    sr.setOctetCount(this.octets >>> 0);
    return Buffer.from(dataViewToNodeBuffer(sr.getView()));
  }

  get sent(): { packets: number; octets: number } {
    return { packets: this.packets, octets: this.octets };
  }
}

export type ReceivedRtp = { payloadType: number; seq: number; timestamp: number; ssrc: number; marker: boolean; payload: Buffer };

/** An RTP packet from the wire, or null for anything else (RTCP on the same port, garbage). */
export function parseRtp(buf: Buffer): ReceivedRtp | null {
  const view = nodeBufferToDataView(buf);
  if (!isRtp(view) || isRtcp(view)) return null;
  let p: RtpPacket;
  try {
    p = new RtpPacket(view);
  } catch {
    return null;
  }
  return {
    payloadType: p.getPayloadType(),
    seq: p.getSequenceNumber(),
    timestamp: p.getTimestamp(),
    ssrc: p.getSsrc(),
    marker: p.getMarker(),
    payload: Buffer.from(dataViewToNodeBuffer(p.getPayload())),
  };
}

/** A DTMF event of RFC 4733 section 2.3 (telephone-event payload). */
export type DtmfEvent = { digit: string; end: boolean; volume: number; duration: number };

const DTMF_DIGITS = '0123456789*#ABCD';

/** The telephone-event payload, or null when it is not one of the 16 DTMF events. */
export function parseDtmf(payload: Buffer): DtmfEvent | null {
  if (payload.length < 4) return null;
  const event = payload[0]!;
  if (event >= DTMF_DIGITS.length) return null;
  return { digit: DTMF_DIGITS[event]!, end: (payload[1]! & 0x80) !== 0, volume: payload[1]! & 0x3f, duration: payload.readUInt16BE(2) };
}

/** A telephone-event payload for a digit (tests send DTMF with it). */
export function dtmfPayload(digit: string, o: { end: boolean; duration: number; volume?: number }): Buffer {
  const event = DTMF_DIGITS.indexOf(digit.toUpperCase());
  if (event < 0 || digit.length !== 1) throw new Error(`not a DTMF digit: ${digit}`);
  const b = Buffer.alloc(4);
  b[0] = event;
  b[1] = (o.end ? 0x80 : 0) | ((o.volume ?? 10) & 0x3f);
  b.writeUInt16BE(o.duration & 0xffff, 2);
  return b;
}
