import { EngineError, httpError } from '../errors.ts';
import { baseLang, eachTarget, type TranslationEngine } from '../translate/engine.ts';

// LibreTranslate (self-hosted or libretranslate.com), Argos models behind a
// small JSON API (https://docs.libretranslate.com/guides/api_usage/):
// POST /translate {q, source, target, format, api_key?} → {translatedText},
// one target per request, so a phrase into n languages is n requests, sent
// in parallel; GET /languages → [{code, name, targets}] says what each source
// language translates into. Errors are {"error": "..."}: 400 for a bad request
// or a missing key where one is required, 403 for an invalid key (or an
// address banned for flooding), 429 to slow down, 500 when a model fails.
//
// The key travels in the body (`api_key`), as LibreTranslate reads it, never
// in a URL; it is scrubbed from any error text in case a proxy echoes it.
//
// LibreTranslate's codes are mostly two-letter ones, but its versions differ
// on varieties: older servers have `pb` (Brazilian Portuguese) and `zt`
// (Traditional Chinese) beside `zh`, newer ones `pt-BR`, `zh-Hans`, `zh-Hant`.
// Both are read as the service's codes (`pb` → `pt-BR`, `zt` → `zh-Hant`),
// and a service code resolves to the server's own code: the exact variety
// when the server has it, else its base language (`pt-PT` → `pt`).

/** LibreTranslate's non-standard codes as the service's. */
const FROM_LIBRE: Record<string, string> = { pb: 'pt-BR', zt: 'zh-Hant' };

/** Service codes naming a variety LibreTranslate knows under another name. */
const ALIASES: Record<string, string> = {
  'zh-cn': 'zh-Hans', 'zh-sg': 'zh-Hans', 'zh-tw': 'zh-Hant', 'zh-hk': 'zh-Hant', 'zh-mo': 'zh-Hant',
};

/** A base language's default variety where a server may have only varieties (`zh-Hans`, `zh-Hant`). */
const DEFAULT_VARIETY: Record<string, string> = { zh: 'zh-Hans' };

/** A LibreTranslate code as the service's: `pb` → `pt-BR`, `zh-Hans` stays. */
export function fromLibre(code: string): string {
  return FROM_LIBRE[code.toLowerCase()] ?? code;
}

type LibreLanguage = { code: string; name?: string; targets?: string[] };

export class LibreTranslateEngine implements TranslationEngine {
  readonly name = 'libretranslate';
  readonly url: string;
  requests = 0;
  private readonly apiKey: string | undefined;
  /** Server code → the server codes it translates into. */
  private targets = new Map<string, Set<string>>();
  /** Service code, lower case → server code. */
  private codes = new Map<string, string>();
  private direct: Array<readonly [string, string]> = [];

  constructor(o: { url: string; apiKey?: string }) {
    this.url = o.url.replace(/\/+$/, '');
    this.apiKey = o.apiKey || undefined;
  }

  async load(signal: AbortSignal): Promise<void> {
    // Until this load succeeds the engine covers nothing (engine.ts).
    this.targets = new Map();
    this.codes = new Map();
    this.direct = [];
    const body = await this.request('/languages', { signal }, 'GET /languages');
    let langs: LibreLanguage[];
    try {
      langs = JSON.parse(body) as LibreLanguage[];
      if (!Array.isArray(langs) || !langs.every((l) => typeof l?.code === 'string')) throw new Error('not a list');
    } catch {
      throw new EngineError(`libretranslate at ${this.url}: /languages answered something else than its list`);
    }
    const targets = new Map<string, Set<string>>();
    const codes = new Map<string, string>();
    const pairs = new Map<string, readonly [string, string]>();
    for (const l of langs) {
      codes.set(fromLibre(l.code).toLowerCase(), l.code);
      // Older servers list only code and name: then every language translates into every other.
      const to = Array.isArray(l.targets) ? l.targets : langs.map((x) => x.code);
      targets.set(l.code, new Set(to.filter((t) => t !== l.code)));
    }
    for (const [from, to] of targets) {
      for (const t of to) {
        const a = baseLang(fromLibre(from));
        const b = baseLang(fromLibre(t));
        if (a !== b) pairs.set(`${a}\n${b}`, [a, b]);
      }
    }
    this.targets = targets;
    this.codes = codes;
    this.direct = [...pairs.values()];
  }

  pairs() {
    return this.direct;
  }

  /** The server's code for a service code among `allowed`: the exact variety, an alias, the base language, else any variety of it. */
  private resolve(code: string, allowed: Iterable<string>): string | undefined {
    const ok = new Set(allowed);
    const base = baseLang(code);
    const tries = [code, ALIASES[code.toLowerCase()], base, DEFAULT_VARIETY[base]];
    for (const t of tries) {
      const c = t && this.codes.get(t.toLowerCase());
      if (c && ok.has(c)) return c;
    }
    return [...ok].find((c) => baseLang(fromLibre(c)) === base);
  }

  /** The server's [source, target] for from → to, or undefined. */
  private pair(from: string, to: string): readonly [string, string] | undefined {
    if (baseLang(from) === baseLang(to)) return undefined;
    const source = this.resolve(from, this.targets.keys());
    if (!source) return undefined;
    const target = this.resolve(to, this.targets.get(source) ?? []);
    return target ? [source, target] : undefined;
  }

  covers(from: string, to: string): boolean {
    return this.pair(from, to) !== undefined;
  }

  translate(text: string, from: string, to: readonly string[], signal: AbortSignal): Promise<Record<string, string>> {
    return eachTarget(this.name, from, to, (lang) => this.pair(from, lang), ([source, target]) => this.one(text, source, target, signal));
  }

  private async one(q: string, source: string, target: string, signal: AbortSignal): Promise<string> {
    this.requests++;
    const body = await this.request('/translate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ q, source, target, format: 'text', ...(this.apiKey ? { api_key: this.apiKey } : {}) }),
      signal,
    }, `${source}→${target}`);
    let translated: unknown;
    try {
      translated = (JSON.parse(body) as { translatedText?: unknown }).translatedText;
    } catch {
      translated = undefined;
    }
    if (typeof translated !== 'string') throw new EngineError(`libretranslate ${source}→${target}: an answer without translatedText`);
    return translated.trim();
  }

  /** The body of a 2xx answer; anything else is an EngineError with the key scrubbed. */
  private async request(path: string, init: RequestInit & { signal: AbortSignal }, what: string): Promise<string> {
    let res: Response;
    let body: string;
    try {
      res = await fetch(`${this.url}${path}`, init);
      body = await res.text();
    } catch (err) {
      if (init.signal.aborted) throw new EngineError(`libretranslate ${what}: no answer in time`);
      throw new EngineError(`libretranslate at ${this.url} does not answer: ${(err as Error).message}`);
    }
    if (!res.ok) throw httpError(this.name, res, this.apiKey ? body.split(this.apiKey).join('[key]') : body);
    return body;
  }
}
