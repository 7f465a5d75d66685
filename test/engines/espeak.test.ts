import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ESPEAK_PACKAGE, ESPEAK_PROGRAM, EspeakSynthesizer, espeakVoice, parseVoiceList } from '../../src/engines/espeak/synthesizer.ts';
import { startSynthesizers } from '../../src/engines/speech/index.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';
import { loadResampler, toLineRate } from '../../src/engines/speech/resample.ts';
import { SpeechError, type SpeechSynthesizer } from '../../src/engines/speech/synthesizer.ts';
import { decodeWav } from '../../src/engines/speech/wav.ts';
import { measure } from '../helpers/loudness.ts';

// Debian's eSpeak NG (`apt-get install espeak-ng`; npm test installs it,
// scripts/system-packages.ts) as the `espeak` speech engine: the languages
// SVOX Pico lacks, Portuguese first, spoken by the program itself (not the
// npm package the engine falls back to), with the voices the program has,
// and in the default engines wherever it is installed.

const SENTENCE = 'Olá, esta chamada é de um assistente de inteligência artificial.';

/** The program's own speech of `text` with `voice`, run here directly, brought to the line's 8 kHz as the engine does. */
function direct(voice: string, text: string): Int16Array {
  const r = spawnSync(ESPEAK_PROGRAM, ['-v', voice, '-b', '1', '--stdout'], { input: text });
  expect(r.status, String(r.stderr)).toBe(0);
  const { samples, rate } = decodeWav(r.stdout);
  expect(rate).toBe(22_050);
  return toLineRate(samples, rate);
}


/** Seconds of audible, unclipped speech, mostly voiced. */
function expectSpeech(s: { pcm: Int16Array; ms: number }, what: string, o: { minMs: number; maxMs: number }) {
  expect(s.ms, what).toBe(Math.round(s.pcm.length / 8));
  expect(s.ms, what).toBeGreaterThan(o.minMs);
  expect(s.ms, what).toBeLessThan(o.maxMs);
  const m = measure(s.pcm);
  expect(m.rms, what).toBeGreaterThan(500);
  expect(m.clipped, what).toBe(0);
  expect(m.loudFrames, what).toBeGreaterThan((s.ms / 20) * 0.4);
}

const same = (a: Int16Array, b: Int16Array) => a.length === b.length && a.every((v, i) => v === b[i]);

let espeak: EspeakSynthesizer;
beforeAll(async () => {
  expect(existsSync(ESPEAK_PROGRAM), 'Debian\'s espeak-ng is not installed: apt-get install espeak-ng (npm test installs it)').toBe(true);
  await loadResampler();
  espeak = new EspeakSynthesizer();
});
afterAll(async () => { await espeak?.close(); });

describe('Debian\'s espeak-ng as the espeak engine', () => {
  it('speaks Portuguese and Brazilian Portuguese as seconds of audible 8 kHz speech, each in its own voice, made by the program itself', async () => {
    expect(espeak.runs).toBe(ESPEAK_PROGRAM);
    const pt = await espeak.synthesize(SENTENCE, 'pt');
    const br = await espeak.synthesize(SENTENCE, 'pt-BR');
    // Ten words: a few seconds.
    expectSpeech(pt, 'pt', { minMs: 2000, maxMs: 8000 });
    expectSpeech(br, 'pt-BR', { minMs: 2000, maxMs: 8000 });
    // The program's own audio, sample for sample: Portugal's voice for pt, Brazil's for pt-BR.
    expect(same(pt.pcm, direct('pt', SENTENCE)), 'pt is what espeak-ng -v pt says').toBe(true);
    expect(same(br.pcm, direct('pt-br', SENTENCE)), 'pt-BR is what espeak-ng -v pt-br says').toBe(true);
    expect(same(pt.pcm, br.pcm), 'two accents, two different recordings').toBe(false);
    // A longer text takes longer to say.
    const longer = await espeak.synthesize(`${SENTENCE} A sua consulta é amanhã às dez horas, no consultório da rua Augusta.`, 'pt');
    expect(longer.ms).toBeGreaterThan(pt.ms * 1.5);
  });

  it('where only the npm package is installed, the same engine speaks Portuguese through it, and that speech is not the program\'s', async () => {
    const pkg = new EspeakSynthesizer({ program: '/nonexistent/espeak-ng' });
    try {
      expect(pkg.runs).toBe(ESPEAK_PACKAGE);
      const s = await pkg.synthesize(SENTENCE, 'pt');
      expectSpeech(s, 'pt by the package', { minMs: 2000, maxMs: 8000 });
      // Another build of eSpeak NG: its audio differs, so the comparison above tells which one spoke.
      expect(same(s.pcm, direct('pt', SENTENCE))).toBe(false);
    } finally {
      await pkg.close();
    }
  });

  it('has the voices `espeak-ng --voices` lists, and none it lacks', async () => {
    const listing = execFileSync(ESPEAK_PROGRAM, ['--voices'], { encoding: 'utf8' });
    const own = listing.split('\n').slice(1).map((l) => l.trim().split(/\s+/)[1]).filter((v): v is string => Boolean(v));
    expect(own).toEqual(expect.arrayContaining(['pt', 'pt-br', 'nl', 'ja']));
    for (const v of own) expect(espeak.speaks(v), v).toBe(true);
    expect(espeak.languages()).toEqual(expect.arrayContaining(own.map((v) => v.toLowerCase())));
    // A language's other spellings are spoken by the voice the program would pick itself.
    expect(same((await espeak.synthesize(SENTENCE, 'pt-PT')).pcm, direct('pt', SENTENCE)), 'pt-PT is Portugal\'s voice').toBe(true);
    expect(same((await espeak.synthesize(SENTENCE, 'pt-br')).pcm, direct('pt-br', SENTENCE))).toBe(true);
    expect(parseVoiceList(listing).get('es-mx')).toBe('es-419');
    // Languages the npm package has and this program does not (Debian 12's 1.51 lacks Faroese, Tigrinya,
    // Karakalpak): refused, never spoken in another language's voice; and one neither has.
    const lacking = ['fo', 'ti', 'kaa', 'tlh'].filter((l) => !parseVoiceList(listing).has(l));
    expect(lacking).toContain('tlh');
    for (const l of lacking) {
      expect(espeak.speaks(l), l).toBe(false);
      await expect(espeak.synthesize('Hello', l)).rejects.toThrow(new RegExp(`does not speak ${l}`));
    }
    expect(espeakVoice('fo')).toBe('fo');
  });

  it('reads the text as text: words that look like options are said, and [[ ]] is not read as phoneme codes', async () => {
    const options = await espeak.synthesize('--help -v en --stdout', 'en');
    expectSpeech(options, 'option-like words', { minMs: 1000, maxMs: 6000 });
    // "[[h@loU]]" as codes is the word hello (0.7 s); read as written it is its letters, about twice as long.
    const codes = direct('en', '[[h@loU]]');
    const written = await espeak.synthesize('[[h@loU]]', 'en');
    expect(written.pcm.length).toBeGreaterThan(codes.length * 1.5);
    await expect(espeak.synthesize('   ', 'pt')).rejects.toThrow(SpeechError);
  });

  it('speaks many phrases asked for at once (more than it runs at a time), each as it would alone', async () => {
    const n = Math.max(2, os.availableParallelism()) * 2 + 1;
    const texts = Array.from({ length: n }, (_, i) => `Chamada número ${i + 1}.`);
    const out = await Promise.all(texts.map((t) => espeak.synthesize(t, 'pt-BR')));
    for (const [i, s] of out.entries()) expect(same(s.pcm, direct('pt-br', texts[i]!)), texts[i]).toBe(true);
  });
});

describe('the default speech engines where espeak-ng is installed', () => {
  let defaults: SpeechSynthesizer;
  let picoOnly: SpeechSynthesizer;
  let pico: PicoSynthesizer;
  beforeAll(() => {
    // Nothing set: the default, whatever the test run's environment says.
    const config = loadConfig({});
    expect(config.speechEngines).toEqual(['pico', 'espeak']);
    defaults = startSynthesizers(config);
    picoOnly = startSynthesizers(loadConfig({ TOLK_SPEECH_ENGINES: 'pico' }));
    pico = new PicoSynthesizer();
  });
  afterAll(async () => { await Promise.all([defaults?.close(), picoOnly?.close(), pico?.close()]); });

  it('speak Portuguese (eSpeak NG) and keep English with Pico; Pico alone leaves Portuguese silent', async () => {
    expect(defaults.speaks('pt')).toBe(true);
    expect(defaults.speaks('pt-BR')).toBe(true);
    const pt = await defaults.synthesize(SENTENCE, 'pt-BR');
    expect(same(pt.pcm, direct('pt-br', SENTENCE)), 'Brazilian Portuguese by Debian\'s espeak-ng').toBe(true);
    const english = 'This call is from an AI assistant.';
    const en = await defaults.synthesize(english, 'en');
    expect(same(en.pcm, (await pico.synthesize(english, 'en')).pcm), 'English by Pico, the better voice').toBe(true);
    // Set to Pico alone, the operator gets Pico alone.
    expect(picoOnly.speaks('pt')).toBe(false);
    await expect(picoOnly.synthesize(SENTENCE, 'pt')).rejects.toThrow(/no speech engine speaks pt/);
    // A language neither speaks.
    expect(defaults.speaks('tlh')).toBe(false);
    await expect(defaults.synthesize('Qapla', 'tlh')).rejects.toThrow(/no speech engine speaks tlh/);
  });
});
