import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { OutgoingQueue } from './outgoing.ts';

// What a stream sends, framed as it goes out: the bytes on the wire are the
// phrase's G.711 (alawmulaw's own encoding, the last frame padded with
// silence), in order, whatever was queued behind it.

const { mulaw, alaw } = createRequire(import.meta.url)('alawmulaw') as typeof import('alawmulaw');

function tone(samples: number, hz = 440, amp = 8000): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 8000)));
}

describe('outgoing queue', () => {
  it('sends a phrase as its G.711 bytes, 160 a frame, the last padded with silence and marked last', () => {
    for (const [codec, law, silence] of [['PCMU', mulaw, 0xff], ['PCMA', alaw, 0xd5]] as const) {
      const q = new OutgoingQueue();
      const pcm = tone(160 * 3 + 40);
      q.push(codec, pcm, 'u1', { more: false, interruptible: false });
      expect(q.frames).toBe(4);
      const sent: Uint8Array[] = [];
      const last: boolean[] = [];
      for (let f = q.shift(); f; f = q.shift()) { sent.push(f.frame); last.push(f.last); }
      expect(last).toEqual([false, false, false, true]);
      const wire = Buffer.concat(sent);
      expect(wire.length).toBe(640);
      expect(Buffer.from(wire.subarray(0, 520)).equals(Buffer.from(law.encode(pcm)))).toBe(true);
      expect([...wire.subarray(520)].every((b) => b === silence)).toBe(true);
      expect(q.frames).toBe(0);
    }
  });

  it('a phrase said in parts ends with its last part; what the callee may talk over goes, the rest stays in order', () => {
    const q = new OutgoingQueue();
    q.push('PCMU', tone(320), 'say', { more: true, interruptible: true });
    q.push('PCMU', tone(160, 880), 'disclosure', { more: false, interruptible: false });
    q.push('PCMU', tone(160), 'say', { more: false, interruptible: true });
    expect(q.nextInterruptible).toBe(true);
    const first = q.shift()!;
    expect(first).toMatchObject({ utterance: 'say', last: false, interruptible: true });
    expect(first.rms).toBeGreaterThan(5000);
    expect(q.frames).toBe(3);
    expect([...q.dropInterruptible()]).toEqual(['say']);
    expect(q.frames).toBe(1);
    expect(q.nextInterruptible).toBe(false);
    expect(q.shift()).toMatchObject({ utterance: 'disclosure', last: true });
    expect(q.shift()).toBeUndefined();
  });

  it('a bed is summed under the frame sent; its RMS stays that of the phrase alone', () => {
    const q = new OutgoingQueue();
    const pcm = tone(160);
    q.push('PCMU', pcm, 'u', { more: false, interruptible: false });
    const bed = tone(160, 440, 4000);
    const f = q.shift(bed)!;
    const summed = Int16Array.from(pcm, (x, i) => x + bed[i]!);
    expect(Buffer.from(f.frame).equals(Buffer.from(mulaw.encode(summed)))).toBe(true);
    const alone = Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / pcm.length);
    expect(f.rms).toBeCloseTo(alone, 5);
  });
});
