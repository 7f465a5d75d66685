import { encodeG711, FRAME_SAMPLES } from './rtp.ts';
import { mix } from './bed.ts';
import type { Negotiated } from './sdp.ts';

// What the media plane sends (plane-worker.ts): the utterances queued on a
// stream, each cut into 20 ms G.711 frames as it goes out, a frame a tick.
// Framed when sent, not when queued: a call often ends before what it was
// saying does (a callee hangs up over the AI disclosure), and the frames it
// never sent were then encoded and measured for nothing (a fifth of the
// media thread's work per call at 200 calls/s).

/** A frame leaving now. */
export type Outgoing = {
  frame: Uint8Array;
  utterance: string;
  /** The utterance's last frame: `finished` is told when it is sent. */
  last: boolean;
  /** The RMS of the audio it carries (what we send, for telling our own echo). */
  rms: number;
  interruptible: boolean;
};

/** A part of an utterance queued (a play), with how far it has gone out. */
type Piece = {
  pcm: Int16Array;
  codec: Negotiated['codec'];
  utterance: string;
  /** The utterance goes on in the next play: none of this piece's frames ends it. */
  more: boolean;
  interruptible: boolean;
  /** Frames in it (the last one padded with G.711 silence) and frames already sent. */
  frames: number;
  sent: number;
};

/** The RMS of the frame of `pcm` from `at`. */
function rmsOf(pcm: Int16Array, at: number): number {
  const end = Math.min(pcm.length, at + FRAME_SAMPLES);
  let sum = 0;
  for (let i = at; i < end; i++) sum += pcm[i]! * pcm[i]!;
  return end > at ? Math.sqrt(sum / (end - at)) : 0;
}

/** What a stream is to say, in order. */
export class OutgoingQueue {
  private pieces: Piece[] = [];
  private left = 0;

  /** Frames still to send (each is 20 ms). */
  get frames(): number {
    return this.left;
  }

  /** Whether the frame that goes out next may be talked over (none queued: false). */
  get nextInterruptible(): boolean {
    return this.pieces[0]?.interruptible === true;
  }

  /** `pcm` (8 kHz) to be sent in `codec` after what is queued; `more`: the utterance goes on in a later play. */
  push(codec: Negotiated['codec'], pcm: Int16Array, utterance: string, o: { more: boolean; interruptible: boolean }): void {
    const frames = Math.ceil(pcm.length / FRAME_SAMPLES);
    if (frames === 0) return;
    this.pieces.push({ pcm, codec, utterance, more: o.more, interruptible: o.interruptible, frames, sent: 0 });
    this.left += frames;
  }

  /**
   * The next frame, taken off the queue: `bed` (a frame of 8 kHz PCM, or null) mixed under it,
   * its RMS that of the utterance's own audio.
   */
  shift(bed: Int16Array | null = null): Outgoing | undefined {
    const p = this.pieces[0];
    if (!p) return undefined;
    const at = p.sent * FRAME_SAMPLES;
    const samples = p.pcm.subarray(at, at + FRAME_SAMPLES);
    const rms = rmsOf(p.pcm, at);
    let frame: Uint8Array;
    if (samples.length === FRAME_SAMPLES && !bed) frame = encodeG711(p.codec, samples);
    else {
      // The last frame padded with silence, or the bed summed under this one.
      const whole = new Int16Array(FRAME_SAMPLES);
      whole.set(samples);
      frame = encodeG711(p.codec, bed ? mix(whole, bed) : whole);
    }
    p.sent++;
    this.left--;
    const last = p.sent === p.frames;
    if (last) this.pieces.shift();
    return { frame, utterance: p.utterance, last: last && !p.more, rms, interruptible: p.interruptible };
  }

  /** Drops every utterance that may be talked over, under way or queued; answers which went. */
  dropInterruptible(): Set<string> {
    const gone = new Set<string>();
    this.pieces = this.pieces.filter((p) => {
      if (!p.interruptible) return true;
      gone.add(p.utterance);
      this.left -= p.frames - p.sent;
      return false;
    });
    return gone;
  }
}
