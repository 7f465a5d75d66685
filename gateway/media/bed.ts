import { FRAME_SAMPLES } from './rtp.ts';

// The bed of a media plane stream (plane.ts bed): audio mixed under what the stream plays (a
// room's own voices for a phone participant), one queue of 20 ms frames per source, a frame of
// each summed at every tick. A source that runs ahead is cut to BED_MAX_FRAMES, never delayed.

/** Frames of the bed kept per source (200 ms): more, and the oldest go. */
export const BED_MAX_FRAMES = 10;

export type Beds = Map<string, Int16Array[]>;

/** `pcm` (8 kHz, whole 20 ms frames) from `source` onto its queue. */
export function layBed(beds: Beds, source: string, pcm: Int16Array): void {
  let q = beds.get(source);
  if (!q) beds.set(source, (q = []));
  for (let i = 0; i + FRAME_SAMPLES <= pcm.length; i += FRAME_SAMPLES) q.push(pcm.subarray(i, i + FRAME_SAMPLES));
  if (q.length > BED_MAX_FRAMES) q.splice(0, q.length - BED_MAX_FRAMES);
}

/** One frame of each source's queue, summed (null when every queue is empty; an empty queue goes). */
export function bedFrame(beds: Beds): Int16Array | null {
  let out: Int16Array | null = null;
  for (const [source, q] of beds) {
    const f = q.shift();
    if (!f) {
      beds.delete(source);
      continue;
    }
    out = out ? mix(out, f) : Int16Array.from(f);
  }
  return out;
}

/** a + b, clipped to 16 bits (into a). */
export function mix(a: Int16Array, b: Int16Array): Int16Array {
  for (let i = 0; i < a.length && i < b.length; i++) a[i] = Math.max(-32768, Math.min(32767, a[i]! + b[i]!));
  return a;
}
