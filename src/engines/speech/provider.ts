import type { EngineError } from '../errors.ts';
import { baseLang } from '../translate/engine.ts';
import { SpeechError } from './synthesizer.ts';

// What the recognizers and synthesizers of a provider reached over the
// network (deepgram, vosk, openai, elevenlabs) set up alike: the languages
// they take, and how long one request may take. The embedded engines
// (pocketsphinx, pico, espeak) share none of it: what they take is their
// model's or their voices', and their limits are those of the processes and
// threads they run (supervisor.ts, threaded.ts).

/** A language tag (`en`, `pt-BR`, `zh-Hant`). */
const TAG = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;

export type ProviderLimitsOptions = {
  /** The languages it takes (by primary language); any language tag when absent (a model that has no list). */
  langs?: readonly string[];
  /** Gives up on a request after this long (default 10 s), besides the caller's signal. */
  timeoutMs?: number;
};

export class ProviderLimits {
  readonly timeoutMs: number;
  private readonly langs: ReadonlySet<string> | null;

  constructor(o: ProviderLimitsOptions) {
    this.langs = o.langs ? new Set(o.langs.map(baseLang).filter(Boolean)) : null;
    this.timeoutMs = o.timeoutMs ?? 10_000;
  }

  /** Whether it takes `lang`: one of its languages, whatever the region or script (`pt-BR` is `pt`). */
  takes(lang: string): boolean {
    return this.langs ? this.langs.has(baseLang(lang)) : TAG.test(lang);
  }

  /** The signal of one request: the caller's, if any, and the time limit. */
  signal(caller?: AbortSignal): AbortSignal {
    return caller ? AbortSignal.any([caller, AbortSignal.timeout(this.timeoutMs)]) : AbortSignal.timeout(this.timeoutMs);
  }
}

/** A synthesizer's failure as the interface's error, carrying the engine's (status, Retry-After, permanent) as its cause. */
export function speechFailure(e: EngineError): SpeechError {
  return new SpeechError(e.message, { cause: e });
}
