// The languages Whisper's multilingual models hear, in the order of their
// language tokens (openai/whisper, tokenizer.py LANGUAGES: the first is token
// 50259): 99 languages, as BCP 47 primary tags where Whisper writes another
// code (`jw` is Javanese, `jv`; `haw` stays as it is).
export const WHISPER_LANGUAGES = [
  'en', 'zh', 'de', 'es', 'ru', 'ko', 'fr', 'ja', 'pt', 'tr', 'pl', 'ca', 'nl', 'ar', 'sv', 'it', 'id', 'hi', 'fi', 'vi',
  'he', 'uk', 'el', 'ms', 'cs', 'ro', 'da', 'hu', 'ta', 'no', 'th', 'ur', 'hr', 'bg', 'lt', 'la', 'mi', 'ml', 'cy', 'sk',
  'te', 'fa', 'lv', 'bn', 'sr', 'az', 'sl', 'kn', 'et', 'mk', 'br', 'eu', 'is', 'hy', 'ne', 'mn', 'bs', 'kk', 'sq', 'sw',
  'gl', 'mr', 'pa', 'si', 'km', 'sn', 'yo', 'so', 'af', 'oc', 'ka', 'be', 'tg', 'sd', 'gu', 'am', 'yi', 'lo', 'uz', 'fo',
  'ht', 'ps', 'tk', 'nn', 'mt', 'sa', 'lb', 'my', 'bo', 'tl', 'mg', 'as', 'tt', 'haw', 'ln', 'ha', 'ba', 'jw', 'su',
] as const;

/** Whisper's code for a BCP 47 primary tag (they differ for Javanese only). */
export function whisperCode(tag: string): string {
  return tag === 'jv' ? 'jw' : tag;
}

/** The BCP 47 primary tag of a Whisper language code. */
export function bcp47Of(code: string): string {
  return code === 'jw' ? 'jv' : code;
}
