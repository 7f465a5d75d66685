import { EngineError, httpError } from '../errors.ts';
import { baseLang, eachTarget, type TranslationEngine } from '../translate/engine.ts';

// DeepL API v2 (https://developers.deepl.com/docs/api-reference/translate):
// POST /v2/translate with `Authorization: DeepL-Auth-Key <key>` and JSON
// {text: [...], source_lang, target_lang} → {translations: [{detected_source_language,
// text}]}. One target language per request, so a phrase into n languages is
// n requests, sent in parallel. GET /v2/languages?type=source and ?type=target
// say what it covers. Errors: 403 a bad key (or the wrong endpoint for it),
// 456 the quota is used up, 429 too many requests, 5xx DeepL's trouble.
//
// Free keys end in `:fx` and are served by api-free.deepl.com, the others by
// api.deepl.com; `deepl=URL` in TOLK_TRANSLATE (an operator's proxy, tests)
// overrides both. The key only ever travels in the Authorization header.
//
// Languages. Source codes are base languages (`EN`, `PT`); target codes
// name a variety where DeepL has several (`EN-GB`, `EN-US`, `PT-BR`,
// `PT-PT`, `ZH-HANS`, `ZH-HANT`, `ES-419`), its plain `EN` and `PT` being
// deprecated. A service code asks for its own variety when DeepL has it
// (`pt-BR` → `PT-BR`, `en-GB` → `EN-GB`), a close one when it does not
// (`en-AU` → `EN-GB`, `zh-TW` → `ZH-HANT`, `es-MX` → `ES-419`), and a base
// language the variety most of its speakers on the service are assumed to
// want: `en` → `EN-US`, `pt` → `PT-PT` (whoever wants Brazil's says `pt-BR`),
// `zh` → `ZH-HANS`; other base languages map to themselves (`de` → `DE`).

/** Service varieties DeepL serves through a neighbour variety. */
const TARGET_ALIASES: Record<string, string> = {
  'en-au': 'EN-GB', 'en-nz': 'EN-GB', 'en-ie': 'EN-GB', 'en-za': 'EN-GB', 'en-in': 'EN-GB',
  'pt-ao': 'PT-PT', 'pt-mz': 'PT-PT',
  'zh-cn': 'ZH-HANS', 'zh-sg': 'ZH-HANS', 'zh-tw': 'ZH-HANT', 'zh-hk': 'ZH-HANT', 'zh-mo': 'ZH-HANT',
};

/** The variety a bare base language gets, where DeepL has several. */
const DEFAULT_TARGET: Record<string, string> = { en: 'EN-US', pt: 'PT-PT', zh: 'ZH-HANS' };

/** DeepL's target code for a service code among `targets` (DeepL's, upper case), or undefined. */
export function deeplTarget(code: string, targets: ReadonlySet<string>): string | undefined {
  const base = baseLang(code);
  const region = code.includes('-') ? code.slice(code.indexOf('-') + 1).toUpperCase() : null;
  const latinAmerican = base === 'es' && region !== null && region !== 'ES' ? 'ES-419' : undefined;
  const tries = region
    ? [code.toUpperCase(), TARGET_ALIASES[code.toLowerCase()], latinAmerican, DEFAULT_TARGET[base], base.toUpperCase()]
    : [DEFAULT_TARGET[base], base.toUpperCase()];
  for (const t of tries) if (t && targets.has(t)) return t;
  return [...targets].sort().find((t) => t.startsWith(`${base.toUpperCase()}-`));
}

type DeepLLanguage = { language: string; name?: string; supports_formality?: boolean };

export class DeepLEngine implements TranslationEngine {
  readonly name = 'deepl';
  readonly url: string;
  requests = 0;
  private readonly apiKey: string;
  /** DeepL's source codes (base languages, upper case). */
  private sources = new Set<string>();
  /** DeepL's target codes (upper case). */
  private targets = new Set<string>();
  private direct: Array<readonly [string, string]> = [];

  constructor(o: { apiKey: string; url?: string }) {
    this.apiKey = o.apiKey;
    this.url = (o.url ?? (o.apiKey.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com')).replace(/\/+$/, '');
  }

  async load(signal: AbortSignal): Promise<void> {
    // Until this load succeeds the engine covers nothing (engine.ts).
    this.sources = new Set();
    this.targets = new Set();
    this.direct = [];
    const [sources, targets] = await Promise.all(['source', 'target'].map(async (type) => {
      const body = await this.request(`/v2/languages?type=${type}`, { signal }, `GET /v2/languages?type=${type}`);
      try {
        const list = JSON.parse(body) as DeepLLanguage[];
        if (!Array.isArray(list) || !list.every((l) => typeof l?.language === 'string')) throw new Error('not a list');
        return new Set(list.map((l) => l.language.toUpperCase()));
      } catch {
        throw new EngineError(`deepl at ${this.url}: /v2/languages?type=${type} answered something else than its list`);
      }
    }));
    const direct = new Map<string, readonly [string, string]>();
    for (const s of sources!) {
      for (const t of targets!) {
        const a = baseLang(s);
        const b = baseLang(t);
        if (a !== b) direct.set(`${a}\n${b}`, [a, b]);
      }
    }
    this.sources = sources!;
    this.targets = targets!;
    this.direct = [...direct.values()];
  }

  pairs() {
    return this.direct;
  }

  private pair(from: string, to: string): readonly [string, string] | undefined {
    const source = baseLang(from).toUpperCase();
    if (baseLang(from) === baseLang(to) || !this.sources.has(source)) return undefined;
    const target = deeplTarget(to, this.targets);
    return target ? [source, target] : undefined;
  }

  covers(from: string, to: string): boolean {
    return this.pair(from, to) !== undefined;
  }

  translate(text: string, from: string, to: readonly string[], signal: AbortSignal): Promise<Record<string, string>> {
    return eachTarget(this.name, from, to, (lang) => this.pair(from, lang), ([source, target]) => this.one(text, source, target, signal));
  }

  private async one(text: string, source: string, target: string, signal: AbortSignal): Promise<string> {
    this.requests++;
    const body = await this.request('/v2/translate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: [text], source_lang: source, target_lang: target }),
      signal,
    }, `${source}→${target}`);
    let translated: unknown;
    try {
      translated = (JSON.parse(body) as { translations?: Array<{ text?: unknown }> }).translations?.[0]?.text;
    } catch {
      translated = undefined;
    }
    if (typeof translated !== 'string') throw new EngineError(`deepl ${source}→${target}: an answer without translations[0].text`);
    return translated.trim();
  }

  /** The body of a 2xx answer; anything else is an EngineError with the key scrubbed. */
  private async request(path: string, init: RequestInit & { signal: AbortSignal }, what: string): Promise<string> {
    let res: Response;
    let body: string;
    try {
      res = await fetch(`${this.url}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string> | undefined), authorization: `DeepL-Auth-Key ${this.apiKey}` },
      });
      body = await res.text();
    } catch (err) {
      if (init.signal.aborted) throw new EngineError(`deepl ${what}: no answer in time`);
      throw new EngineError(`deepl at ${this.url} does not answer: ${(err as Error).message}`);
    }
    if (!res.ok) throw httpError(this.name, res, this.apiKey ? body.split(this.apiKey).join('[key]') : body);
    return body;
  }
}
