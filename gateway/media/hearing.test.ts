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

  it('tells when speech starts (once it has lasted minVoiceMs) and stops (after the hangover), and a click is neither', async () => {
    const s = (await pico.synthesize('Good morning, I would like to book a table for four.', 'en')).pcm;
    const said: Array<[string, number, number]> = [];
    let frame = 0;
    const h = new Hearing({ onSpeech: (kind, ms) => said.push([kind, ms, frame * 20]) });
    const click = new Int16Array(160).fill(9000);
    const pcm = concat(silence(500), click, silence(1000), s, silence(1500));
    for (let at = 0; at + 160 <= pcm.length; at += 160, frame++) h.push(pcm.subarray(at, at + 160));
    expect(said.map(([k]) => k)).toEqual(['onset', 'offset']);
    const [[, voiced, onAt], [, spanned, offAt]] = said as [[string, number, number], [string, number, number]];
    expect(voiced).toBe(120);
    // The onset comes soon after the speech starts (1520 ms in, plus the engine's own leading quiet).
    expect(onAt).toBeGreaterThan(1520);
    expect(onAt).toBeLessThan(1520 + 600);
    expect(spanned).toBeGreaterThan((s.length / 8) * 0.7);
    expect(offAt).toBeGreaterThanOrEqual(1520 + s.length / 8);
  });

  it('an utterance cut at maxMs while the voice goes on is neither an offset nor a new onset', async () => {
    const s = (await pico.synthesize('This is a long announcement that keeps going.', 'en')).pcm;
    const said: string[] = [];
    const heard = hear(concat(silence(300), s, silence(1500)), new Hearing({ maxMs: 1000, onSpeech: (kind) => said.push(kind) }));
    expect(heard.length).toBeGreaterThanOrEqual(2);
    expect(said).toEqual(['onset', 'offset']);
  });
});
