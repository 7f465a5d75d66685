import { describe, expect, it } from 'vitest';
import { JitterBuffer, seqDistance, type Frame } from './jitter.ts';

// The receive side's jitter buffer: what the playout clock gets, tick by tick,
// from packets that arrive out of order, twice, late, never, or across the
// 16-bit wrap of the sequence number.

const f = (seq: number): Frame => ({ seq, timestamp: seq * 160, payload: Buffer.from([seq & 0xff]) });
/** n ticks of the playout clock: each frame's seq, null for a gap, undefined before playout. */
const ticks = (jb: JitterBuffer, n: number) => Array.from({ length: n }, () => { const x = jb.pop(); return x === undefined ? undefined : x === null ? null : x.seq; });

describe('jitter buffer', () => {
  it('holds `depth` frames before playing, then plays in order', () => {
    const jb = new JitterBuffer({ depth: 3 });
    jb.push(f(1));
    jb.push(f(2));
    expect(ticks(jb, 1)).toEqual([undefined]);
    jb.push(f(3));
    jb.push(f(4));
    expect(ticks(jb, 4)).toEqual([1, 2, 3, 4]);
    expect(jb.stats).toMatchObject({ received: 4, played: 4, lost: 0 });
  });

  it('puts reordered packets back in order', () => {
    const jb = new JitterBuffer({ depth: 2 });
    for (const s of [10, 12, 11, 14, 13]) jb.push(f(s));
    expect(ticks(jb, 5)).toEqual([10, 11, 12, 13, 14]);
    expect(jb.stats.reordered).toBe(2);
  });

  it('reports a frame that never came as a gap, once, and goes on', () => {
    const jb = new JitterBuffer({ depth: 2 });
    for (const s of [1, 2, 4, 5]) jb.push(f(s));
    expect(ticks(jb, 4)).toEqual([1, 2, null, 4]);
    expect(ticks(jb, 1)).toEqual([5]);
    expect(jb.stats).toMatchObject({ lost: 1, played: 4 });
  });

  it('drops a packet that comes after its frame was played (late) and one that came before (duplicate)', () => {
    const jb = new JitterBuffer({ depth: 2 });
    for (const s of [1, 2, 3]) jb.push(f(s));
    expect(ticks(jb, 1)).toEqual([1]);
    jb.push(f(1));
    jb.push(f(3));
    expect(ticks(jb, 2)).toEqual([2, 3]);
    expect(jb.stats).toMatchObject({ late: 1, duplicate: 1, received: 3 });
  });

  it('crosses the wrap of the sequence number (65535 → 0) in order', () => {
    const jb = new JitterBuffer({ depth: 3 });
    for (const s of [65534, 0, 65535, 1, 2]) jb.push(f(s));
    expect(ticks(jb, 5)).toEqual([65534, 65535, 0, 1, 2]);
    expect(seqDistance(65535, 0)).toBe(1);
    expect(seqDistance(0, 65535)).toBe(-1);
  });

  it('an empty buffer (the peer paused) is a gap that loses nothing; the stream resumes where it left', () => {
    const jb = new JitterBuffer({ depth: 1 });
    jb.push(f(7));
    expect(ticks(jb, 3)).toEqual([7, null, null]);
    jb.push(f(8));
    expect(ticks(jb, 1)).toEqual([8]);
    expect(jb.stats.lost).toBe(0);
  });

  it('holds at most `max` frames: a burst after a stall drops the oldest', () => {
    const jb = new JitterBuffer({ depth: 2, max: 5 });
    jb.push(f(1));
    jb.push(f(2));
    expect(ticks(jb, 1)).toEqual([1]);
    for (let s = 3; s <= 20; s++) jb.push(f(s));
    expect(jb.size).toBeLessThanOrEqual(5);
    expect(jb.stats.dropped).toBe(14);
    expect(ticks(jb, 5)).toEqual([16, 17, 18, 19, 20]);
  });
});
