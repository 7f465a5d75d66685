import { EngineError, httpError } from '../errors.ts';
import { baseLang, eachTarget, type TranslationEngine } from '../translate/engine.ts';

// Apertium through its HTTP server, APY (apertium-apy; Debian packages it
// with the language pairs: apertium-eng-spa, apertium-es-pt, ...). Rule-based,
// free, offline, and quick (tens of milliseconds a phrase). APY names
// languages in ISO 639-3 (`eng`, `spa`, `por_BR` for a variety); it
// translates one pair per request (POST /translate, langpair=eng|spa), so a
// phrase into n languages is n requests, and has no pair for much (no
// English–Portuguese: the chain pivots through Spanish, chain.ts).
// /listPairs says what is installed.

/** ISO 639-3 (APY's) → the service's two-letter codes, for the languages Debian has pairs of. */
const ISO3: Record<string, string> = {
  afr: 'af', arg: 'an', ast: 'ast', bel: 'be', bul: 'bg', cat: 'ca', dan: 'da', deu: 'de', eng: 'en', epo: 'eo', eus: 'eu',
  fra: 'fr', frp: 'frp', glg: 'gl', hbs: 'sh', ind: 'id', isl: 'is', ita: 'it', mkd: 'mk', nld: 'nl', nno: 'nn', nob: 'nb',
  nor: 'no', oci: 'oc', pol: 'pl', por: 'pt', ron: 'ro', rus: 'ru', slv: 'sl', spa: 'es', srd: 'sc', swe: 'sv', szl: 'szl',
  ukr: 'uk', zlm: 'ms', bre: 'br',
};

/** An APY code (`por_BR`, `spa`, or an old two-letter one) as the service's (`pt-BR`, `es`). */
export function fromApertium(code: string): string {
  const [lang, variety] = code.split('_');
  const base = ISO3[lang!] ?? lang!;
  return variety ? `${base}-${variety}` : base;
}

type ApyPair = { sourceLanguage: string; targetLanguage: string };

export class ApertiumEngine implements TranslationEngine {
  readonly name = 'apertium';
  requests = 0;
  private readonly at: () => string;
  /** `from\nto` (service codes, base languages and varieties) → APY's langpair. */
  private langpairs = new Map<string, string>();
  private direct: Array<readonly [string, string]> = [];

  /** url: where APY answers; a function where that may change (the service's own apertium-apy, restarted: apy.ts). */
  constructor(o: { url: string | (() => string) }) {
    const url = o.url;
    this.at = typeof url === 'string' ? () => url : url;
  }

  /** Where APY answers now. */
  get url(): string {
    return this.at().replace(/\/+$/, '');
  }

  async load(signal: AbortSignal): Promise<void> {
    let res: Response;
    try {
      res = await fetch(`${this.url}/listPairs`, { signal });
    } catch (err) {
      throw new EngineError(`apertium at ${this.url} does not answer: ${(err as Error).message}`);
    }
    const body = await res.text();
    if (!res.ok) throw httpError(this.name, res, body);
    let pairs: ApyPair[];
    try {
      pairs = (JSON.parse(body) as { responseData: ApyPair[] }).responseData;
      if (!Array.isArray(pairs)) throw new Error('no responseData');
    } catch {
      throw new EngineError(`apertium at ${this.url}: /listPairs answered something else than its list`);
    }
    const langpairs = new Map<string, string>();
    const direct = new Map<string, readonly [string, string]>();
    for (const p of pairs) {
      const from = fromApertium(p.sourceLanguage);
      const to = fromApertium(p.targetLanguage);
      const langpair = `${p.sourceLanguage}|${p.targetLanguage}`;
      // A variety (por_BR) serves its own code; the plain pair serves the base language.
      langpairs.set(`${from.toLowerCase()}\n${to.toLowerCase()}`, langpair);
      if (!to.includes('-') && !from.includes('-')) {
        direct.set(`${from}\n${to}`, [from, to]);
      } else {
        const key = `${baseLang(from)}\n${baseLang(to)}`;
        if (!langpairs.has(key)) langpairs.set(key, langpair);
        if (!direct.has(key)) direct.set(key, [baseLang(from), baseLang(to)]);
      }
    }
    this.langpairs = langpairs;
    this.direct = [...direct.values()];
  }

  pairs() {
    return this.direct;
  }

  /** APY's langpair for from → to: the exact varieties when it has them (`spa|por_BR` for pt-BR), else the base languages'. */
  private langpair(from: string, to: string): string | undefined {
    return this.langpairs.get(`${from.toLowerCase()}\n${to.toLowerCase()}`) ?? this.langpairs.get(`${baseLang(from)}\n${baseLang(to)}`);
  }

  covers(from: string, to: string): boolean {
    return baseLang(from) !== baseLang(to) && this.langpair(from, to) !== undefined;
  }

  translate(text: string, from: string, to: readonly string[], signal: AbortSignal): Promise<Record<string, string>> {
    return eachTarget(this.name, from, to, (lang) => this.langpair(from, lang), (langpair) => this.one(text, langpair, signal));
  }

  private async one(text: string, langpair: string, signal: AbortSignal): Promise<string> {
    this.requests++;
    let res: Response;
    try {
      // markUnknown=no: a word the pair does not know is left as it is, without Apertium's `*` before it.
      res = await fetch(`${this.url}/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ langpair, q: text, markUnknown: 'no' }).toString(),
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw new EngineError(`apertium ${langpair}: no answer in time`);
      throw new EngineError(`apertium at ${this.url} does not answer: ${(err as Error).message}`);
    }
    const body = await res.text();
    if (!res.ok) throw httpError(this.name, res, body);
    let translated: unknown;
    try {
      translated = (JSON.parse(body) as { responseData?: { translatedText?: unknown } }).responseData?.translatedText;
    } catch {
      translated = undefined;
    }
    if (typeof translated !== 'string') throw new EngineError(`apertium ${langpair}: an answer without translatedText`);
    // Apertium keeps the source's spacing around what it moves or drops ("Hola,  estoy"): one space is enough.
    return translated.replace(/[ \t]{2,}/g, ' ').trim();
  }
}
