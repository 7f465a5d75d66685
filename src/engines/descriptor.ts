import type { SpeechRecognizer } from './speech/recognizer.ts';
import type { SpeechSynthesizer } from './speech/synthesizer.ts';
import type { TranslationEngine } from './translate/engine.ts';
import type { ModelEntry } from './models/catalog.ts';

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
export type SpeechKeys = { deepgram?: string; elevenlabs?: string; openai?: string; openaiSttModel: string; openaiTtsModel: string; voskLangs: string[]; /** TOLK_WHISPER_MODEL: which installed Whisper model (engines/whisper). */ whisperModel?: string };

/** What a translation engine is made with: the keys, and (an entry without a URL of an engine with an ownServer) where the server this process runs for it answers now. */
export type TranslateSettings = { engineKeys: TranslateKeys; ownUrl?: () => string; /** TOLK_MODELS_DIR: the offline engines' models (engines/models). */ modelsDir: string };
/** What a recognizer or a synthesizer is made with. */
export type SpeechSettings = { speechKeys: SpeechKeys; /** TOLK_MODELS_DIR: the offline engines' models (engines/models). */ modelsDir: string };

/** Whether an entry takes a URL: never, optionally, or always (the engine is nowhere else). */
export type UrlRule = 'none' | 'optional' | 'required';

type Kind<E, S> = {
  url: UrlRule;
  /** The engine of an entry; throws an Error whose message stops the start (a key missing). */
  create(spec: EngineSpec, s: S): E;
};

/** A server an engine's folder runs (ownServer), as started: where it answers now (a restarted one may move), and its stop. */
export type RunningServer = { url: () => string; stop(): Promise<void> };

/**
 * A translation engine that, listed without a URL, runs its own server on
 * this machine (apertium: Debian's apertium-apy), as the embedded PostgreSQL
 * is run. The start runs it before making the engine, which it gives the
 * server's address (TranslateSettings.ownUrl); one that cannot start leaves
 * the engine out, with the rejection's sentence in the log.
 */
export type OwnServer = {
  /** What runs, as the log and `npx tolk engines` name it (`apertium-apy`). */
  what: string;
  /**
   * Starts it for the service, kept running: one that dies is logged and
   * started again (supervisor.ts); onDown and onUp (once it is back) tell
   * the engine that uses it. Never on one of avoidPorts.
   */
  supervise(o: {
    avoidPorts: readonly number[];
    log: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };
    onDown: () => void;
    onUp: () => void | Promise<void>;
  }): Promise<RunningServer>;
  /** Starts it once, for a question (`npx tolk engines`): nothing starts it again. */
  start(): Promise<RunningServer>;
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
  translate?: Kind<TranslationEngine, TranslateSettings> & { ownServer?: OwnServer };
  recognize?: Kind<SpeechRecognizer, SpeechSettings>;
  speak?: Kind<SpeechSynthesizer, SpeechSettings>;
  /** An engine of offline models (models/catalog.ts): what it makes of a model's checked files before it is installed in `folder`. */
  prepareModel?(m: ModelEntry, folder: string): Promise<void>;
};

export type EngineKindName = 'translate' | 'recognize' | 'speak';
