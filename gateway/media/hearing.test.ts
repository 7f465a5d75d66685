import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hearing, type Utterance } from './hearing.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';

// Cutting what the far end says into utterances, on real speech (the
// embedded engine's voice at 8 kHz), frame by frame as the line hears it.

let pico: PicoSynthesizer;
beforeAll(() => { pico = new PicoSynthesizer(); });
afterAll(async () => { await pico?.close(); });

const silence = (ms: number) => new Int16Array(ms * 8);
const concat = (...parts: Int16Array[]) => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};

/** The utterances heard in pcm; `gaps`: frames that never arrived (null) at these frame numbers. */
function hear(pcm: Int16Array, h = new Hearing(), gaps = new Set<number>()): Utterance[] {
  const out: Utterance[] = [];
  for (let f = 0, n = 0; f + 160 <= pcm.length; f += 160, n++) {
    const u = h.push(gaps.has(n) ? null : pcm.subarray(f, f + 160));
    if (u) out.push(u);
  }
  return out;
}

describe('hearing the line', () => {
  it('two sentences with a pause between them are two utterances, each as long as its speech', async () => {
    const a = (await pico.synthesize('Good morning, I would like to book a table for four.', 'en')).pcm;
    const b = (await pico.synthesize('Tomorrow at eight.', 'en')).pcm;
    const heard = hear(concat(silence(500), a, silence(1500), b, silence(1500)));
    expect(heard).toHaveLength(2);
    // Its audio spans the speech (within the engine's own leading and trailing quiet).
    expect(heard[0]!.audioMs).toBeGreaterThan((a.length / 8) * 0.7);
    expect(heard[0]!.audioMs).toBeLessThanOrEqual(a.length / 8);
    expect(heard[1]!.audioMs).toBeGreaterThan(500);
    expect(heard[1]!.audioMs).toBeLessThan(heard[0]!.audioMs);
    // The PCM handed to a recognizer starts a little before the first sound.
    expect(heard[0]!.pcm.length / 8).toBeGreaterThan(heard[0]!.audioMs);
  });

  it('the pauses inside a sentence do not cut it', async () => {
    const s = (await pico.synthesize('Yes, that works, thank you, see you then.', 'en')).pcm;
    expect(hear(concat(s, silence(1000)))).toHaveLength(1);
  });

  it('a click is not an utterance; frames that never arrive are silence', async () => {
    const click = new Int16Array(160).fill(9000);
    expect(hear(concat(silence(200), click, silence(1500)))).toEqual([]);
    const s = (await pico.synthesize('Hello?', 'en')).pcm;
    const frames = Math.floor(s.length / 160);
    // The peer stops sending after its hello (silence suppression): the utterance still ends.
    const tail = new Set(Array.from({ length: 60 }, (_, i) => frames + i));
    const heard = hear(concat(s, silence(1200)), new Hearing(), tail);
    expect(heard).toHaveLength(1);
  });

  it('an utterance that never pauses is cut at maxMs, and the rest is heard too', async () => {
    const s = (await pico.synthesize('This is a long announcement that keeps going.', 'en')).pcm;
    const heard = hear(concat(s, silence(1000)), new Hearing({ maxMs: 1000 }));
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(heard[0]!.audioMs).toBeLessThanOrEqual(1000);
  });
});
