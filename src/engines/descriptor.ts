import type { SpeechRecognizer } from './speech/recognizer.ts';
import type { SpeechSynthesizer } from './speech/synthesizer.ts';
import type { TranslationEngine } from './translate/engine.ts';

// What an engine's folder exports (engines/<name>/index.ts), and what the
// configuration and the start read of it through the one list of them
// (registry.ts): its name in the environment's lists, each kind of work it
// does (translation in TOLK_TRANSLATE, recognition in TOLK_RECOGNIZE, speech
// in TOLK_SPEECH_ENGINES) with whether its list entry takes a URL, the
// settings it reads, what it covers, and how it is made.

/** One entry of an engine list: `NAME` or `NAME=URL`. */
export type EngineSpec = { name: string; url?: string };

/** The engines' keys and models, read from the environment by config.ts (never logged). */
export type TranslateKeys = { libretranslate?: string; deepl?: string; openai?: string; openaiTranslateModel: string };
export type SpeechKeys = { deepgram?: string; elevenlabs?: string; openai?: string; openaiSttModel: string; openaiTtsModel: string; voskLangs: string[] };

/** What a translation engine is made with: the keys, and (apertium without a URL) the address of the apertium-apy this process runs. */
export type TranslateSettings = { engineKeys: TranslateKeys; apyUrl?: string | (() => string) };
/** What a recognizer or a synthesizer is made with. */
export type SpeechSettings = { speechKeys: SpeechKeys };

/** Whether an entry takes a URL: never, optionally, or always (the engine is nowhere else). */
export type UrlRule = 'none' | 'optional' | 'required';

type Kind<E, S> = {
  url: UrlRule;
  /** The engine of an entry; throws an Error whose message stops the start (a key missing). */
  create(spec: EngineSpec, s: S): E;
};

export type EngineDescriptor = {
  /** Its name in the environment's lists. */
  name: string;
  /** What it covers, in a few words (docs/engines.md, `tolk engines`). */
  covers: string;
  /** The environment variables it reads besides the lists (keys, models). */
  settings: readonly string[];
  /** Test mode's own: made by the service, never named in a list. */
  testModeOnly?: boolean;
  translate?: Kind<TranslationEngine, TranslateSettings>;
  recognize?: Kind<SpeechRecognizer, SpeechSettings>;
  speak?: Kind<SpeechSynthesizer, SpeechSettings>;
};

export type EngineKindName = 'translate' | 'recognize' | 'speak';
