import { makeSynthesizer, type SpeechConfig } from './speech/index.ts';
import type { SpeechSynthesizer } from './speech/synthesizer.ts';
import type { Route } from './translate/chain.ts';
import { baseLang } from './translate/engine.ts';

// What this service can do for one person's languages in a room:
// speak by microphone (a recognizer of TOLK_RECOGNIZE hears `speak`), hear
// aloud (an engine of TOLK_SPEECH_ENGINES speaks `hear`), and the translation
// routes of TOLK_TRANSLATE between the person and the room: from each other
// language of the room into `hear` (what they read) and from `speak` into
// each of them (what the others read of them), directly or through a pivot
// (translate/chain.ts). One answer for POST /v1/rooms/{id}/join-links and the
// room page (GET /r/{id}/audio-info), so the API and the page never disagree.
//
// It asks the engines as the service runs them, at this moment: a
// translation engine that has not loaded yet covers nothing until it does.
// It says what the engines do, not what test mode adds: there the robots'
// phrasebook lines keep their translations whatever this says (operator.md,
// Test-mode simulator); anything a person types or says follows it.
//
// Engine names are the operators' (TOLK_TRANSLATE, TOLK_RECOGNIZE,
// TOLK_SPEECH_ENGINES: `apertium`, `pocketsphinx`, `pico`), as `npx tolk
// engines` prints them, so a name here is one an operator can look up.

/** One direction of translation between two languages. */
export type TranslationRoute = {
  from: string;
  to: string;
  /** Whether an engine translates it; false: the text is shown as it was said. */
  translated: boolean;
  /** The engine (its TOLK_TRANSLATE name), null when none covers it. */
  engine: string | null;
  /** The pivot language it goes through (en→es→pt: `es`), null when direct or not translated. */
  via: string | null;
};

export type LanguageCoverage = {
  speak: string;
  hear: string;
  /** The room's languages the routes are for: its `langs`, or `speak` and `hear` when it declares none. */
  room_langs: string[];
  microphone: { available: boolean; lang: string; engine: string | null };
  read_aloud: { available: boolean; lang: string; engine: string | null };
  /** From each of room_langs other than `hear` into `hear`: what the person reads. */
  into_hear: TranslationRoute[];
  /** From `speak` into each of room_langs other than `speak`: what the others read of the person. */
  from_speak: TranslationRoute[];
};

/** The engines a coverage is asked of: the running service's (Services has each of these). */
export type CoverageEngines = {
  translation?: { chain: { route(from: string, to: string): Route | null } };
  recognizer?: { engineFor(lang: string): string | null };
  config: SpeechConfig;
};

/** The engines of TOLK_SPEECH_ENGINES with their names, made once per configuration only to ask what they speak (a thread starts only when one speaks). */
const synthesizers = new WeakMap<SpeechConfig, Array<{ name: string; engine: SpeechSynthesizer }>>();

/**
 * The engine of TOLK_SPEECH_ENGINES that speaks `lang` (its name), as the page's read-aloud picks it
 * (the first that speaks it, synthesizer.ts FirstThatSpeaks); null when none does. An engine that
 * cannot be made here (its key missing, its package not installed) speaks nothing.
 */
export function speechEngineFor(config: SpeechConfig, lang: string): string | null {
  let list = synthesizers.get(config);
  if (!list) {
    list = [];
    for (const spec of config.speechEngines) {
      try {
        list.push({ name: spec.split('=')[0]!, engine: makeSynthesizer(spec, config) });
      } catch {
        // Left out: it speaks nothing.
      }
    }
    synthesizers.set(config, list);
  }
  return list.find((e) => e.engine.speaks(lang))?.name ?? null;
}

function routeOf(e: CoverageEngines, from: string, to: string): TranslationRoute {
  const r = e.translation?.chain.route(from, to) ?? null;
  return { from, to, translated: r !== null, engine: r?.engine.name ?? null, via: r?.via ?? null };
}

/** Each language once by its primary language (`pt` and `pt-BR` are one), the first spelling kept. */
function distinct(langs: readonly string[]): string[] {
  const seen = new Set<string>();
  return langs.filter((l) => {
    const b = baseLang(l);
    if (!b || seen.has(b)) return false;
    seen.add(b);
    return true;
  });
}

/** What the service can do for a person speaking `speak` and hearing `hear` in a room of `roomLangs`. */
export function languageCoverage(e: CoverageEngines, speak: string, hear: string, roomLangs: readonly string[]): LanguageCoverage {
  // A room that declares no languages is taken to speak the person's own two (as sessions/coverage.ts does for agents).
  const langs = distinct(roomLangs.length > 0 ? roomLangs : [speak, hear]);
  const mic = e.recognizer?.engineFor(speak) ?? null;
  const voice = speechEngineFor(e.config, hear);
  return {
    speak,
    hear,
    room_langs: langs,
    microphone: { available: mic !== null, lang: speak, engine: mic },
    read_aloud: { available: voice !== null, lang: hear, engine: voice },
    into_hear: langs.filter((l) => baseLang(l) !== baseLang(hear)).map((l) => routeOf(e, l, hear)),
    from_speak: langs.filter((l) => baseLang(l) !== baseLang(speak)).map((l) => routeOf(e, speak, l)),
  };
}

/**
 * The languages of `codes` (a page's menus) a person would find nothing translated in, in a room of
 * `roomLangs`: `hear` those no other language of the room is translated into, `speak` those
 * translated into none of them. A room that declares no languages is measured against the other
 * languages of `codes`: marked is then a language no engine covers at all. A language that is the
 * room's only one needs no translation and is never marked.
 */
export function untranslatedLanguages(e: CoverageEngines, codes: readonly string[], roomLangs: readonly string[]): { speak: Set<string>; hear: Set<string> } {
  const room = distinct(roomLangs);
  const speak = new Set<string>();
  const hear = new Set<string>();
  for (const x of codes) {
    const others = (room.length > 0 ? room : distinct(codes)).filter((l) => baseLang(l) !== baseLang(x));
    if (others.length === 0) continue;
    if (!others.some((l) => e.translation?.chain.route(l, x))) hear.add(x);
    if (!others.some((l) => e.translation?.chain.route(x, l))) speak.add(x);
  }
  return { speak, hear };
}
