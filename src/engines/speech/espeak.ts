import { createRequire } from 'node:module';
import { SpeechError, type Speech } from './synthesizer.ts';
import { ThreadedSynthesizer } from './threaded.ts';

// eSpeak-NG as an optional engine for the languages SVOX Pico lacks
// (Portuguese, Dutch, Japanese and a hundred more). It is GPL-3.0, so the
// service does not ship it: an operator who wants it installs
// @echogarden/espeak-ng-emscripten next to the service and sets
// TOLK_SPEECH_ENGINES=pico,espeak (Pico first, eSpeak for the rest). Its
// voice is plainly synthetic; Pico's is used wherever Pico speaks.

/** The language tags its voices cover (its list_voices, lower case). */
const LANGS = new Set(`af am an ar as az ba be bg bn bpy bs ca cmn cs cv cy da de el en en-029 en-gb en-us eo es es-419 es-mx
  et eu fa fi fo fr fr-be fr-ch fr-fr ga gd gn grc gu hak haw he hi hr ht hu hy hyw ia id io is it ja jbo ka kaa kk kl kn ko kok
  ku ky la lb lfn lt ltg lv mi mk ml mr ms mt my nb nci ne nl no nog om or pa pap pl pt pt-br pt-pt py qu quc ro ru sd shn si sk
  sl smj sq sr sv sw ta te th ti tk tn tr tt ug uk ur uz vi yue zh`.split(/\s+/).filter(Boolean));

export const ESPEAK_PACKAGE = '@echogarden/espeak-ng-emscripten';

/** Its voice for a language tag: the exact tag, else its base language; undefined when it has none. */
export function espeakVoice(lang: string): string | undefined {
  const tag = lang.toLowerCase();
  if (LANGS.has(tag)) return tag;
  const base = tag.split('-')[0]!;
  return LANGS.has(base) ? base : undefined;
}

/** Whether the package is installed where the service can load it. */
export function espeakInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve(`${ESPEAK_PACKAGE}/package.json`);
    return true;
  } catch {
    return false;
  }
}

export class EspeakSynthesizer extends ThreadedSynthesizer {
  readonly name = 'espeak-ng';

  constructor() {
    if (!espeakInstalled()) throw new Error(`eSpeak-NG is not installed: npm install ${ESPEAK_PACKAGE} (GPL-3.0), or leave espeak out of TOLK_SPEECH_ENGINES`);
    super(new URL('./espeak-worker.ts', import.meta.url));
  }

  speaks(lang: string): boolean {
    return espeakVoice(lang) !== undefined;
  }

  synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const v = (voice && espeakVoice(voice)) || espeakVoice(lang);
    if (!v) return Promise.reject(new SpeechError(`${this.name} does not speak ${lang}`));
    return this.request(v, text);
  }
}
