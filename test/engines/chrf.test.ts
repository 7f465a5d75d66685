import { describe, expect, it } from 'vitest';
import { addStats, chrfScore, chrfStats, corpusChrf, emptyStats, sentenceChrf } from '../../src/engines/translate/chrf.ts';

// chrF (Popović 2015) against values worked out by hand: n = 1..6, β = 2,
// whitespace removed, precision and recall averaged over the orders both
// sides have n-grams of, counts summed over segments at corpus level.

describe('chrF', () => {
  it('is 100 for identical text, whatever its length or spacing', () => {
    expect(sentenceChrf('Buenos días a todos.', 'Buenos días a todos.')).toBe(100);
    expect(sentenceChrf('ab', 'ab')).toBe(100);
    expect(sentenceChrf('a b  c', 'abc')).toBe(100);
    expect(corpusChrf(['Olá.', 'Bom dia a todos.'], ['Olá.', 'Bom dia a todos.'])).toBe(100);
  });

  it('is 0 for text with no character in common, and for an empty translation', () => {
    expect(sentenceChrf('abc def', 'xyz')).toBe(0);
    expect(sentenceChrf('', 'Bom dia.')).toBe(0);
    expect(sentenceChrf('', '')).toBe(0);
  });

  it('weighs recall twice: "ab" against "abc" is 7/11', () => {
    // n=1: 2 of 2 hypothesis unigrams match (P 1), 2 of 3 reference ones (R 2/3).
    // n=2: "ab" matches (P 1/1), "ab" of "ab","bc" (R 1/2). n≥3: the hypothesis has none, left out.
    // P = 1, R = (2/3 + 1/2) / 2 = 7/12; chrF2 = 5·P·R / (4P + R) = (35/12) / (55/12) = 7/11.
    expect(chrfStats('ab', 'abc').slice(0, 3)).toEqual([[2, 3, 2], [1, 2, 1], [0, 1, 0]]);
    expect(sentenceChrf('ab', 'abc')).toBeCloseTo((100 * 7) / 11, 10);
    // Reversed, precision is the low one: P = 7/12, R = 1; 5·(7/12) / (4·7/12 + 1) = 35/40.
    expect(sentenceChrf('abc', 'ab')).toBeCloseTo(87.5, 10);
  });

  it('clips repeated n-grams to the count in the reference', () => {
    // n=1: "a" three times against once: P 1/3, R 1; n≥2: the reference has none.
    // 5·(1/3)·1 / (4/3 + 1) = 5/7.
    expect(sentenceChrf('aaa', 'a')).toBeCloseTo((100 * 5) / 7, 10);
  });

  it('sums counts over the segments of a corpus (not a mean of sentence scores)', () => {
    // ("ab", "abc") + ("abc", "abc"): n=1 5/5 and 5/6, n=2 3/3 and 3/4, n=3 1/1 and 1/2.
    // P = 1, R = (5/6 + 3/4 + 1/2) / 3 = 25/36; 5·(25/36) / (4 + 25/36) = 125/169.
    const score = corpusChrf(['ab', 'abc'], ['abc', 'abc']);
    expect(score).toBeCloseTo((100 * 125) / 169, 10);
    expect(score).not.toBeCloseTo((sentenceChrf('ab', 'abc') + 100) / 2, 3);
    expect(chrfScore(addStats(addStats(emptyStats(), chrfStats('ab', 'abc')), chrfStats('abc', 'abc')))).toBe(score);
  });

  it('counts characters, not UTF-16 units, and minds case', () => {
    expect(chrfStats('días', 'dias')[0]).toEqual([4, 4, 3]);
    expect(chrfStats('😀x', '😀x')[1]).toEqual([1, 1, 1]);
    expect(sentenceChrf('Hola', 'hola')).toBeLessThan(100);
  });

  it('refuses corpora of different lengths', () => {
    expect(() => corpusChrf(['a'], [])).toThrow(/1 hypotheses for 0 references/);
  });
});
