import { encodeG711, FRAME_SAMPLES } from './rtp.ts';
import type { Negotiated } from './sdp.ts';

// What the media plane sends (plane-worker.ts): an utterance as the 20 ms
// G.711 frames it queues, each knowing its utterance, whether it ends it,
// its loudness and whether talking over it stops it.

/** A frame waiting to be sent. */
export type Outgoing = {
  frame: Uint8Array;
  utterance: string;
  /** The utterance's last frame: `finished` is told when it is sent. */
  last: boolean;
  /** The RMS of the audio it carries (what we send, for telling our own echo). */
  rms: number;
  interruptible: boolean;
};

/** The RMS of the frame of `pcm` from `at`. */
function rmsOf(pcm: Int16Array, at: number): number {
  const end = Math.min(pcm.length, at + FRAME_SAMPLES);
  let sum = 0;
  for (let i = at; i < end; i++) sum += pcm[i]! * pcm[i]!;
  return end > at ? Math.sqrt(sum / (end - at)) : 0;
}

/**
 * `pcm` (8 kHz) as whole frames in `codec`, the last one padded with G.711
 * silence; each frame a view of one buffer. `more`: the utterance goes on in
 * the next play (a long phrase spoken part by part), so none of these ends it.
 */
export function framesOf(codec: Negotiated['codec'], pcm: Int16Array, utterance: string, o: { more: boolean; interruptible: boolean }): Outgoing[] {
  const bytes = encodeG711(codec, pcm);
  const frames = Math.ceil(bytes.length / FRAME_SAMPLES);
  const all = new Uint8Array(frames * FRAME_SAMPLES).fill(codec === 'PCMU' ? 0xff : 0xd5);
  all.set(bytes);
  const out: Outgoing[] = [];
  for (let i = 0; i < frames; i++) {
    out.push({
      frame: all.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES), utterance, last: !o.more && i === frames - 1,
      rms: rmsOf(pcm, i * FRAME_SAMPLES), interruptible: o.interruptible,
    });
  }
  return out;
}
