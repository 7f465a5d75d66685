import { SpeechError, type Speech } from '../speech/synthesizer.ts';
import { ThreadedSynthesizer } from '../speech/threaded.ts';
import type { BackoffOptions } from '../supervisor.ts';

// The embedded engine: SVOX Pico in a worker thread (worker.ts), with its
// lingware in lang/ (Apache-2.0, see its NOTICE). It speaks English (US
// and GB), German, Spanish, French and Italian; other languages (Portuguese
// among them) need another provider.

/** Voices by language, a base tag naming its main voice. */
const VOICE_OF: Record<string, string> = {
  en: 'en-US', 'en-us': 'en-US', 'en-gb': 'en-GB',
  de: 'de-DE', 'de-de': 'de-DE',
  es: 'es-ES', 'es-es': 'es-ES',
  fr: 'fr-FR', 'fr-fr': 'fr-FR',
  it: 'it-IT', 'it-it': 'it-IT',
};

/** The Pico voice for a language tag, or undefined: the exact tag first, then its base language. */
export function picoVoice(lang: string): string | undefined {
  const tag = lang.toLowerCase();
  return VOICE_OF[tag] ?? VOICE_OF[tag.split('-')[0]!];
}

export class PicoSynthesizer extends ThreadedSynthesizer {
  readonly name = 'svox-pico';

  /** backoff: the pauses before its thread is started again after it died (supervisor.ts). */
  constructor(o: { backoff?: BackoffOptions } = {}) {
    super(new URL('./worker.ts', import.meta.url), o);
  }

  speaks(lang: string): boolean {
    return picoVoice(lang) !== undefined;
  }

  languages(): string[] {
    return Object.keys(VOICE_OF);
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const v = voice && picoVoice(voice) ? picoVoice(voice)! : picoVoice(lang);
    if (!v) return Promise.reject(new SpeechError(`${this.name} does not speak ${lang} (it speaks en, de, es, fr, it)`));
    return this.request(v, text);
  }
}
