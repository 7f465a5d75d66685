import type { Config } from '../../config.ts';
import type { RunningServer } from '../descriptor.ts';
import { ownServerOf } from '../registry.ts';
import { TranslationChain } from './chain.ts';
import { baseLang, type TranslationEngine } from './engine.ts';
import { makeEngine } from './index.ts';
import { makeRecognizer, makeSynthesizer, type SpeechConfig } from '../speech/index.ts';
import type { SpeechRecognizer } from '../speech/recognizer.ts';
import type { SpeechSynthesizer } from '../speech/synthesizer.ts';

// `npx tolk engines` (operator.md): what each engine of TOLK_TRANSLATE,
// TOLK_RECOGNIZE and TOLK_SPEECH_ENGINES covers, whether it answers, and how
// quickly, as the server would see them (an entry without a URL of an engine
// that runs its own server, descriptor.ts: one started for the question), and what that makes possible in
// each language (src/cli/engines-table.ts prints it for a person).

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

/**
 * A recognizer or a speech engine: the common languages it takes (of a
 * sample: providers that take any language list them all), and whether it
 * answers: a recognizer is given a second of silence, a speech engine a word
 * to say; its latency is that of a second request (the first starts it).
 */
export type SpeechReport = {
  name: string;
  url: string | null;
  langs: string[];
  error: string | null;
  answers: boolean;
  latency_ms: number | null;
  /** What speaks, where it is neither embedded nor at a URL (espeak: Debian's program or the npm package). */
  runs: string | null;
};

/** A translation of a language into another (`to`) or from another (`from`), and the engine that makes it, directly or through `via`. */
export type LanguageRoute = { lang: string; engine: string; via: string | null };

/** What a person can do in a language with the engines that answer. */
export type LanguageReport = {
  lang: string;
  /** Its English name. */
  name: string;
  /** The recognizers of TOLK_RECOGNIZE that hear it, in order (the first that answers is used). */
  recognize: string[];
  /** The engine of TOLK_SPEECH_ENGINES that reads it aloud (the first that speaks it); null: none. */
  speech: string | null;
  /** The languages it is translated into, and how. */
  to: LanguageRoute[];
  /** The languages translated into it, and how. */
  from: LanguageRoute[];
};

/** The whole of `npx tolk engines`. */
export type EnginesReport = { translate: EngineReport[]; recognize: SpeechReport[]; speech: SpeechReport[]; languages: LanguageReport[] };

/** The common languages: every one of them has a row in the table, whatever covers it. */
export const SAMPLE_LANGS = ['en', 'es', 'pt', 'fr', 'de', 'it', 'nl', 'pl', 'ru', 'ja', 'zh', 'ar', 'hi'];

const TRY_MS = 10_000;

/** `p`, or a rejection after `ms`. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => { timer = setTimeout(() => fail(new Error(`no answer within ${ms / 1000} s (${what})`)), ms); });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

type Made<E> = { report: SpeechReport; engine: E | null; attempt?: () => Promise<unknown>; what?: string };

/**
 * The recognizers of TOLK_RECOGNIZE and the speech engines of
 * TOLK_SPEECH_ENGINES, as made at start, each tried once (all at once: the
 * first request starts an engine); `timed()` then times a second request of
 * each, one at a time, so that no engine's figure includes another's work.
 * The caller closes them.
 */
async function trySpeech(config: SpeechConfig, langs: readonly string[]): Promise<{ recognizers: Made<SpeechRecognizer>[]; synthesizers: Made<SpeechSynthesizer>[]; timed: () => Promise<void> }> {
  const synthesizers = config.speechEngines.map((spec): Made<SpeechSynthesizer> => {
    const [name, url] = spec.split(/=(.*)/s) as [string, string | undefined];
    const report: SpeechReport = { name, url: url ?? null, langs: [], error: null, answers: false, latency_ms: null, runs: null };
    try {
      const engine = makeSynthesizer(spec, config);
      report.langs = SAMPLE_LANGS.filter((l) => engine.speaks(l));
      report.runs = (engine as { runs?: string }).runs ?? null;
      const lang = report.langs[0] ?? engine.languages?.()[0];
      if (!lang) return { report, engine };
      return { report, engine, attempt: () => engine.synthesize('Hello.', lang), what: `"Hello." in ${lang}` };
    } catch (err) {
      report.error = (err as Error).message;
      return { report, engine: null };
    }
  });
  // A recognizer cannot list its languages: it is tried in the first it hears of those any engine has.
  const known = [...new Set([...SAMPLE_LANGS, ...langs, ...synthesizers.flatMap((m) => m.engine?.languages?.() ?? [])].map(baseLang))];
  const recognizers = config.recognize.map((spec): Made<SpeechRecognizer> => {
    const report: SpeechReport = { name: spec.name, url: spec.url ?? null, langs: [], error: null, answers: false, latency_ms: null, runs: null };
    try {
      const engine = makeRecognizer(spec, config);
      report.langs = SAMPLE_LANGS.filter((l) => engine.hears(l));
      const lang = known.find((l) => engine.hears(l));
      if (!lang) return { report, engine };
      const silence = new Int16Array(8000);
      const attempt = () => engine.recognize({ key: 'tolk-engines', pcm: silence, audioMs: 1000, lang, at: Date.now() }, AbortSignal.timeout(TRY_MS));
      return { report, engine, attempt, what: 'a second of silence' };
    } catch (err) {
      report.error = (err as Error).message;
      return { report, engine: null };
    }
  });
  const made = [...recognizers, ...synthesizers];
  await Promise.all(made.map(async (m) => {
    if (!m.engine) return;
    if (!m.attempt) {
      m.report.error = 'it takes none of the languages the other engines have; not tried';
      return;
    }
    try {
      await within(m.attempt(), TRY_MS, m.what!);
    } catch (err) {
      m.report.error = (err as Error).message;
    }
  }));
  const timed = async () => {
    for (const m of made) {
      if (!m.engine || !m.attempt || m.report.error) continue;
      const t0 = performance.now();
      try {
        await within(m.attempt(), TRY_MS, m.what!);
        m.report.latency_ms = Math.round(performance.now() - t0);
        m.report.answers = true;
      } catch (err) {
        m.report.error = (err as Error).message;
      }
    }
  };
  return { recognizers, synthesizers, timed };
}

async function closeAll(recognizers: Made<SpeechRecognizer>[], synthesizers: Made<SpeechSynthesizer>[]): Promise<void> {
  await Promise.all([...recognizers, ...synthesizers].map((m) => m.engine?.close().catch(() => {})));
}

/** The translation engines of TOLK_TRANSLATE, each loaded and tried; those that answered. */
async function tryTranslation(config: Pick<Config, 'translate' | 'engineKeys'>): Promise<{ translate: EngineReport[]; answering: TranslationEngine[] }> {
  // The servers started for the question, one per engine, kept for its other entries.
  const servers = new Map<string, RunningServer>();
  try {
    const out: EngineReport[] = [];
    const answering: TranslationEngine[] = [];
    for (const spec of config.translate) {
      const own = ownServerOf(spec);
      if (own && !servers.has(spec.name)) {
        try {
          servers.set(spec.name, await own.start());
        } catch (err) {
          out.push({ name: spec.name, url: '', answers: false, latency_ms: null, error: (err as Error).message, pairs: [], pivots: [] });
          continue;
        }
      }
      let engine: TranslationEngine;
      try {
        engine = makeEngine(spec, config, own ? servers.get(spec.name)!.url : undefined);
      } catch (err) {
        out.push({ name: spec.name, url: spec.url ?? '', answers: false, latency_ms: null, error: (err as Error).message, pairs: [], pivots: [] });
        continue;
      }
      const r = await reportOne(engine);
      // The server runs its own, on a port of its own: this one was only for the question.
      if (own) r.url = `${own.what}, run by the service`;
      out.push(r);
      if (r.answers) answering.push(engine);
    }
    return { translate: out, answering };
  } finally {
    await Promise.all([...servers.values()].map((s) => s.stop()));
  }
}

const names = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'code' });

/** A language's English name (its code where it has none). */
export function languageName(lang: string): string {
  try {
    return names.of(lang) ?? lang;
  } catch {
    return lang;
  }
}

/**
 * `npx tolk engines`: every engine tried (translation, then recognition and
 * speech), and what a person can do in each language with those that
 * answer: the common languages, and every language an engine covers.
 */
export async function reportAll(config: Pick<Config, 'translate' | 'engineKeys'> & SpeechConfig): Promise<EnginesReport> {
  // One after the other: no engine's latency includes another's start.
  const { translate, answering } = await tryTranslation(config);
  const translated = new Set(answering.flatMap((e) => e.pairs().flat().map(baseLang)));
  const { recognizers, synthesizers, timed } = await trySpeech(config, [...translated]);
  try {
    await timed();
    const hearing = recognizers.filter((m) => m.report.answers).map((m) => ({ name: m.report.name, e: m.engine! }));
    const speaking = synthesizers.filter((m) => m.report.answers).map((m) => ({ name: m.report.name, e: m.engine! }));
    const all = new Set([...SAMPLE_LANGS, ...translated, ...speaking.flatMap((s) => (s.e.languages?.() ?? []).map(baseLang))]);
    all.delete('');
    const chain = new TranslationChain(answering);
    const route = (from: string, to: string, lang: string): LanguageRoute | null => {
      const r = chain.route(from, to);
      return r ? { lang, engine: r.engine.name, via: r.via } : null;
    };
    const languages = [...all].sort().map((lang): LanguageReport => {
      const others = [...translated].filter((l) => l !== lang).sort();
      return {
        lang,
        name: languageName(lang),
        recognize: hearing.filter((h) => h.e.hears(lang)).map((h) => h.name),
        speech: speaking.find((s) => s.e.speaks(lang))?.name ?? null,
        to: translated.has(lang) ? others.map((o) => route(lang, o, o)).filter((r) => r !== null) : [],
        from: translated.has(lang) ? others.map((o) => route(o, lang, o)).filter((r) => r !== null) : [],
      };
    });
    return { translate, recognize: recognizers.map((m) => m.report), speech: synthesizers.map((m) => m.report), languages };
  } finally {
    await closeAll(recognizers, synthesizers);
  }
}
