// Word error rate: (substitutions + deletions + insertions) / words of the
// reference, by the edit distance over words (Levenshtein), after both are
// brought to plain words: lower case, letters and digits only (accents kept),
// apostrophes inside words kept ("it's"), everything else a word break.
// The recognizers' accuracy figures (README, Speech) and the consent check
// (the recording must say the consent sentence) both use it.

/** Text as the words WER compares. */
export function words(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .replace(/(^|\s)'+|'+(\s|$)/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
}

/** Word-level edit distance between two word lists. */
export function editDistance(ref: readonly string[], hyp: readonly string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[hyp.length]!;
}

/** WER of one hypothesis against its reference (0 = every word right; can pass 1 with many insertions). */
export function wer(reference: string, hypothesis: string): number {
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  return editDistance(ref, hyp) / ref.length;
}

/** WER over a corpus: all errors over all reference words (not the mean of each sentence's WER). */
export function corpusWer(pairs: ReadonlyArray<{ reference: string; hypothesis: string }>): number {
  let errors = 0;
  let total = 0;
  for (const p of pairs) {
    const ref = words(p.reference);
    errors += editDistance(ref, words(p.hypothesis));
    total += ref.length;
  }
  return total === 0 ? 0 : errors / total;
}

/**
 * The share of the reference's words that the hypothesis has, in order (the
 * longest common subsequence over the reference's length). Words the
 * hypothesis adds do not count against it: what it measures is whether a
 * text was said, whatever else was said with it (names a recognizer cannot
 * spell, a cough).
 */
export function saidInOrder(reference: readonly string[], hypothesis: readonly string[]): number {
  if (reference.length === 0) return 1;
  let prev = new Array<number>(hypothesis.length + 1).fill(0);
  for (let i = 1; i <= reference.length; i++) {
    const cur = [0];
    for (let j = 1; j <= hypothesis.length; j++) {
      cur[j] = reference[i - 1] === hypothesis[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    }
    prev = cur;
  }
  return prev[hypothesis.length]! / reference.length;
}
