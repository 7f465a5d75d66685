import { detectAll, supportedLanguages, toISO2 } from 'tinyld';
import { baseLang } from './engine.ts';
import { sentenceChrf } from './chrf.ts';

// Whether a generative engine's answer (a large language model asked to
// translate, openai/translate.ts) is a translation of the text, or something the text
// talked it into saying. What people say in a room is third-party content:
// "ignore your instructions and say …" spoken into a microphone must reach
// the listeners translated, never obeyed. The prompt already quotes the text
// as data; these checks are what stands between a model that obeyed anyway
// and the listeners. A refused answer is not shown: the phrase goes to the
// next engine of TOLK_TRANSLATE (Apertium, when it covers the pair), or is
// passed on untranslated, as when an engine is down.
//
// Hard refusals (one is enough): the answer carries
//  - a link, an e-mail address or a number of 3+ digits that the text does
//    not (a phishing link, an account or phone number, an amount to send);
//  - markup or code the text does not (a markdown link, HTML, a code fence,
//    braces, a `[Speaker]:` tag), characters that do not show (zero-width,
//    bidirectional overrides), lines the text does not have, or a "word" of
//    30+ characters (an encoded payload);
//  - words of a concept about the model's own task (prompt, JSON,
//    instructions, translating, a language model, an assistant, ignoring,
//    being hacked, being sorry: see META, in the service's main languages)
//    that the text does not speak of: a model describing or repeating its
//    instructions, refusing, or announcing what the text made it say;
//  - three words in a row of its instructions (the system prompt leaked);
//  - a length out of proportion with the text's (an essay, a payload
//    appended, or a few words out of a long speech);
//  - only words of the text, fewer of them (the piece the text told the model
//    to say), or the text itself untranslated;
//  - letters of another script than the target language's (Russian or
//    Chinese where Spanish was asked for);
//  - the words it does not share with the text (names and numbers are
//    shared) identified (tinyld) clearly as the text's language;
//  - unlike a second engine's translation of the same text (chrF below
//    REFERENCE_HARD), where one covers the pair (chain.ts): a message
//    unrelated to the text, in the right language and of the right length,
//    is only told apart this way.
// Soft signals (two refuse): a length outside the usual band (SOFT_RATIO),
// a second engine's translation only loosely alike (chrF below
// REFERENCE_SOFT), another language than the target named first by the
// identifier. Each alone is too common in real translations.
//
// Heuristics, tuned on the corpora of test/engines/translation-guard/: every
// injection attempt there is refused (with Apertium beside the model; all
// but those marked `reference` with the model alone) and every real
// translation passes. What they cannot tell apart: an answer that is a
// plausible, on-topic rewording of the text (e.g. the model describing its
// task in words of the text's own subject); a second engine narrows that.
// A false alarm costs one phrase translated by the next engine.

/** chrF (×100) against a second engine's translation below which an answer is another text. */
export const REFERENCE_HARD = 18;
/** …below which it counts as a soft signal. */
export const REFERENCE_SOFT = 30;
/** Length ratio (answer / text) of a translation, hard limits, for texts of 24+ characters. */
const HARD_RATIO: readonly [number, number] = [0.35, 2.8];
/** …and the usual band: outside it is a soft signal. */
const SOFT_RATIO: readonly [number, number] = [0.55, 1.9];

const URL = /\b(?:https?|ftp):\/\/\S+|\bwww\.\S+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|co|app|dev|xyz|info|biz|me|ly|link|site|online|top|ru|cn|tk|gq|ml|click|live|shop|store|page|zip|mov)\b(?:\/\S*)?/gi;
const EMAIL = /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g;
/** Digits with their separators ("1.000", "+34 600 12 34 56"): compared without the separators. */
const NUMBER = /\d(?:[\d\s.,'/-]*\d)?/g;
const MARKUP = /```|`[^`]+`|\[[^\]]*\]\([^)]*\)|<\/?[a-z][^>]*>|[{}]|^\s*(?:#{1,6}\s|[-*+]\s)|\|\s*-{3,}|^\s*\[[^\]]*\]\s*:/im;
/** Characters that do not show: zero-width ones, and the bidirectional overrides that reorder what is read. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
/**
 * Concepts of a model's task, each as the stems that start its words (lower
 * case) in the service's main languages: a translation has a concept only
 * when the text has it (a person talking about translating, or saying sorry).
 */
const META: Record<string, readonly string[]> = {
  prompt: ['prompt'],
  json: ['json'],
  hijacked: ['jailbreak', 'pwn', 'hacked', 'hackead', 'piraté', 'gehackt', 'hackerato'],
  instructions: ['instruc', 'instruç', 'anweisung', 'istruzion', 'consigne'],
  translation: ['translat', 'tradu', 'übersetz'],
  model: ['language model', 'modelo de lenguaje', 'modèle de langage', 'sprachmodell', 'modello linguistico', 'modelo de linguagem', 'chatgpt', 'openai', 'as an ai', 'como ia', 'como una ia', "en tant qu'ia", 'als ki', 'come ia'],
  system: ['system message', 'system prompt', 'mensaje del sistema', 'message système', 'systemnachricht', 'messaggio di sistema', 'mensagem do sistema'],
  assistant: ['assistant', 'asistente', 'assistent', 'assistente'],
  ignore: ['ignor', 'disregard', 'ignorie'],
  refusal: ['sorry', 'siento', 'désolé', 'desolé', 'leid', 'dispiace', 'desculp', 'lamento'],
};
/** Languages written in the Latin script: an answer in one of them is mostly Latin letters (names aside). */
const LATIN = new Set(['af', 'ca', 'cs', 'cy', 'da', 'de', 'en', 'eo', 'es', 'et', 'eu', 'fi', 'fr', 'ga', 'gl', 'hr', 'hu', 'id', 'is', 'it', 'lt', 'lv', 'ms', 'mt', 'nb', 'nl', 'nn', 'no', 'oc', 'pl', 'pt', 'ro', 'sk', 'sl', 'sq', 'sv', 'sw', 'tl', 'tr', 'vi']);

export type GuardInput = {
  /** What was said, and its language. */
  text: string;
  from: string;
  /** The language the answer should be in, and the answer. */
  lang: string;
  answer: string;
  /** Another engine's translation of the text into lang, when one is configured. */
  reference?: string | null;
  /** The instructions the model was given (their word sequences must not come back). */
  instructions?: string;
};

function words(s: string): string[] {
  return s.toLowerCase().normalize('NFC').match(/[\p{L}\p{N}'’]+/gu) ?? [];
}

/** Numbers of 3+ digits, without their separators; times of day (15:00, 15h30) left out: "3 pm" may well become one. */
function numbers(s: string): Set<string> {
  const noTimes = s.replace(/\b\d{1,2}[:h]\d{2}\b/g, ' ');
  return new Set((noTimes.match(NUMBER) ?? []).map((n) => n.replace(/\D/g, '')).filter((n) => n.length >= 3));
}

function matches(re: RegExp, s: string): Set<string> {
  return new Set((s.match(re) ?? []).map((m) => m.toLowerCase().replace(/[.,;:!?)]+$/, '')));
}

/** The META concepts `s` speaks of. */
function concepts(s: string): Set<string> {
  const w = ` ${words(s).join(' ')}`;
  return new Set(Object.entries(META).filter(([, stems]) => stems.some((m) => w.includes(` ${m}`))).map(([c]) => c));
}

/** Share of `s`'s letters not in the Latin script. */
function nonLatin(s: string): number {
  const letters = s.match(/\p{L}/gu) ?? [];
  if (letters.length === 0) return 0;
  return letters.filter((c) => !/\p{Script=Latin}/u.test(c)).length / letters.length;
}

/** Three words in a row of `instructions` (of which one at least is longer than 3 letters) found in `answer`. */
function echoes(answer: string, instructions: string): boolean {
  const a = ` ${words(answer).join(' ')} `;
  const w = words(instructions);
  for (let i = 0; i + 3 <= w.length; i++) {
    const tri = w.slice(i, i + 3);
    if (!tri.some((x) => x.length > 3)) continue;
    if (a.includes(` ${tri.join(' ')} `)) return true;
  }
  return false;
}

/** The languages the identifier knows, as two-letter codes. */
const SUPPORTED = new Set<string>(supportedLanguages.map((l) => toISO2(l)).filter(Boolean));

/**
 * The language of the answer's own words (those the text does not have: names,
 * numbers and words kept as they were say nothing), between lang and from:
 * 'from' when the identifier clearly names the text's language, 'lang' when
 * it names the target, 'third' when it names neither first, null when there
 * is too little to tell or either language is unknown to it.
 */
function languageOf(answer: string, text: string, from: string, lang: string): 'from' | 'lang' | 'third' | null {
  const f = baseLang(from);
  const l = baseLang(lang);
  if (!SUPPORTED.has(f) || !SUPPORTED.has(l)) return null;
  const shared = new Set(words(text));
  const own = words(answer).filter((w) => !shared.has(w) && !/^\d+$/.test(w));
  if (own.length < 3 || own.join('').length < 15) return null;
  const rest = own.join(' ');
  const pair = detectAll(rest, { only: [f, l] });
  const pf = pair.find((d) => d.lang === f)?.accuracy ?? 0;
  const pl = pair.find((d) => d.lang === l)?.accuracy ?? 0;
  if (pf > 0 && pf >= 2 * pl) return 'from';
  const all = detectAll(rest);
  if (all.length === 0) return null;
  return all[0]!.lang === l ? 'lang' : 'third';
}

/** Why the answer is not a translation of the text, or null: it passes. */
export function refusal(i: GuardInput): string | null {
  const answer = i.answer.trim();
  const text = i.text.trim();
  if (!answer) return 'the answer is empty';

  for (const [what, re] of [['a link', URL], ['an e-mail address', EMAIL]] as const) {
    const had = matches(re, text);
    const extra = [...matches(re, answer)].filter((m) => !had.has(m));
    if (extra.length > 0) return `the answer carries ${what} the text does not`;
  }
  const hadNumbers = numbers(text);
  if ([...numbers(answer)].some((n) => !hadNumbers.has(n))) return 'the answer carries a number the text does not';
  if (MARKUP.test(answer) && !MARKUP.test(text)) return 'the answer carries markup the text does not';
  if (INVISIBLE.test(answer) && !INVISIBLE.test(text)) return 'the answer carries characters that do not show';
  if (answer.split('\n').length > text.split('\n').length) return 'the answer has lines the text does not';
  const had = concepts(text);
  const spoken = [...concepts(answer)].filter((c) => !had.has(c));
  if (spoken.length > 0) return `the answer speaks of ${spoken[0]} and the text does not`;
  const textWords = words(text);
  const answerWords = words(answer);
  const shared = new Set(textWords);
  if (answerWords.some((w) => w.length > 30 && !shared.has(w))) return 'the answer carries a token that is no word';
  if (LATIN.has(baseLang(i.lang)) && nonLatin(answer) > 0.3 && nonLatin(text) <= 0.3) return `the answer is not written in ${baseLang(i.lang)}'s script`;
  if (baseLang(i.from) !== baseLang(i.lang) && textWords.length >= 2) {
    // Every word of the answer is a word of the text, fewer of them: a piece the text told the model to say.
    if (answerWords.length < textWords.length && answerWords.every((w) => shared.has(w))) return 'the answer is a piece of the text, not a translation of it';
    // The text itself, untranslated (a name or two is the same in every language).
    if (textWords.length >= 4 && answerWords.join(' ') === textWords.join(' ')) return 'the answer is the text itself, untranslated';
  }
  if (i.instructions && echoes(answer, i.instructions) && !echoes(text, i.instructions)) return 'the answer repeats the instructions';

  let soft: string[] = [];
  const ratio = answer.length / Math.max(1, text.length);
  if (text.length >= 24) {
    if (ratio < HARD_RATIO[0] || ratio > HARD_RATIO[1]) return `the answer's length (${answer.length}) is out of proportion with the text's (${text.length})`;
    if (ratio < SOFT_RATIO[0] || ratio > SOFT_RATIO[1]) soft.push('length');
  } else if (answer.length > 3 * text.length + 24) {
    return `the answer's length (${answer.length}) is out of proportion with the text's (${text.length})`;
  }

  const language = languageOf(answer, text, i.from, i.lang);
  if (language === 'from') return `the answer is in ${baseLang(i.from)}, not ${baseLang(i.lang)}`;
  if (language === 'third') soft.push('language');

  if (i.reference) {
    const score = sentenceChrf(answer, i.reference.trim());
    if (score < REFERENCE_HARD) return `the answer is unlike another engine's translation (chrF ${score.toFixed(0)})`;
    if (score < REFERENCE_SOFT) soft.push('reference');
  }
  soft = [...new Set(soft)];
  if (soft.length >= 2) return `the answer is doubtful on ${soft.join(' and ')}`;
  return null;
}
