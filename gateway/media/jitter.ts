// A receive jitter buffer for one RTP stream: packets arrive out of order,
// twice, late or never; the playout clock takes one 20 ms frame at a time, in
// sequence order, after a small fixed delay. Frames that never came are
// reported as lost (the caller conceals them with silence); a packet arriving
// after its frame was played is late and dropped. Sequence numbers wrap at
// 2^16: order is decided by the signed 16-bit distance (RFC 3550 appendix A.1).

export type Frame = { seq: number; timestamp: number; payload: Buffer };

export type JitterStats = { received: number; played: number; lost: number; late: number; duplicate: number; reordered: number; dropped: number };

/** Signed distance from a to b in 16-bit sequence space (-32768..32767). */
export function seqDistance(a: number, b: number): number {
  return ((b - a + 32768) & 0xffff) - 32768;
}

export class JitterBuffer {
  private readonly depth: number;
  private readonly max: number;
  private frames = new Map<number, Frame>();
  /** The next sequence number to play; null until playout starts. */
  private next: number | null = null;
  /** The highest sequence number received so far (for counting reordering). */
  private highest: number | null = null;
  readonly stats: JitterStats = { received: 0, played: 0, lost: 0, late: 0, duplicate: 0, reordered: 0, dropped: 0 };

  /**
   * @param depth frames held before playout starts (3 = 60 ms of delay)
   * @param max frames held at most; beyond it the oldest are dropped (counted as `dropped`)
   */
  constructor(o: { depth?: number; max?: number } = {}) {
    this.depth = Math.max(1, o.depth ?? 3);
    this.max = Math.max(this.depth + 1, o.max ?? 50);
  }

  push(frame: Frame): void {
    const seq = frame.seq & 0xffff;
    if (this.next !== null && seqDistance(this.next, seq) < 0) {
      this.stats.late++;
      return;
    }
    if (this.frames.has(seq)) {
      this.stats.duplicate++;
      return;
    }
    this.stats.received++;
    if (this.highest !== null && seqDistance(this.highest, seq) < 0) this.stats.reordered++;
    else this.highest = seq;
    this.frames.set(seq, { ...frame, seq });
    // Too far behind (a burst after a stall): skip ahead to the oldest frame we may keep.
    if (this.frames.size > this.max && this.next !== null) {
      while (this.frames.size > this.max) this.advance(true);
    }
  }

  /** Frames held now. */
  get size(): number {
    return this.frames.size;
  }

  /**
   * One tick of the playout clock: the next frame in order; null when it is
   * missing (lost, or nothing to play), undefined before playout has started.
   */
  pop(): Frame | null | undefined {
    if (this.next === null) {
      if (this.frames.size < this.depth) return undefined;
      // Start with the earliest frame held.
      let first: number | null = null;
      for (const s of this.frames.keys()) if (first === null || seqDistance(first, s) < 0) first = s;
      this.next = first;
    }
    if (this.frames.size === 0) return null; // an underrun: the stream paused, nothing is lost yet
    return this.advance(false);
  }

  private advance(dropping: boolean): Frame | null {
    const seq = this.next!;
    this.next = (seq + 1) & 0xffff;
    const f = this.frames.get(seq);
    if (!f) {
      this.stats.lost++;
      return null;
    }
    this.frames.delete(seq);
    if (dropping) {
      this.stats.dropped++;
      return null;
    }
    this.stats.played++;
    return f;
  }
}
