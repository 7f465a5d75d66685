import {
  ANNOUNCEMENT, PHRASES, REPLY_INDICES, SUPPORTED_LANGS, fillName, isSupportedLang, markUntranslated, normaliseLang, parseUntranslated,
} from './phrasebook.ts';

// Test-mode translation (operator.md, Test-mode simulator): robots speak from
// the phrasebook, whose phrases have real translations; anything else (an
// agent's `say`) comes out in the marked form of phrasebook.ts:
//
//     [<from>→<to>] <original text, verbatim>      e.g. "[en→de] See you at noon"
//
// Everything here is deterministic: same input, same output, on every process.
// In test mode it is the engine of the phrasebook's lines (known()); the
// marked form is what test mode shows where no translation engine covers a
// pair (sessions/translations.ts).

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

// --- What the robots say --------------------------------------------------

/** A fixed permutation of 0..n-1 (Fisher-Yates driven by mulberry32 from seed): shuffled, and the same everywhere. */
function fixedShuffle(n: number, seed: number): readonly number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return Object.freeze(order);
}

/** The order the robots go through PHRASES in (indices); robotPhrase(n) is PHRASE_ORDER[n mod length]. */
export const PHRASE_ORDER: readonly number[] = fixedShuffle(PHRASES.length, 0x746f6c6b);
/** The order robots reply in (indices into PHRASES, all in REPLY_INDICES). */
export const REPLY_ORDER: readonly number[] = fixedShuffle(REPLY_INDICES.length, 0x7265706c).map((i) => REPLY_INDICES[i]!);

/** n modulo len, for any number (negative, fractional, NaN → 0). */
function slot(n: number, len: number): number {
  const k = Number.isFinite(n) ? Math.trunc(n) : 0;
  return ((k % len) + len) % len;
}

/** Phrase index in lang: the phrasebook's wording, or for an unsupported language the English in the marked form ("[en→ja] ..."). */
function phraseIn(index: number, lang: string): { text: string; index: number } {
  const key = normaliseLang(lang);
  const phrase = PHRASES[index]!;
  return { text: isSupportedLang(key) ? phrase[key]! : markUntranslated(phrase.en!, 'en', key), index };
}

/**
 * A robot's nth phrase, in lang; index is its place in PHRASES. Goes through
 * every phrase in PHRASE_ORDER, then starts over (n and n + PHRASES.length
 * give the same phrase).
 */
export function robotPhrase(n: number, lang: string): { text: string; index: number } {
  return phraseIn(PHRASE_ORDER[slot(n, PHRASE_ORDER.length)]!, lang);
}

/** A robot's nth reply to something said, in lang; like robotPhrase over the reply phrases (REPLY_ORDER). */
export function robotReply(n: number, lang: string): { text: string; index: number } {
  return phraseIn(REPLY_ORDER[slot(n, REPLY_ORDER.length)]!, lang);
}
