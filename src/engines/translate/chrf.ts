// chrF, the character n-gram F-score of Popović (2015), "chrF: character
// n-gram F-score for automatic MT evaluation" (WMT 2015): how much of a
// translation's character n-grams (n = 1..6, whitespace removed) are in a
// reference (precision) and how much of the reference's are in the
// translation (recall), each averaged over the orders, combined as
//
//     chrFβ = (1 + β²) · P · R / (β² · P + R),   β = 2 (recall counts twice as much)
//
// At corpus level the counts (n-grams of each order in the hypotheses, in the
// references, and in both, clipped to the smaller count) are summed over all
// segments before P and R are taken, as sacrebleu 1.x does. An order in
// which the hypotheses or the references have no n-gram at all (text
// shorter than n characters) is left out of the average, so two identical
// short strings score 100. Characters are code points; case counts. Scores
// are ×100. scripts/translation-quality.ts measures the engines with it.

export const CHRF_ORDER = 6;
export const CHRF_BETA = 2;

/** Counts per order: stats[n - 1] = [n-grams in the hypothesis, in the reference, in both]. */
export type ChrfStats = Array<[hyp: number, ref: number, common: number]>;

function ngrams(chars: readonly string[], n: number): Map<string, number> {
  const out = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i++) {
    const g = chars.slice(i, i + n).join('');
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

/** One segment's counts: a hypothesis against its reference. */
export function chrfStats(hypothesis: string, reference: string, order = CHRF_ORDER): ChrfStats {
  const hyp = [...hypothesis.replace(/\s+/gu, '')];
  const ref = [...reference.replace(/\s+/gu, '')];
  const stats: ChrfStats = [];
  for (let n = 1; n <= order; n++) {
    const h = ngrams(hyp, n);
    const r = ngrams(ref, n);
    let common = 0;
    for (const [g, c] of h) common += Math.min(c, r.get(g) ?? 0);
    stats.push([Math.max(0, hyp.length - n + 1), Math.max(0, ref.length - n + 1), common]);
  }
  return stats;
}

/** The sum of segments' counts (corpus level). */
export function addStats(a: ChrfStats, b: ChrfStats): ChrfStats {
  return a.map(([h, r, c], i) => [h + (b[i]?.[0] ?? 0), r + (b[i]?.[1] ?? 0), c + (b[i]?.[2] ?? 0)]);
}

/** Empty counts for `order` orders (the start of a sum). */
export function emptyStats(order = CHRF_ORDER): ChrfStats {
  return Array.from({ length: order }, () => [0, 0, 0]);
}

/** chrFβ of counts, 0..100. */
export function chrfScore(stats: ChrfStats, beta = CHRF_BETA): number {
  let p = 0;
  let r = 0;
  let orders = 0;
  for (const [hyp, ref, common] of stats) {
    if (hyp === 0 || ref === 0) continue;
    p += common / hyp;
    r += common / ref;
    orders++;
  }
  if (orders === 0) return 0;
  p /= orders;
  r /= orders;
  if (p + r === 0) return 0;
  const b2 = beta * beta;
  return (100 * (1 + b2) * p * r) / (b2 * p + r);
}

/** chrF of one segment. */
export function sentenceChrf(hypothesis: string, reference: string, o: { order?: number; beta?: number } = {}): number {
  return chrfScore(chrfStats(hypothesis, reference, o.order), o.beta);
}

/** chrF of a corpus: hypotheses[i] against references[i], counts summed over all segments. */
export function corpusChrf(hypotheses: readonly string[], references: readonly string[], o: { order?: number; beta?: number } = {}): number {
  if (hypotheses.length !== references.length) throw new Error(`chrF: ${hypotheses.length} hypotheses for ${references.length} references`);
  let stats = emptyStats(o.order);
  for (let i = 0; i < hypotheses.length; i++) stats = addStats(stats, chrfStats(hypotheses[i]!, references[i]!, o.order));
  return chrfScore(stats, o.beta);
}
