import { describe, expect, it } from 'vitest';
import { enginesTable } from '../../src/cli/engines-table.ts';
import type { EnginesReport, LanguageRoute } from '../../src/engines/translate/report.ts';

// The table of `npx tolk engines` for what this machine cannot run in a test:
// two translation engines, one-way pairs, a long list of languages, engines
// that do not work, a narrow terminal. (test/engines/operator.test.ts runs
// the command itself on this machine's engines.)

const DEEPL = 'ar bg cs da de el et fi hu id ja ko lt lv nb nl pl ro ru sk sl sv tr uk zh'.split(' ');
const route = (lang: string, engine: string, via: string | null = null): LanguageRoute => ({ lang, engine, via });

const REPORT: EnginesReport = {
  translate: [
    { name: 'apertium', url: 'http://127.0.0.1:2737', answers: true, latency_ms: 40, error: null, pairs: [], pivots: [] },
    { name: 'deepl', url: 'https://api-free.deepl.com', answers: true, latency_ms: 210, error: null, pairs: [], pivots: [] },
  ],
  recognize: [
    { name: 'vosk', url: 'ws://127.0.0.1:2700', langs: ['en'], error: 'vosk at ws://127.0.0.1:2700 does not answer: connect ECONNREFUSED 127.0.0.1:2700', answers: false, latency_ms: null, runs: null },
  ],
  speech: [
    { name: 'pico', url: null, langs: ['en', 'es'], error: null, answers: true, latency_ms: 50, runs: null },
    { name: 'espeak', url: null, langs: ['pt'], error: null, answers: true, latency_ms: 30, runs: '/usr/bin/espeak-ng' },
    { name: 'elevenlabs', url: null, langs: [], error: 'TOLK_SPEECH_ENGINES names elevenlabs: set ELEVENLABS_API_KEY to its key', answers: false, latency_ms: null, runs: null },
  ],
  languages: [
    {
      lang: 'pt', name: 'Portuguese', recognize: [], speech: 'espeak',
      to: [route('es', 'apertium'), route('gl', 'apertium'), route('en', 'apertium', 'es'), route('fr', 'apertium', 'es'), ...DEEPL.map((l) => route(l, 'deepl'))],
      from: [route('es', 'apertium'), route('ca', 'apertium'), route('en', 'apertium', 'es'), ...DEEPL.map((l) => route(l, 'deepl'))],
    },
    { lang: 'en', name: 'English', recognize: ['pocketsphinx'], speech: 'pico', to: [route('es', 'apertium')], from: [route('es', 'apertium')] },
    { lang: 'gd', name: 'Scottish Gaelic', recognize: [], speech: 'espeak', to: [], from: [] },
    { lang: 'tlh', name: 'Klingon', recognize: [], speech: null, to: [], from: [] },
  ],
};

describe('the table of npx tolk engines', () => {
  it('gives each translation engine of a language its own lines, with one-way pairs and pivots marked', () => {
    const out = enginesTable(REPORT, 100);
    const lines = out.split('\n');
    const at = lines.findIndex((l) => l.startsWith('pt Portuguese'));
    const column = lines.find((l) => l.startsWith('language'))!.indexOf('translate');
    const cell = lines.slice(at, at + 4).map((l) => l.slice(column)).join('\n');
    expect(lines[at]).toMatch(/^pt Portuguese +- +espeak +apertium: /);
    // Apertium's broken between its groups; DeepL's 25 languages, both ways, from a line of their own, broken between words.
    expect(cell).toMatch(/^apertium: ⇄ es; → gl; ← ca; ⇄ en via es;\n→ fr via es\ndeepl: ⇄ ar bg cs [a-z ]+\n[a-z ]+ zh$/);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  it('fits a 72-column terminal, and never goes past 100 columns on a wide one', () => {
    for (const width of [72, 80, 200]) {
      for (const l of enginesTable(REPORT, width).split('\n')) expect(l.length, `${width}: ${l}`).toBeLessThanOrEqual(Math.min(width, 100));
    }
    // Narrower than the columns: 72 all the same.
    expect(enginesTable(REPORT, 40)).toBe(enginesTable(REPORT, 72));
  });

  it('says, per engine, whether it answers and how quickly, or why it does not work, as a sentence', () => {
    const text = enginesTable(REPORT, 100).replace(/\n {30}(?=\S)/g, ' ');
    expect(text).toMatch(/^ {2}translate +deepl +answers in 210 ms \(https:\/\/api-free\.deepl\.com\)\.$/m);
    expect(text).toMatch(/^ {2}microphone +vosk +does not work: vosk at ws:\/\/127\.0\.0\.1:2700 does not answer: connect ECONNREFUSED 127\.0\.0\.1:2700\.$/m);
    expect(text).toMatch(/^ {2}read aloud +espeak +answers in 30 ms \(\/usr\/bin\/espeak-ng\)\.$/m);
    expect(text).toMatch(/^ {2}read aloud +elevenlabs +does not work: TOLK_SPEECH_ENGINES names elevenlabs: set ELEVENLABS_API_KEY to its key\.$/m);
  });

  it('lists the languages only read aloud after the table, and leaves out those nothing covers', () => {
    const out = enginesTable(REPORT, 100);
    expect(out).toMatch(/^1 more language, read aloud by espeak, not translated: gd$/m);
    expect(out).not.toMatch(/tlh|Klingon/);
    const none = enginesTable({ translate: [], recognize: [], speech: [], languages: [] }, 100);
    expect(none).toMatch(/No translation engine answers/);
    expect(none).toMatch(/^ {2}translate +none configured \(TOLK_TRANSLATE\)$/m);
    expect(none).toMatch(/^ {2}read aloud +none configured \(TOLK_SPEECH_ENGINES\)$/m);
  });
});
