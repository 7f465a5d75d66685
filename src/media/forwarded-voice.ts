import dgram from 'node:dgram';
import OpusScript from 'opusscript';

// One person's voice as Janus forwards it to us (VideoRoom rtp_forward): Opus in
// RTP over UDP, to a port of ours on the address Janus reached us from. Decoded
// at 16 kHz (Opus decodes to any of its rates: no resampling), mono, and handed
// on in 20 ms frames of 16-bit PCM, what rooms/audio.ts reads from a page's
// WebSocket. A packet lost is a frame missing (the phrase's timing shifts by
// 20 ms; voice activity and the recognizer do not notice); packets from any
// other sender than the one Janus uses are dropped once the first has come.

export const VOICE_RATE = 16_000;
const FRAME_SAMPLES = VOICE_RATE / 50;

/** The payload of an RTP packet (RFC 3550 5.1: CSRCs, header extension and padding skipped), or null. */
export function rtpPayload(b: Buffer): Buffer | null {
  if (b.length < 12 || b[0]! >> 6 !== 2) return null;
  let at = 12 + (b[0]! & 0x0f) * 4;
  if (b[0]! & 0x10) {
    if (b.length < at + 4) return null;
    at += 4 + b.readUInt16BE(at + 2) * 4;
  }
  let end = b.length;
  if (b[0]! & 0x20) end -= b[b.length - 1]!;
  return at < end ? b.subarray(at, end) : null;
}

export class ForwardedVoice {
  private readonly socket: dgram.Socket;
  private readonly opus = new OpusScript(VOICE_RATE, 1, OpusScript.Application.VOIP);
  private from: string | null = null;
  private pending: Buffer = Buffer.alloc(0);
  private closed = false;
  /** Packets taken, for the logs. */
  packets = 0;

  private constructor(socket: dgram.Socket, onPcm: (pcm: Buffer) => void) {
    this.socket = socket;
    socket.on('message', (msg, rinfo) => {
      const sender = `${rinfo.address}:${rinfo.port}`;
      if (this.from === null) this.from = sender;
      else if (sender !== this.from) return;
      const payload = rtpPayload(msg);
      if (!payload) return;
      let pcm: Buffer;
      try {
        pcm = this.opus.decode(payload);
      } catch {
        return; // not Opus: nothing to hear
      }
      this.packets++;
      // (Copied: the decoder's answer may be a view of its memory, which the next packet overwrites.)
      this.pending = Buffer.concat([this.pending, pcm]);
      const whole = this.pending.length - (this.pending.length % (FRAME_SAMPLES * 2));
      if (whole > 0) {
        onPcm(Buffer.from(this.pending.subarray(0, whole)));
        this.pending = Buffer.from(this.pending.subarray(whole));
      }
    });
    socket.on('error', () => this.close());
  }

  /** A socket on `address` (where Janus reaches us), on a free port. */
  static async open(address: string, onPcm: (pcm: Buffer) => void): Promise<ForwardedVoice> {
    const socket = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, address, () => { socket.off('error', reject); resolve(); });
    });
    return new ForwardedVoice(socket, onPcm);
  }

  get port(): number {
    return this.socket.address().port;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try { this.socket.close(); } catch { /* closed */ }
    this.opus.delete();
  }
}
