import dgram from 'node:dgram';
import { randomBytes } from 'node:crypto';
import OpusScript from 'opusscript';

// A channel of speech we send to Janus (a Streaming mountpoint: a room's
// interpretation in one language): PCM encoded in Opus, 20 ms a packet, in RTP
// (payload type 111, the 48 kHz clock Opus always uses), paced in real time so
// Janus relays it as it would a microphone. Phrases queue one after another; a
// talkspurt's first packet carries the marker bit (RFC 3551 4.1).

export const CHANNEL_PT = 111;

export class ChannelSender {
  private readonly socket: dgram.Socket;
  private readonly host: string;
  private readonly port: number;
  private readonly rate: number;
  private readonly opus: OpusScript;
  private readonly ssrc = randomBytes(4).readUInt32BE(0);
  private seq = randomBytes(2).readUInt16BE(0);
  private ts = randomBytes(4).readUInt32BE(0);
  private readonly frames: Array<{ frame: Int16Array; first: boolean; done?: () => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private next = 0;
  private closed = false;
  /** Whether a phrase is being sent now. */
  get speaking(): boolean {
    return this.frames.length > 0;
  }

  constructor(host: string, port: number, rate: 8000 | 16000) {
    this.host = host;
    this.port = port;
    this.rate = rate;
    this.opus = new OpusScript(rate, 1, OpusScript.Application.VOIP);
    this.socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    this.socket.on('error', () => {});
  }

  /** Queues a phrase (16-bit mono PCM at the sender's rate); resolves once it has all been sent. */
  play(pcm: Int16Array): Promise<void> {
    if (this.closed || pcm.length === 0) return Promise.resolve();
    const n = this.rate / 50;
    return new Promise<void>((resolve) => {
      for (let at = 0; at < pcm.length; at += n) {
        const frame = new Int16Array(n);
        frame.set(pcm.subarray(at, Math.min(pcm.length, at + n)));
        this.frames.push({ frame, first: at === 0, ...(at + n >= pcm.length ? { done: resolve } : {}) });
      }
      if (!this.timer) {
        this.next = Date.now();
        this.tick();
      }
    });
  }

  private tick(): void {
    this.timer = null;
    if (this.closed) return;
    // Every frame due by now (a late timer catches up), then the next one on time.
    while (this.frames.length > 0 && this.next <= Date.now() + 1) {
      const f = this.frames.shift()!;
      this.send(f.frame, f.first);
      f.done?.();
      this.next += 20;
    }
    if (this.frames.length > 0) this.timer = setTimeout(() => this.tick(), Math.max(0, this.next - Date.now()));
  }

  private send(frame: Int16Array, marker: boolean): void {
    const payload = this.opus.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), frame.length);
    const head = Buffer.alloc(12);
    head[0] = 0x80;
    head[1] = (marker ? 0x80 : 0) | CHANNEL_PT;
    head.writeUInt16BE(this.seq, 2);
    head.writeUInt32BE(this.ts >>> 0, 4);
    head.writeUInt32BE(this.ssrc, 8);
    this.seq = (this.seq + 1) & 0xffff;
    this.ts = (this.ts + 960) >>> 0;
    this.socket.send(Buffer.concat([head, payload]), this.port, this.host);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const f of this.frames) f.done?.();
    this.frames.length = 0;
    try { this.socket.close(); } catch { /* closed */ }
    this.opus.delete();
  }
}
