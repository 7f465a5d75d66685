import {
  ANNOUNCEMENT, PHRASES, SUPPORTED_LANGS, fillName, isSupportedLang, markUntranslated, normaliseLang, parseUntranslated,
} from './phrasebook.ts';

// Test-mode translation (operator.md, Test-mode simulator): robots speak from
// the phrasebook, whose phrases have real translations; anything else (an
// agent's `say`) comes out in the marked form of phrasebook.ts:
//
//     [<from>→<to>] <original text, verbatim>      e.g. "[en→de] See you at noon"
//
// Everything here is deterministic: same input, same output, on every process.
// In test mode it is the first translation engine (index.ts), for the
// phrasebook's lines (known()); the marked form is what test mode shows
// where no translation engine could translate a text (translate/index.ts
// untranslatedText()).

export { SUPPORTED_LANGS, markUntranslated, normaliseLang, parseUntranslated, isSupportedLang };

/** Phrase lookup key: NFC, trimmed, runs of whitespace (non-breaking included) as one space. Case is kept. */
function phraseKey(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ');
}

/** lang → phrase key → index into PHRASES. */
const PHRASE_INDEX: ReadonlyMap<string, ReadonlyMap<string, number>> = new Map(
  SUPPORTED_LANGS.map((lang) => [lang, new Map(PHRASES.map((p, i) => [phraseKey(p[lang]!), i]))]),
);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** lang → a pattern that matches the announcement in lang and captures the name. */
const ANNOUNCEMENT_PATTERN: ReadonlyMap<string, RegExp> = new Map(
  SUPPORTED_LANGS.map((lang) => [lang, new RegExp(`^${ANNOUNCEMENT[lang].split('{name}').map(escapeRegExp).join('(.+)')}$`, 's')]),
);

/** Index into PHRASES of the phrase whose text in lang is text (whitespace normalised), else undefined. */
export function phraseIndexOf(text: string, lang: string): number | undefined {
  return PHRASE_INDEX.get(normaliseLang(lang))?.get(phraseKey(text));
}

/**
 * The simulator's translator. translate(text, from, to), with from and to
 * normalised (normaliseLang):
 *
 * 1. from = to: text, unchanged.
 * 2. text is in the marked form into `from` (`[x→from] original`, i.e. it
 *    was itself never really translated): translate(original, x, to)
 *    instead, so markings never nest and a robot speaking a language the
 *    phrasebook lacks is still heard in real translation elsewhere.
 * 3. from and to supported, and text is a phrasebook phrase in from
 *    (compared trimmed, whitespace runs as one space, case-sensitive): that
 *    phrase in to. Likewise the announcement, with its name kept.
 * 4. Otherwise the marked form `[from→to] text` (text verbatim).
 */
export class SimulatedTranslator {
  /** The phrasebook's translation of text (a robot's line, an announcement), or null for any other text. */
  known(text: string, from: string, to: string): string | null {
    const out = this.translate(text, from, to);
    return out === markUntranslated(text, normaliseLang(from), normaliseLang(to)) ? null : out;
  }

  translate(text: string, from: string, to: string): string {
    const src = normaliseLang(from);
    const dst = normaliseLang(to);
    if (src === dst) return text;
    const marked = parseUntranslated(text);
    if (marked && marked.to === src && marked.from !== src) return this.translate(marked.text, marked.from, dst);
    if (isSupportedLang(src) && isSupportedLang(dst)) {
      const i = phraseIndexOf(text, src);
      if (i !== undefined) return PHRASES[i]![dst]!;
      const named = ANNOUNCEMENT_PATTERN.get(src)!.exec(phraseKey(text));
      if (named) return fillName((ANNOUNCEMENT as Readonly<Record<string, string>>)[dst]!, named[1]!);
    }
    return markUntranslated(text, src, dst);
  }
}

export const simulatedTranslator: SimulatedTranslator = new SimulatedTranslator();
