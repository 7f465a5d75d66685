// One interface for every machine-translation engine (operator.md, Engines:
// TOLK_TRANSLATE). An engine translates directly between the pairs it
// covers; pivoting through a third language, timeouts, retries, the circuit
// breaker and falling through to the next engine are the chain's
// (chain.ts), so an adapter is only the engine's own protocol.
//
// Languages are the service's codes (`en`, `pt`, `pt-BR`); an adapter maps
// them to its engine's own (Apertium's ISO 639-3 `eng`, DeepL's `PT-BR`).
// Coverage is by primary language: `pt-BR` is covered where `pt` is.

import { EngineError } from '../errors.ts';

export interface TranslationEngine {
  /** Its name in TOLK_TRANSLATE: `apertium`, `libretranslate`, `deepl`, `openai`. */
  readonly name: string;
  /** Where it answers (for `tolk engines` and logs; never with a key in it). */
  readonly url: string;
  /**
   * Learns what it covers (Apertium's /listPairs, LibreTranslate's /languages,
   * DeepL's /v2/languages); called at start and by `tolk engines`. Rejects
   * (EngineError) when the engine does not answer; it then covers nothing
   * until a later load succeeds.
   */
  load(signal: AbortSignal): Promise<void>;
  /** The directed pairs it translates without a pivot, as service codes (`en→es`). */
  pairs(): ReadonlyArray<readonly [from: string, to: string]>;
  /** Whether it translates `from` into `to` directly. */
  covers(from: string, to: string): boolean;
  /**
   * The text in each language of `to` (all covered directly, none equal to
   * `from`): one request where the engine takes several target languages at
   * once, else one request per target, in parallel. Rejects with EngineError
   * (the whole call: the chain retries or falls through for all of `to`).
   */
  translate(text: string, from: string, to: readonly string[], signal: AbortSignal): Promise<Record<string, string>>;
  /** Requests sent to the engine since it was made (translations, not loads): the benchmark counts them. */
  readonly requests: number;
  /**
   * A generative engine (a language model) writes whatever its input talks
   * it into; its answers are checked against a second engine's translation
   * where one covers the pair (chain.ts, guard.ts).
   */
  readonly generative?: boolean;
  /**
   * A local engine that has some texts at hand (test mode's simulator: the
   * phrasebook's lines): their translation at once, the same on every
   * process, so it is neither claimed nor stored; null for any other text.
   * Such an engine covers no pair and is never sent a request.
   */
  instant?(text: string, from: string, to: string): string | null;
}

/** The primary language of a code, lower case: `pt-BR` → `pt`, `EN` → `en`. */
export function baseLang(code: string): string {
  return code.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/**
 * translate() of an engine that takes one target language per request
 * (Apertium, LibreTranslate, DeepL): each target of `to` in parallel, by its
 * pair (`pairOf`); a target it has no pair for is a permanent EngineError.
 */
export async function eachTarget<P>(
  engine: string, from: string, to: readonly string[], pairOf: (lang: string) => P | undefined, one: (pair: P) => Promise<string>,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  await Promise.all(to.map(async (lang) => {
    const pair = pairOf(lang);
    if (pair === undefined) throw new EngineError(`${engine} has no pair ${from}→${lang}`, { permanent: true });
    out[lang] = await one(pair);
  }));
  return out;
}
