import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnsweringMachineDetector, type AmdEvent } from './amd.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';
import { voicemailAudio } from '../callee.ts';

// Answering-machine detection on real speech (the embedded engine's voice,
// at the line's 8 kHz): a person's short hello, a voicemail's long greeting
// and its beep, silence, and speech that must not pass for a beep.

let pico: PicoSynthesizer;
beforeAll(() => { pico = new PicoSynthesizer(); });
afterAll(async () => { await pico?.close(); });

const silence = (ms: number) => new Int16Array((ms * 8000) / 1000);
const tone = (ms: number, hz: number, amp = 6000) => Int16Array.from({ length: (ms * 8000) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 8000)));
/** Low noise, as a line has between words (a fixed pseudo-random sequence: the same every run). */
const hiss = (ms: number) => {
  let x = 12345;
  return Int16Array.from({ length: (ms * 8000) / 1000 }, () => { x = (x * 1103515245 + 12345) % 2 ** 31; return Math.round((x / 2 ** 31 - 0.5) * 120); });
};

function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

/** The detector fed the audio frame by frame, as the call hears it. */
function run(pcm: Int16Array): AmdEvent[] {
  const amd = new AnsweringMachineDetector();
  const events: AmdEvent[] = [];
  for (let f = 0; f + 160 <= pcm.length; f += 160) events.push(...amd.push(pcm.subarray(f, f + 160)));
  return events;
}

const verdictOf = (events: AmdEvent[]) => events.find((e) => e.type === 'verdict')?.type === 'verdict' ? (events.find((e) => e.type === 'verdict') as Extract<AmdEvent, { type: 'verdict' }>).verdict : null;
const beepOf = (events: AmdEvent[]) => events.find((e): e is Extract<AmdEvent, { type: 'beep' }> => e.type === 'beep') ?? null;

describe('answering-machine detection', () => {
  it('a person: a short hello, then waiting in silence', async () => {
    const hello = await pico.synthesize('Hello?', 'en');
    const events = run(concat(silence(300), hello.pcm, hiss(3000)));
    const v = verdictOf(events)!;
    expect(v.kind).toBe('human');
    // Decided soon after the hello ends, not at the end of the audio.
    expect(v.atMs).toBeLessThan(300 + hello.ms + 1200);
    expect(beepOf(events)).toBeNull();
  });

  it('a person in Spanish, the same', async () => {
    const hola = await pico.synthesize('¿Diga?', 'es');
    expect(verdictOf(run(concat(hola.pcm, silence(2000))))!.kind).toBe('human');
  });

  it('a voicemail: a long greeting, then the beep where it is', async () => {
    const greeting = await pico.synthesize('Hi, you have reached Ana Souza. I cannot take your call right now. Please leave a message after the tone.', 'en');
    expect(greeting.ms).toBeGreaterThan(4000);
    const beepAt = 200 + greeting.ms + 400;
    const events = run(concat(silence(200), greeting.pcm, silence(400), tone(500, 1000), silence(1000)));
    const v = verdictOf(events)!;
    expect(v.kind).toBe('machine');
    expect(v.atMs).toBeLessThan(beepAt);
    const beep = beepOf(events)!;
    expect(beep.hz).toBe(1000);
    expect(Math.abs(beep.atMs - beepAt)).toBeLessThanOrEqual(40);
    // The verdict came from the greeting, before the beep.
    expect(events.indexOf(events.find((e) => e.type === 'verdict')!)).toBeLessThan(events.indexOf(beep));
  });

  it('a greeting cut by short pauses still reads as one, and a beep at another pitch is found', async () => {
    const a = await pico.synthesize('You have reached the office of Doctor Meyer.', 'en');
    const b = await pico.synthesize('We are closed. Please leave your name and number.', 'en');
    const events = run(concat(a.pcm, silence(400), b.pcm, silence(300), tone(300, 1400), silence(500)));
    expect(verdictOf(events)!.kind).toBe('machine');
    expect(beepOf(events)!.hz).toBe(1400);
  });

  it('nobody says anything: unknown, once the wait is over', () => {
    const events = run(hiss(6000));
    const v = verdictOf(events)!;
    expect(v).toMatchObject({ kind: 'unknown', voiceMs: 0 });
    expect(v.atMs).toBe(5000);
  });

  it('speech in five languages is never taken for a beep', async () => {
    const texts: Array<[string, string]> = [
      ['en', 'Good morning, this is Robert speaking, how can I help you today?'],
      ['de', 'Guten Morgen, hier spricht Robert, wie kann ich Ihnen helfen?'],
      ['fr', 'Bonjour, ici Robert, comment puis-je vous aider aujourd\'hui ?'],
      ['es', 'Buenos días, habla Roberto, ¿en qué puedo ayudarle hoy?'],
      ['it', 'Buongiorno, sono Roberto, come posso aiutarla oggi?'],
    ];
    for (const [lang, text] of texts) {
      const s = await pico.synthesize(text, lang);
      expect(beepOf(run(s.pcm)), lang).toBeNull();
    }
  });

  it("the simulated callee's voicemail, in each of its languages, is a machine with its beep", async () => {
    for (const lang of ['en', 'es', 'de', 'fr', 'it', 'pt']) {
      const events = run(concat(await voicemailAudio(pico, lang), silence(1000)));
      expect(verdictOf(events)?.kind, lang).toBe('machine');
      expect(beepOf(events)?.hz, lang).toBe(1000);
    }
  });

  it('a person who says more than hello, with pauses, and then waits: not a machine before the detection gives up', async () => {
    const hello = (await pico.synthesize('Hello?', 'en')).pcm;
    const who = (await pico.synthesize('Who is it?', 'en')).pcm;
    const v = verdictOf(run(concat(hello, silence(500), who, silence(7000))));
    expect(v?.kind).not.toBe('machine');
  });
});
