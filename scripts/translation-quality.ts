import { loadConfig } from '../src/config.ts';
import { ApertiumEngine } from '../src/engines/apertium/translate.ts';
import { makeEngine } from '../src/engines/translate/index.ts';
import { startApy, type ApyProcess } from '../src/engines/apertium/apy.ts';
import { TranslationChain } from '../src/engines/translate/chain.ts';
import { addStats, chrfScore, chrfStats, emptyStats, type ChrfStats } from '../src/engines/translate/chrf.ts';
import type { TranslationEngine } from '../src/engines/translate/engine.ts';
import { PHRASES, SUPPORTED_LANGS } from '../src/sim/phrasebook.ts';

// `npm run translation-quality [-- --json] [-- --engine NAME]` (README, Translation quality):
// how well Apertium (or the engine NAME of this machine's configuration: a model
// just pulled, `--engine bergamot`) translates the test-mode phrasebook's phrases between
// every pair of its languages it covers, directly or through a pivot (the
// chain's route, as the service would take it: en→pt is en→es→pt), scored by
// chrF (src/engines/translate/chrf.ts) against the phrasebook's own
// human-written translations, one reference a phrase, counts summed over the
// phrases of a pair. Starts apertium-apy itself unless APERTIUM_URL names
// one. Prints a table (Markdown), or with --json the figures and every
// translation. A phrase no engine translated counts as an empty translation
// (and is said on stderr).

/**
 * The code a phrasebook language is asked for as a target: its Portuguese
 * is Brazilian, and Apertium has a Brazilian variety (spa|por_BR), which a
 * listener hearing `pt-BR` gets. As a source it is plain `pt`.
 */
const TARGET_CODE: Readonly<Record<string, string>> = { pt: 'pt-BR' };
const CONCURRENCY = 6;

type PairResult = {
  from: string;
  to: string;
  /** The pivot language, null when the engine has the pair itself. */
  via: string | null;
  engine: string;
  phrases: number;
  /** Phrases that came back untranslated (scored as empty). */
  failed: number;
  chrf: number;
  stats: ChrfStats;
  translations: Array<{ source: string; reference: string; translation: string | null }>;
};

async function measure(chain: TranslationChain, langs: readonly string[]): Promise<PairResult[]> {
  const pairs: PairResult[] = [];
  /** The phrasebook language of each pair's references (`pt` for a pair into pt-BR). */
  const refLang = new Map<PairResult, string>();
  for (const from of langs) {
    for (const lang of langs) {
      if (lang === from) continue;
      const to = TARGET_CODE[lang] ?? lang;
      const route = chain.route(from, to);
      if (!route) continue;
      const p: PairResult = { from, to, via: route.via, engine: route.engine.name, phrases: PHRASES.length, failed: 0, chrf: 0, stats: emptyStats(), translations: [] };
      pairs.push(p);
      refLang.set(p, lang);
    }
  }
  // Every (pair, phrase), a few at a time; each pair's translations stay in phrasebook order.
  const jobs = pairs.flatMap((p) => PHRASES.map((phrase, i) => ({ p, i, phrase })));
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { p, i, phrase } = jobs[next++]!;
      const source = phrase[p.from]!;
      const reference = phrase[refLang.get(p)!]!;
      const got = (await chain.translate(source, p.from, [p.to]))[p.to];
      p.translations[i] = { source, reference, translation: got?.text ?? null };
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  for (const p of pairs) {
    for (const t of p.translations) {
      if (t.translation === null) p.failed++;
      p.stats = addStats(p.stats, chrfStats(t.translation ?? '', t.reference));
    }
    p.chrf = chrfScore(p.stats);
    if (p.failed) {
      const first = p.translations.find((t) => t.translation === null)!;
      process.stderr.write(`${p.from}→${p.to}${p.via ? ` (via ${p.via})` : ''}: ${p.failed} of ${p.phrases} phrases came back untranslated (scored as empty), the first "${first.source}"\n`);
    }
  }
  return pairs;
}

function pooled(pairs: readonly PairResult[]): number | null {
  if (pairs.length === 0) return null;
  return chrfScore(pairs.reduce((s, p) => addStats(s, p.stats), emptyStats()));
}

/** Two decimals, for the JSON. */
function round(x: number | null): number | null {
  return x === null ? null : Math.round(x * 100) / 100;
}

function table(pairs: readonly PairResult[]): string {
  const lines = ['| pair | route | phrases | chrF |', '|---|---|---:|---:|'];
  const order = [...pairs].sort((a, b) => Number(a.via !== null) - Number(b.via !== null) || a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
  for (const p of order) {
    const phrases = p.failed ? `${p.phrases} (${p.failed} untranslated)` : String(p.phrases);
    lines.push(`| ${p.from}→${p.to} | ${p.via ? `via ${p.via}` : 'direct'} | ${phrases} | ${p.chrf.toFixed(1)} |`);
  }
  return lines.join('\n');
}

const json = process.argv.includes('--json');
let apy: ApyProcess | null = null;
let closeEngine: () => Promise<void> | undefined = () => undefined;
try {
  // --engine NAME: an engine of this machine's configuration (a Firefox Translations model just
  // pulled: --engine bergamot; an OpenAI-compatible server: TOLK_TRANSLATE=openai=URL and --engine openai).
  const named = process.argv.includes('--engine') ? process.argv[process.argv.indexOf('--engine') + 1] : undefined;
  let engine: TranslationEngine;
  if (named && named !== 'apertium') {
    const config = loadConfig();
    engine = makeEngine(config.translate.find((e) => e.name === named) ?? { name: named }, config);
  } else {
    let url = process.env.APERTIUM_URL;
    if (!url) {
      apy = await startApy();
      url = apy.url;
    }
    engine = new ApertiumEngine({ url });
  }
  closeEngine = () => (engine as { close?: () => Promise<void> }).close?.();
  await engine.load(AbortSignal.timeout(10_000));
  // The phrasebook's languages the engine has some pair of; the chain finds the routes between them.
  const covered = new Set(engine.pairs().flat());
  const langs = SUPPORTED_LANGS.filter((l) => covered.has(l));
  // A pair's first request starts its pipeline in APY: a generous limit. Every phrase is tried: a
  // pair that fails must not open the breaker on the others.
  const chain = new TranslationChain([engine], { timeoutMs: 30_000, breakerFailures: Number.MAX_SAFE_INTEGER });
  const started = Date.now();
  const pairs = await measure(chain, langs);
  const direct = pooled(pairs.filter((p) => p.via === null));
  const pivoted = pooled(pairs.filter((p) => p.via !== null));
  if (json) {
    process.stdout.write(`${JSON.stringify({
      date: new Date().toISOString().slice(0, 10),
      engine: engine.name,
      metric: { name: 'chrF', order: 6, beta: 2, whitespace: 'removed', level: 'corpus: counts summed over the phrases of a pair' },
      languages: langs,
      pooled: { direct: round(direct), pivoted: round(pivoted) },
      pairs: pairs.map(({ stats: _stats, ...p }) => ({ ...p, chrf: round(p.chrf) })),
    }, null, 2)}\n`);
  } else {
    process.stdout.write(`${table(pairs)}\n\n`);
    process.stdout.write(`${engine.name}, ${new Date().toISOString().slice(0, 10)}: ${pairs.length} pairs of ${langs.join(', ')} (${SUPPORTED_LANGS.filter((l) => !covered.has(l)).join(', ') || 'none'} not covered), ${PHRASES.length} phrases each, ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    if (direct !== null) process.stdout.write(`all direct pairs together: chrF ${direct.toFixed(1)}\n`);
    if (pivoted !== null) process.stdout.write(`all pairs through a pivot together: chrF ${pivoted.toFixed(1)}\n`);
  }
} finally {
  await closeEngine();
  await apy?.stop();
}
