import { describe, expect, it } from 'vitest';
import { fromFirstSound } from '../../src/rooms/interpretation.ts';

// What the interpretation channel plays of a synthesized phrase (rooms/interpretation.ts).

describe('the interpretation\'s audio', () => {
  it('starts 20 ms before the synthesizer\'s first sound, not after its silent lead-in; all silence is left as it is', () => {
    const pcm = new Int16Array(8000);
    pcm.fill(2000, 800); // 100 ms of silence, then sound
    const cut = fromFirstSound(pcm);
    expect(cut.length).toBe(8000 - 800 + 160);
    expect(cut[160]).toBe(2000);
    expect(cut.slice(0, 160).every((x) => x === 0)).toBe(true);
    const silent = new Int16Array(800);
    expect(fromFirstSound(silent)).toBe(silent);
  });
});
