import { describe, expect, it } from 'vitest';
import { ANNOUNCEMENT, PHRASES, REPLY_INDICES, REPLY_PHRASES, SUPPORTED_LANGS, announcement } from '../../src/sim/phrasebook.ts';
import {
  PHRASE_ORDER, REPLY_ORDER, SimulatedTranslator, markUntranslated, normaliseLang, robotPhrase, robotReply, simulatedTranslator,
} from '../../src/sim/translator.ts';
import { SPEAKING_RATE_CHARS_PER_SECOND, spokenSeconds } from '../../src/providers/speech.ts';

// The test-mode translation simulator: real translations for phrasebook
// phrases, a marked deterministic form for everything else.

const tr: SimulatedTranslator = simulatedTranslator;
const REQUIRED = ['en', 'es', 'pt', 'fr', 'de'] as const;
const en = (i: number) => PHRASES[i]!.en!;

describe('phrasebook', () => {
  it('has at least 24 phrases, each in every supported language, non-empty and unlike the English', () => {
    expect(PHRASES.length).toBeGreaterThanOrEqual(24);
    expect(SUPPORTED_LANGS).toEqual(expect.arrayContaining([...REQUIRED]));
    for (const p of PHRASES) {
      for (const lang of SUPPORTED_LANGS) {
        const text = p[lang];
        expect(text, `${p.en} in ${lang}`).toBeTypeOf('string');
        expect(text!.trim(), `${p.en} in ${lang}`).not.toBe('');
        expect(text, `${p.en} in ${lang}`).toBe(text!.trim());
        if (lang !== 'en') expect(text, `${p.en} in ${lang}`).not.toBe(p.en);
      }
      expect(Object.keys(p).sort()).toEqual([...SUPPORTED_LANGS].sort());
    }
  });

  it('never uses the same text for two phrases in one language (a phrase is found by its text)', () => {
    for (const lang of SUPPORTED_LANGS) {
      const texts = PHRASES.map((p) => p[lang]);
      expect(new Set(texts).size, lang).toBe(texts.length);
    }
  });

  it('has no text that looks like the marked form or holds a {name} placeholder', () => {
    for (const p of PHRASES) for (const lang of SUPPORTED_LANGS) expect(p[lang]).not.toMatch(/^\[|→|\{name\}/);
  });

  it('has reply phrases, a subset of PHRASES', () => {
    expect(REPLY_INDICES.length).toBeGreaterThanOrEqual(3);
    expect(REPLY_PHRASES).toHaveLength(REPLY_INDICES.length);
    REPLY_INDICES.forEach((i, k) => expect(REPLY_PHRASES[k]).toBe(PHRASES[i]));
    expect(REPLY_PHRASES.map((p) => p.en)).toContain('Thanks, noted.');
  });

  it('announces the assistant by name in every supported language', () => {
    for (const lang of SUPPORTED_LANGS) {
      expect(ANNOUNCEMENT[lang]).toContain('{name}');
      const text = announcement('Ada Lovelace', lang);
      expect(text, lang).toContain('Ada Lovelace');
      expect(text, lang).not.toContain('{name}');
    }
    expect(announcement('Ada', 'en')).toBe('An AI assistant named Ada has joined the room.');
    expect(announcement('Ada', 'de-AT')).toBe('Ein KI-Assistent namens Ada ist dem Raum beigetreten.');
    expect(new Set(SUPPORTED_LANGS.map((l) => announcement('Ada', l))).size).toBe(SUPPORTED_LANGS.length);
  });

  it('puts the name in verbatim, replacement patterns and all', () => {
    expect(announcement("$& $' $1 {name}", 'fr')).toBe("Un assistant IA nommé $& $' $1 {name} a rejoint la salle.");
  });

  it('announces in the marked English form for a language it lacks', () => {
    expect(announcement('Ada', 'ja-JP')).toBe('[en→ja] An AI assistant named Ada has joined the room.');
    expect(announcement('Ada', 'constructor')).toBe('[en→constructor] An AI assistant named Ada has joined the room.');
  });
});

describe('SimulatedTranslator', () => {
  it('translates every phrase between every pair of supported languages', () => {
    PHRASES.forEach((p) => {
      for (const from of SUPPORTED_LANGS) for (const to of SUPPORTED_LANGS) expect(tr.translate(p[from]!, from, to)).toBe(p[to]);
    });
  });

  it('round-trips en → es → fr to the French phrase', () => {
    PHRASES.forEach((p) => {
      const es = tr.translate(p.en!, 'en', 'es');
      expect(es).toBe(p.es);
      expect(tr.translate(es, 'es', 'fr')).toBe(p.fr);
    });
    expect(tr.translate(tr.translate('Could you repeat that, please?', 'en', 'es'), 'es', 'fr')).toBe("Pourriez-vous répéter, s'il vous plaît ?");
  });

  it('returns the input unchanged for the same language, whatever the tag', () => {
    expect(tr.translate('whatever  text ', 'en', 'en')).toBe('whatever  text ');
    expect(tr.translate('Olá', 'pt-BR', 'PT')).toBe('Olá');
    expect(tr.translate('Hi', 'ja', 'ja-JP')).toBe('Hi');
    expect(tr.translate('[en→xx] hi', 'xx', 'xx')).toBe('[en→xx] hi');
  });

  it('normalises language tags (pt-BR, EN, en-US, de_DE)', () => {
    expect(normaliseLang('pt-BR')).toBe('pt');
    expect(normaliseLang('EN')).toBe('en');
    expect(normaliseLang(' en-US ')).toBe('en');
    expect(normaliseLang('de_DE')).toBe('de');
    expect(tr.translate('Good morning, everyone.', 'EN', 'pt-BR')).toBe('Bom dia a todos.');
    expect(tr.translate('Bom dia a todos.', 'pt-BR', 'en-US')).toBe('Good morning, everyone.');
    expect(tr.translate('Free text', 'EN', 'pt-BR')).toBe('[en→pt] Free text');
  });

  it('finds phrases despite surrounding and repeated whitespace', () => {
    expect(tr.translate('  Good morning,   everyone. \n', 'en', 'de')).toBe('Guten Morgen zusammen.');
  });

  it('renders free text in the marked form, keeping the original verbatim', () => {
    const text = '  Let us meet at noon — ok?  ';
    const out = tr.translate(text, 'en', 'de');
    expect(out).toBe(`[en→de] ${text}`);
    expect(out).toBe(markUntranslated(text, 'en', 'de'));
    expect(out).toContain(text);
    expect(tr.translate(text, 'en', 'de')).toBe(out); // deterministic
    expect(tr.translate('good morning, everyone.', 'en', 'es')).toBe('[en→es] good morning, everyone.'); // case-sensitive
  });

  it('gives the marked form for a language it does not know, either way', () => {
    expect(tr.translate('Good morning, everyone.', 'en', 'ja')).toBe('[en→ja] Good morning, everyone.');
    expect(tr.translate('Good morning, everyone.', 'en', 'zh-Hant-TW')).toBe('[en→zh] Good morning, everyone.');
    expect(tr.translate('おはようございます', 'ja', 'en')).toBe('[ja→en] おはようございます');
    // An English phrase said to be Japanese is not recognised as English.
    expect(tr.translate('Good morning, everyone.', 'ja', 'es')).toBe('[ja→es] Good morning, everyone.');
  });

  it('does not nest markings: a marked text is translated from its original', () => {
    const heardInJa = robotPhrase(0, 'ja').text;
    const p = PHRASES[robotPhrase(0, 'ja').index]!;
    expect(heardInJa).toBe(`[en→ja] ${p.en}`);
    expect(tr.translate(heardInJa, 'ja', 'es')).toBe(p.es);
    expect(tr.translate(heardInJa, 'ja', 'en')).toBe(p.en);
    expect(tr.translate('[en→ja] free text', 'ja', 'ko')).toBe('[en→ko] free text');
    // Marked into some other language: just text.
    expect(tr.translate('[en→ja] free text', 'de', 'fr')).toBe('[de→fr] [en→ja] free text');
  });

  it('translates the announcement with its name', () => {
    const name = 'Ada (bot) v2.0';
    for (const from of SUPPORTED_LANGS) for (const to of SUPPORTED_LANGS) expect(tr.translate(announcement(name, from), from, to)).toBe(announcement(name, to));
    expect(tr.translate(announcement('Ada', 'en'), 'en', 'ja')).toBe(announcement('Ada', 'ja'));
  });

  it('is the class behind simulatedTranslator', () => {
    expect(simulatedTranslator).toBeInstanceOf(SimulatedTranslator);
    expect(new SimulatedTranslator().translate('Thanks, noted.', 'en', 'nl')).toBe('Bedankt, genoteerd.');
  });
});

describe('spokenSeconds', () => {
  it('speaks 15 characters a second, rounded up, at least 1', () => {
    expect(SPEAKING_RATE_CHARS_PER_SECOND).toBe(15);
    expect(spokenSeconds('a')).toBe(1);
    expect(spokenSeconds('a'.repeat(15))).toBe(1);
    expect(spokenSeconds('a'.repeat(16))).toBe(2);
    expect(spokenSeconds('a'.repeat(1000))).toBe(67);
    expect(spokenSeconds('')).toBe(1);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(spokenSeconds('😀'.repeat(15))).toBe(1);
  });
});

describe('robotPhrase and robotReply', () => {
  it('is deterministic', () => {
    for (let n = 0; n < 100; n++) {
      expect(robotPhrase(n, 'fr')).toEqual(robotPhrase(n, 'fr'));
      expect(robotReply(n, 'de')).toEqual(robotReply(n, 'de'));
    }
    expect(robotPhrase(5, 'en').index).toBe(PHRASE_ORDER[5]);
  });

  it('goes through every phrase once per cycle, in a shuffled order, then repeats', () => {
    const N = PHRASES.length;
    const first = Array.from({ length: N }, (_, n) => robotPhrase(n, 'en').index);
    expect([...first].sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(first).not.toEqual(Array.from({ length: N }, (_, i) => i));
    for (let n = 0; n < N; n++) {
      expect(robotPhrase(n + N, 'en')).toEqual(robotPhrase(n, 'en'));
      expect(robotPhrase(n + 7 * N, 'en')).toEqual(robotPhrase(n, 'en'));
    }
    expect(robotPhrase(-1, 'en')).toEqual(robotPhrase(N - 1, 'en'));
    expect(robotPhrase(Number.NaN, 'en')).toEqual(robotPhrase(0, 'en'));
  });

  it('no two consecutive turns of the same robot in the engine repeat a phrase', () => {
    // src/sim/engine.ts gives Robot A the even n and Robot B the odd n.
    const N = PHRASES.length;
    for (let n = 0; n < 4 * N; n++) expect(robotPhrase(n, 'en').index).not.toBe(robotPhrase(n + 2, 'en').index);
  });

  it('speaks the phrase in the robot language', () => {
    for (let n = 0; n < PHRASES.length; n++) {
      const a = robotPhrase(n, 'en');
      expect(a.text).toBe(en(a.index));
      expect(robotPhrase(n, 'es-MX')).toEqual({ text: PHRASES[a.index]!.es, index: a.index });
      expect(robotPhrase(n, 'ja')).toEqual({ text: `[en→ja] ${en(a.index)}`, index: a.index });
    }
  });

  it('replies only with reply phrases, all of them each cycle', () => {
    const R = REPLY_INDICES.length;
    expect([...REPLY_ORDER].sort((a, b) => a - b)).toEqual([...REPLY_INDICES].sort((a, b) => a - b));
    const cycle = Array.from({ length: R }, (_, n) => robotReply(n, 'pt').index);
    expect(new Set(cycle)).toEqual(new Set(REPLY_INDICES));
    for (let n = 0; n < 3 * R; n++) {
      const r = robotReply(n, 'pt');
      expect(REPLY_INDICES).toContain(r.index);
      expect(r.text).toBe(PHRASES[r.index]!.pt);
      expect(robotReply(n + R, 'pt')).toEqual(r);
    }
  });
});
