import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ENGINES, engineNames, knownEntries } from '../../src/engines/registry.ts';
import { simulatedEngine } from '../../src/engines/sim/index.ts';
import { chainFor, untranslatedText } from '../../src/engines/translate/index.ts';

// The engines' registry (src/engines/registry.ts) is what the configuration
// reads: the names each list takes, whether an entry takes a URL, and a
// name it does not know stops the start with one sentence.

describe('the engines the configuration knows', () => {
  it('are the registry\'s, each list its own kind', () => {
    expect(engineNames('translate')).toEqual(['bergamot', 'apertium', 'libretranslate', 'deepl', 'openai']);
    expect(engineNames('recognize')).toEqual(['openai', 'whisper', 'pocketsphinx', 'deepgram', 'vosk']);
    expect(engineNames('speak')).toEqual(['openai', 'piper', 'pico', 'espeak', 'elevenlabs']);
    expect(knownEntries('translate')).toBe('bergamot, apertium[=URL], libretranslate=URL, deepl[=URL], openai=URL');
    for (const d of ENGINES) {
      expect(d.translate ?? d.recognize ?? d.speak, d.name).toBeDefined();
      expect(d.covers, d.name).not.toBe('');
    }
  });

  it.each([
    ['TOLK_TRANSLATE', 'apertium,babelfish', /^invalid environment: TOLK_TRANSLATE: unknown engine 'babelfish': the known ones are bergamot, apertium\[=URL\], libretranslate=URL, deepl\[=URL\], openai=URL$/],
    ['TOLK_RECOGNIZE', 'whisperx=http://127.0.0.1:9', /^invalid environment: TOLK_RECOGNIZE: unknown engine 'whisperx': the known ones are openai=URL, whisper, pocketsphinx\[=URL\], deepgram\[=URL\], vosk=URL$/],
    ['TOLK_SPEECH_ENGINES', 'pico,festival', /^invalid environment: TOLK_SPEECH_ENGINES: unknown engine 'festival': the known ones are openai=URL, piper, pico, espeak, elevenlabs\[=URL\]$/],
    // Test mode's own engine is no operator's.
    ['TOLK_TRANSLATE', 'sim', /TOLK_TRANSLATE: unknown engine 'sim'/],
    // A translation engine is no speech engine.
    ['TOLK_SPEECH_ENGINES', 'deepl', /TOLK_SPEECH_ENGINES: unknown engine 'deepl'/],
  ])('%s=%s stops the start with one sentence naming the variable and the known names', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it('reads NAME and NAME=URL as before', () => {
    const c = loadConfig({
      TOLK_TRANSLATE: 'apertium=http://127.0.0.1:2737,deepl,openai=http://127.0.0.1:8000/v1',
      TOLK_RECOGNIZE: 'pocketsphinx,vosk=ws://127.0.0.1:2700,deepgram',
      TOLK_SPEECH_ENGINES: 'PICO, espeak,elevenlabs,openai=http://127.0.0.1:8880',
    });
    expect(c.translate).toEqual([{ name: 'apertium', url: 'http://127.0.0.1:2737' }, { name: 'deepl' }, { name: 'openai', url: 'http://127.0.0.1:8000/v1' }]);
    expect(c.recognize).toEqual([{ name: 'pocketsphinx' }, { name: 'vosk', url: 'ws://127.0.0.1:2700' }, { name: 'deepgram' }]);
    expect(c.speechEngines).toEqual(['pico', 'espeak', 'elevenlabs', 'openai=http://127.0.0.1:8880']);
    expect(loadConfig({ TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '' })).toMatchObject({ translate: [], recognize: [] });
  });

  it('says what an entry lacks or has too much', () => {
    expect(() => loadConfig({ TOLK_TRANSLATE: 'libretranslate' })).toThrow(/TOLK_TRANSLATE: libretranslate needs its address: libretranslate=https:\/\/\.\.\./);
    expect(() => loadConfig({ TOLK_RECOGNIZE: 'vosk' })).toThrow(/TOLK_RECOGNIZE: vosk needs its address: vosk=ws:\/\/\.\.\./);
    expect(() => loadConfig({ TOLK_SPEECH_ENGINES: 'openai' })).toThrow(/TOLK_SPEECH_ENGINES: openai needs its address/);
    expect(() => loadConfig({ TOLK_SPEECH_ENGINES: 'pico=http://127.0.0.1:9' })).toThrow(/TOLK_SPEECH_ENGINES: pico takes no URL/);
    expect(() => loadConfig({ TOLK_TRANSLATE: 'apertium=ftp://x' })).toThrow(/TOLK_TRANSLATE: 'apertium=ftp:\/\/x' is not apertium=URL/);
    expect(() => loadConfig({ TOLK_SPEECH_ENGINES: ' , ' })).toThrow(/TOLK_SPEECH_ENGINES: name at least one engine/);
  });
});

describe('test mode\'s simulated translator, an engine', () => {
  it('is first in test mode\'s chain only, for the phrasebook\'s lines', () => {
    const test = chainFor(undefined, false)!;
    expect(test.engines[0]).toBe(simulatedEngine);
    expect(test.instant('Thanks, noted.', 'en', 'nl')).toEqual({ text: 'Bedankt, genoteerd.', engine: 'sim' });
    // Any other text is the engines': the simulator covers no pair and has it not at hand.
    expect(test.instant('See you at noon', 'en', 'de')).toBeNull();
    expect(test.covers('en', 'de')).toBe(false);
    expect(chainFor(undefined, true)).toBeUndefined();
  });

  it('leaves the marked form to test mode, the original to live mode', () => {
    expect(untranslatedText('See you at noon', 'en', 'de', false)).toBe('[en→de] See you at noon');
    expect(untranslatedText('See you at noon', 'en', 'de', true)).toBe('See you at noon');
  });
});
