import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PicoSynthesizer } from '../pico/synthesizer.ts';
import { CachedSynthesizer, FirstThatSpeaks, SpeechError } from './synthesizer.ts';
import { EspeakSynthesizer, espeakVoice } from '../espeak/synthesizer.ts';
import { loadConfig } from '../../config.ts';
import { measure } from '../../../test/helpers/loudness.ts';

// The embedded speech engine (SVOX Pico in a worker thread, resampled to the
// line's 8 kHz): real speech of plausible length and loudness, no clipping,
// the languages it has and a clear refusal for the ones it lacks, markup in
// the text read as text, and the cache.

let pico: PicoSynthesizer;
beforeAll(() => { pico = new PicoSynthesizer(); });
afterAll(async () => { await pico?.close(); });


describe('SVOX Pico', () => {
  it('speaks an English sentence as 8 kHz speech: seconds long, audible, unclipped', async () => {
    const s = await pico.synthesize('This call is from an AI assistant.', 'en');
    expect(s.ms).toBe(Math.round(s.pcm.length / 8));
    expect(s.ms).toBeGreaterThan(1200);
    expect(s.ms).toBeLessThan(5000);
    const m = measure(s.pcm);
    expect(m.rms).toBeGreaterThan(500);
    expect(m.clipped).toBe(0);
    // Mostly speech, some pauses.
    expect(m.loudFrames).toBeGreaterThan((s.ms / 20) * 0.4);
  });

  it('a longer text takes longer to say', async () => {
    const short = await pico.synthesize('Hello.', 'en-US');
    const long = await pico.synthesize('Hello. I am calling about the order you placed yesterday, which ships tomorrow morning.', 'en-US');
    expect(long.ms).toBeGreaterThan(short.ms * 3);
  });

  it('speaks German, Spanish, French, Italian and British English; several at once', async () => {
    const texts: Array<[string, string]> = [
      ['de', 'Dieser Anruf kommt von einem KI-Assistenten.'],
      ['es', 'Esta llamada es de un asistente de inteligencia artificial.'],
      ['fr-FR', 'Cet appel provient d\'un assistant IA.'],
      ['it', 'Questa chiamata proviene da un assistente IA.'],
      ['en-GB', 'This call is from an AI assistant.'],
    ];
    const out = await Promise.all(texts.map(([lang, text]) => pico.synthesize(text, lang)));
    for (const [i, s] of out.entries()) {
      expect(s.ms, texts[i]![0]).toBeGreaterThan(1000);
      expect(measure(s.pcm).rms, texts[i]![0]).toBeGreaterThan(500);
    }
  });

  it('refuses a language it does not have, naming it; and an empty text', async () => {
    expect(pico.speaks('en-GB')).toBe(true);
    expect(pico.speaks('de-AT')).toBe(true);
    expect(pico.speaks('pt-BR')).toBe(false);
    await expect(pico.synthesize('Esta chamada é feita por um assistente de IA.', 'pt-BR')).rejects.toThrow(SpeechError);
    await expect(pico.synthesize('Olá', 'pt')).rejects.toThrow(/does not speak pt/);
    await expect(pico.synthesize('   ', 'en')).rejects.toThrow(/nothing to say/);
  });

  it('reads markup in the text as text: it cannot turn the volume up or cut the sentence', async () => {
    const plain = await pico.synthesize('Please hold, the volume is fine.', 'en');
    const sneaky = await pico.synthesize('Please hold, <volume level="500"> the volume is fine.', 'en');
    expect(measure(sneaky.pcm).clipped).toBe(0);
    expect(Math.abs(measure(sneaky.pcm).rms - measure(plain.pcm).rms)).toBeLessThan(measure(plain.pcm).rms * 0.5);
  });
});

describe('the cache', () => {
  it('synthesizes a (text, language, voice) once, also when asked twice at once; failures are not kept', async () => {
    const cached = new CachedSynthesizer(pico);
    const [a, b] = await Promise.all([cached.synthesize('One moment, please.', 'en'), cached.synthesize('One moment, please.', 'en')]);
    expect(a).toBe(b);
    expect(cached.misses).toBe(1);
    expect(await cached.synthesize('One moment, please.', 'en')).toBe(a);
    await cached.synthesize('One moment, please.', 'de');
    expect(cached.misses).toBe(2);
    await expect(cached.synthesize('Olá', 'pt')).rejects.toThrow(SpeechError);
    await expect(cached.synthesize('Olá', 'pt')).rejects.toThrow(SpeechError);
    expect(cached.misses).toBe(4);
  });
});

// eSpeak NG: the engine (GPL-3.0; Debian's espeak-ng program, installed by
// the operator, else the npm package, a devDependency here) for the languages
// Pico lacks. test/engines/espeak.test.ts has the program's own tests.
describe('eSpeak NG, after Pico', () => {
  let both: FirstThatSpeaks;
  beforeAll(() => { both = new FirstThatSpeaks([new PicoSynthesizer(), new EspeakSynthesizer()]); });
  afterAll(async () => { await both?.close(); });

  it('speaks Portuguese and Dutch, which Pico does not, as audible 8 kHz speech', async () => {
    expect(pico.speaks('pt')).toBe(false);
    for (const [lang, text] of [['pt', 'Olá, esta chamada é de um assistente de inteligência artificial.'], ['nl', 'Goedemiddag, u spreekt met een digitale assistent.']] as const) {
      const s = await both.synthesize(text, lang);
      expect(s.ms, lang).toBeGreaterThan(1500);
      const m = measure(s.pcm);
      expect(m.rms, lang).toBeGreaterThan(500);
      expect(m.clipped, lang).toBe(0);
      expect(m.loudFrames, lang).toBeGreaterThan((s.ms / 20) * 0.4);
    }
    expect(espeakVoice('pt-BR')).toBe('pt-br');
    expect(espeakVoice('xx')).toBeUndefined();
  });

  it('leaves the languages Pico speaks to Pico, and the others to eSpeak', async () => {
    expect(both.engineFor('en')?.name).toBe('svox-pico');
    expect(both.engineFor('es-MX')?.name).toBe('svox-pico');
    expect(both.engineFor('pt-BR')?.name).toBe('espeak-ng');
    expect(both.engineFor('ja')?.name).toBe('espeak-ng');
    expect(both.engineFor('tlh')).toBeUndefined();
    await expect(both.synthesize('Qapla', 'tlh')).rejects.toThrow(/no speech engine speaks tlh \(engines: svox-pico\+espeak-ng\)/);
  });

  it('TOLK_SPEECH_ENGINES: pico,espeak by default where Debian\'s espeak-ng is installed, else pico; set, a list in order; a clear error for an unknown engine', () => {
    expect(loadConfig({}).speechEngines).toEqual(existsSync('/usr/bin/espeak-ng') ? ['pico', 'espeak'] : ['pico']);
    expect(loadConfig({ TOLK_SPEECH_ENGINES: 'pico' }).speechEngines).toEqual(['pico']);
    expect(loadConfig({ TOLK_SPEECH_ENGINES: 'pico, espeak' }).speechEngines).toEqual(['pico', 'espeak']);
    expect(() => loadConfig({ TOLK_SPEECH_ENGINES: 'pico,festival' })).toThrow(/TOLK_SPEECH_ENGINES/);
  });
});
