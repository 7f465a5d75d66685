import type { Config } from '../../config.ts';
import { startApy, type ApyProcess } from './apy.ts';
import { TranslationChain } from './chain.ts';
import { baseLang, type TranslationEngine } from './engine.ts';
import { makeEngine } from './index.ts';
import { makeRecognizer, makeSynthesizer } from '../speech/index.ts';

// `npx tolk engines` (operator.md): what each engine of TOLK_TRANSLATE
// covers, whether it answers, and how quickly, as the server would see them
// (`apertium` without a URL: an apertium-apy started for the question).

export type EngineReport = {
  name: string;
  url: string;
  answers: boolean;
  /** A short phrase's translation, in milliseconds (null when it does not answer or covers nothing). */
  latency_ms: number | null;
  error: string | null;
  /** Directed pairs it translates itself, `en→es`. */
  pairs: string[];
  /** Pairs the chain makes through another language with it, `en→pt via es`. */
  pivots: string[];
};

async function reportOne(e: TranslationEngine): Promise<EngineReport> {
  const r: EngineReport = { name: e.name, url: e.url, answers: false, latency_ms: null, error: null, pairs: [], pivots: [] };
  try {
    await e.load(AbortSignal.timeout(10_000));
    r.answers = true;
  } catch (err) {
    r.error = (err as Error).message;
    return r;
  }
  const pairs = e.pairs();
  r.pairs = pairs.map(([a, b]) => `${a}→${b}`).sort();
  const langs = [...new Set(pairs.flat().map(baseLang))].sort();
  const chain = new TranslationChain([e]);
  for (const a of langs) {
    for (const b of langs) {
      if (a === b || e.covers(a, b)) continue;
      const route = chain.route(a, b);
      if (route?.via) r.pivots.push(`${a}→${b} via ${route.via}`);
    }
  }
  const first = pairs.find(([a]) => baseLang(a) === 'en') ?? pairs[0];
  if (first) {
    const t0 = performance.now();
    try {
      await e.translate('Hello', first[0], [first[1]], AbortSignal.timeout(10_000));
      r.latency_ms = Math.round(performance.now() - t0);
    } catch (err) {
      r.answers = false;
      r.error = (err as Error).message;
    }
  }
  return r;
}

/** A speech engine: the common languages it takes (of a sample: providers that take any language list them all). */
export type SpeechReport = { name: string; url: string | null; langs: string[]; error: string | null };

const SAMPLE_LANGS = ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'pl', 'ru', 'ja', 'zh', 'ar', 'hi'];

/** The recognizers of TOLK_RECOGNIZE and the speech engines of TOLK_SPEECH_ENGINES, as made at start. */
export function reportSpeech(config: Pick<Config, 'recognize' | 'recognizeTimeoutMs' | 'speechEngines' | 'speechKeys'>): { recognize: SpeechReport[]; speech: SpeechReport[] } {
  const recognize = config.recognize.map((spec): SpeechReport => {
    try {
      const r = makeRecognizer(spec, config);
      const langs = SAMPLE_LANGS.filter((l) => r.hears(l));
      void r.close();
      return { name: spec.name, url: spec.url ?? null, langs, error: null };
    } catch (err) {
      return { name: spec.name, url: spec.url ?? null, langs: [], error: (err as Error).message };
    }
  });
  const speech = config.speechEngines.map((spec): SpeechReport => {
    const [name, url] = spec.split(/=(.*)/s) as [string, string | undefined];
    try {
      const e = makeSynthesizer(spec, config);
      const langs = SAMPLE_LANGS.filter((l) => e.speaks(l));
      void e.close();
      return { name, url: url ?? null, langs, error: null };
    } catch (err) {
      return { name, url: url ?? null, langs: [], error: (err as Error).message };
    }
  });
  return { recognize, speech };
}

export async function reportEngines(config: Pick<Config, 'translate' | 'engineKeys'>): Promise<{ translate: EngineReport[] }> {
  let apy: ApyProcess | null = null;
  try {
    const out: EngineReport[] = [];
    for (const spec of config.translate) {
      if (spec.name === 'apertium' && !spec.url && !apy) {
        try {
          apy = await startApy();
        } catch (err) {
          out.push({ name: 'apertium', url: '', answers: false, latency_ms: null, error: (err as Error).message, pairs: [], pivots: [] });
          continue;
        }
      }
      let engine: TranslationEngine;
      try {
        engine = makeEngine(spec, config, apy?.url);
      } catch (err) {
        out.push({ name: spec.name, url: spec.url ?? '', answers: false, latency_ms: null, error: (err as Error).message, pairs: [], pivots: [] });
        continue;
      }
      const r = await reportOne(engine);
      // The server runs its own apertium-apy, on a port of its own: this one was only for the question.
      if (spec.name === 'apertium' && !spec.url) r.url = 'apertium-apy, run by the service';
      out.push(r);
    }
    return { translate: out };
  } finally {
    await apy?.stop();
  }
}
