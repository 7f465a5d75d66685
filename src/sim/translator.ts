import { PHRASES, REPLY_INDICES, isSupportedLang, markUntranslated, normaliseLang } from '../engines/sim/phrasebook.ts';

// What the test-mode robots say (operator.md, Test-mode simulator): the
// phrasebook's phrases in a fixed order. Their translations are the
// simulated translation engine's (engines/sim), re-exported here with the
// phrasebook's language helpers.

export { SUPPORTED_LANGS, markUntranslated, normaliseLang, parseUntranslated, isSupportedLang } from '../engines/sim/phrasebook.ts';
export { SimulatedTranslator, phraseIndexOf, simulatedTranslator } from '../engines/sim/translator.ts';

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
