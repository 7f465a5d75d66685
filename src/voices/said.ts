import type { Services } from '../services.ts';
import { loadResampler, resample } from '../engines/speech/resample.ts';
import { saidInOrder, words } from '../engines/speech/wer.ts';
import { consentSentence, sentenceDay, sentenceLang } from './texts.ts';

// Whether a consent recording says the consent sentence. When a recognizer
// of TOLK_RECOGNIZE hears the sentence's language, the recording is
// recognized and must have at least CONSENT_MIN_SAID of the sentence's own
// words (the template's: the person's, the organization's and the voice's
// names and the date are left out, as a recognizer cannot be expected to
// spell names), in order. Measured (test/voices/consent-said.test.ts) with
// the embedded PocketSphinx: the sentence spoken by SVOX Pico has 0.38 of its
// words heard; five sentences of a book read by a person in its place, 0.00
// to 0.08. The threshold sits between: the check refuses a recording of
// something else, and a weak recognizer does not refuse a person who read
// the sentence. (eSpeak's robotic voice is heard at 0.15: refused.) Where no
// recognizer hears the language, nothing is checked beyond the recording's
// length and sound (the page claims no more).

/** The share of the consent sentence's own words a recording must have, in order. */
export const CONSENT_MIN_SAID = 0.25;

/** The sentence's own words in a language (its template without the names and the date). */
export function sentenceWords(language: string): string[] {
  const blank = '\u0001';
  const at = new Date(Date.UTC(2000, 0, 1));
  const { lang, text } = consentSentence(language, { person: blank, org: blank, voice: blank, date: at });
  return words(text.replaceAll(blank, ' ').replace(sentenceDay(lang, at), ' '));
}

export type SaidCheck = { checked: false } | { checked: true; said: number; heard: string | null; ok: boolean };

/** Checks a recording (mono 16-bit PCM at `rate`) against the consent sentence of a voice in `language`. */
export async function checkSaid(s: Services, pcm: Int16Array, rate: number, language: string): Promise<SaidCheck> {
  const lang = sentenceLang(language);
  if (!s.recognizer?.hears(lang)) return { checked: false };
  await loadResampler();
  // A microphone's recording keeps up to 16 kHz (what recognizers read best); a phone line's is 8 kHz.
  const to = Math.min(rate, 16_000);
  const audio = rate === to ? pcm : resample(pcm, rate, to);
  const { text } = await s.recognizer.recognize({ key: 'consent', pcm: audio, rate: to, audioMs: Math.round((audio.length * 1000) / to), lang, at: Date.now() });
  const said = saidInOrder(sentenceWords(language), words(text ?? ''));
  return { checked: true, said, heard: text, ok: said >= CONSENT_MIN_SAID };
}
