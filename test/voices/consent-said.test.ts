import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';
import { PocketsphinxRecognizer } from '../../src/engines/pocketsphinx/recognizer.ts';
import { RecognizerChain } from '../../src/engines/speech/recognizers.ts';
import type { Services } from '../../src/services.ts';
import { checkSaid, CONSENT_MIN_SAID, sentenceWords } from '../../src/voices/said.ts';
import { consentSentence } from '../../src/voices/texts.ts';

// The consent check (src/voices/said.ts): a recording must say the consent
// sentence where a recognizer hears its language. Measured here with the
// embedded recognizer (PocketSphinx, US English) on the sentence spoken by
// two synthesizers, and on another sentence read by a person (Debian's
// recorded test speech) in its place.

vi.setConfig({ testTimeout: 60_000 });

const ps = new PocketsphinxRecognizer({ processes: 2 });
const s = { recognizer: new RecognizerChain([ps]) } as unknown as Services;
const pico = new PicoSynthesizer();
afterAll(async () => {
  await ps.close();
  await pico.close();
});

const SENTENCE = consentSentence('en', { person: 'Ana Souza', org: 'Acme Translations', voice: 'Ana support', date: new Date(Date.UTC(2026, 10, 25)) }).text;

describe('the consent sentence\'s own words', () => {
  it('are the template\'s, without the names and the date', () => {
    expect(sentenceWords('en')).toEqual(['i', 'agree', 'that', 'may', 'create', 'and', 'use', 'a', 'synthetic', 'copy', 'of', 'my', 'voice', 'called',
      'i', 'know', 'i', 'can', 'withdraw', 'this', 'consent', 'at', 'any', 'time', 'today', 'is']);
    expect(sentenceWords('pt-BR')).toContain('autorizo');
    expect(sentenceWords('pt-BR')).not.toContain('2000');
  });
});

describe('a recording is checked against the sentence where a recognizer hears its language', () => {
  it('the sentence read passes; other sentences read in its place do not', async () => {
    const figures: string[] = [];
    for (const [name, engine] of [['pico', pico]] as const) {
      const { pcm } = await engine.synthesize(SENTENCE, 'en');
      const r = await checkSaid(s, pcm, 8000, 'en');
      expect(r.checked).toBe(true);
      if (!r.checked) return;
      figures.push(`${name}: ${(r.said * 100).toFixed(0)} % said ("${r.heard}")`);
      expect(r.ok, `${name} heard as "${r.heard}"`).toBe(true);
      expect(r.said).toBeGreaterThanOrEqual(CONSENT_MIN_SAID);
    }
    // A person reading something else (16 kHz recorded speech), five times.
    for (const f of ['0870', '0880', '0890', '0920', '0930']) {
      const wav = readFileSync(`/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-${f}.wav`).subarray(44);
      const other = await checkSaid(s, new Int16Array(wav.buffer.slice(wav.byteOffset, wav.byteOffset + wav.byteLength)), 16_000, 'en');
      expect(other.checked).toBe(true);
      if (other.checked) {
        figures.push(`book ${f}: ${(other.said * 100).toFixed(0)} % said`);
        expect(other.ok).toBe(false);
      }
    }
    process.stderr.write(`[consent check] ${figures.join('; ')}\n`);
  });

  it('a language no recognizer hears is not checked (the embedded one hears English only)', async () => {
    const { pcm } = await pico.synthesize('Eu autorizo.', 'es');
    expect(await checkSaid(s, pcm, 8000, 'pt-BR')).toEqual({ checked: false });
    expect(await checkSaid({} as Services, pcm, 8000, 'en')).toEqual({ checked: false });
  });
});
