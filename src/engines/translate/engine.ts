// One interface for every machine-translation engine (operator.md, Engines:
// TOLK_TRANSLATE). An engine translates directly between the pairs it
// covers; pivoting through a third language, timeouts, retries, the circuit
// breaker and falling through to the next engine are the chain's
// (chain.ts), so an adapter is only the engine's own protocol.
//
// Languages are the service's codes (`en`, `pt`, `pt-BR`); an adapter maps
// them to its engine's own (Apertium's ISO 639-3 `eng`, DeepL's `PT-BR`).
// Coverage is by primary language: `pt-BR` is covered where `pt` is.

/** A failure of one request to an engine. */
export class EngineError extends Error {
  /** HTTP status, when the engine answered one. */
  readonly status: number | null;
  /** The engine asked to be left alone this long (429/503 with Retry-After). */
  readonly retryAfterMs: number | null;
  /** Retrying cannot help (401, 403, 400, a pair it does not have): go to the next engine at once. */
  readonly permanent: boolean;
  /**
   * The engine answered, and its answer was refused (guard.ts: not a
   * translation of the text). Not a failure of the engine: its breaker is
   * not moved (a few injected phrases must not take it out for everyone),
   * nor is it asked again (it would answer the same).
   */
  readonly refused: boolean;
  constructor(message: string, o: { status?: number | null; retryAfterMs?: number | null; permanent?: boolean; refused?: boolean } = {}) {
    super(message);
    this.name = 'EngineError';
    this.status = o.status ?? null;
    this.retryAfterMs = o.retryAfterMs ?? null;
    this.permanent = o.permanent ?? false;
    this.refused = o.refused ?? false;
  }
}

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
}

/** The primary language of a code, lower case: `pt-BR` → `pt`, `EN` → `en`. */
export function baseLang(code: string): string {
  return code.trim().toLowerCase().split(/[-_]/)[0] ?? '';
}

/** Retry-After (seconds or an HTTP date) in milliseconds, or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const t = Date.parse(header);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

/**
 * An HTTP answer that is not a success, as an EngineError: 429 and 503 carry
 * their Retry-After; 400, 401, 403, 404 and 456 (DeepL: quota exceeded) are
 * permanent for this request; other statuses may pass.
 */
export function httpError(engine: string, res: { status: number; headers: { get(name: string): string | null } }, body: string): EngineError {
  const permanent = [400, 401, 403, 404, 413, 456].includes(res.status);
  return new EngineError(`${engine} answered ${res.status}: ${body.slice(0, 200).replace(/\s+/g, ' ')}`, {
    status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), permanent,
  });
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

/**
 * An OpenAI-compatible server's address as the operator wrote it (with or
 * without `/v1`, a trailing slash or not): `url` for logs, `api` the base
 * the paths hang from, ending in /v1.
 */
export function openaiBase(raw: string): { url: string; api: string } {
  const url = raw.replace(/\/+$/, '');
  return { url, api: /\/v1$/.test(url) ? url : `${url}/v1` };
}
