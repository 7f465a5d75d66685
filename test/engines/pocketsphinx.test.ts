import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PocketsphinxRecognizer, pocketsphinxInstalled } from '../../src/engines/pocketsphinx/recognizer.ts';
import { RecognizerChain } from '../../src/engines/speech/recognizers.ts';
import { loadResampler, resample } from '../../src/engines/speech/resample.ts';
import { corpusWer, wer, words } from '../../src/engines/speech/wer.ts';

// The embedded recognizer on real human speech: Debian's
// pocketsphinx-testdata has sentences read from LibriVox's "Sense and
// Sensibility" (16 kHz) with their transcripts. Each is brought down to a
// phone line's 8 kHz (what a call hears) and recognized; the word error
// rate over them is the figure the README states. PocketSphinx missing is
// a failure: .ci/run installs it.

vi.setConfig({ testTimeout: 60_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';

/** The recordings and what was said (`<s> words </s> (name)` lines). */
function corpus(): Array<{ name: string; reference: string; pcm16k: Int16Array }> {
  const lines = readFileSync(path.join(DATA, 'transcription'), 'utf8').trim().split('\n');
  return lines.map((l) => {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())!;
    const wav = readFileSync(path.join(DATA, `${m[2]}.wav`));
    // A 44-byte RIFF header, then 16-bit mono PCM at 16 kHz.
    const data = wav.subarray(44);
    return { name: m[2]!, reference: m[1]!, pcm16k: new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
  });
}

let ps: PocketsphinxRecognizer;
afterAll(async () => { await ps?.close(); });

describe('word error rate', () => {
  it('counts substitutions, deletions and insertions over the reference\'s words, ignoring case and punctuation', () => {
    expect(words("It's the Consent, I give.")).toEqual(["it's", 'the', 'consent', 'i', 'give']);
    expect(wer('the cat sat', 'the cat sat')).toBe(0);
    expect(wer('the cat sat', 'the cat')).toBeCloseTo(1 / 3);
    expect(wer('the cat sat', 'a cat sat down')).toBeCloseTo(2 / 3);
    expect(corpusWer([{ reference: 'a b c d', hypothesis: 'a b c d' }, { reference: 'e f', hypothesis: '' }])).toBeCloseTo(2 / 6);
  });
});

describe('PocketSphinx on recorded speech at a phone line\'s 8 kHz', () => {
  it('is installed (apt-get install pocketsphinx pocketsphinx-en-us pocketsphinx-testdata)', () => {
    expect(pocketsphinxInstalled()).toBe(true);
  });

  it('reads five recorded sentences with a word error rate under 40 %, from several at once', async () => {
    await loadResampler();
    ps = new PocketsphinxRecognizer({ processes: 2 });
    const sentences = corpus();
    expect(sentences).toHaveLength(5);
    const t0 = performance.now();
    const heard = await Promise.all(sentences.map(async (s, i) => {
      const pcm = resample(s.pcm16k, 16_000, 8_000);
      const r = await ps.recognize({ key: `c${i}`, pcm, audioMs: (pcm.length / 8), lang: 'en', at: Date.now() });
      return { reference: s.reference, hypothesis: r.text ?? '', seconds: pcm.length / 8000 };
    }));
    const elapsed = (performance.now() - t0) / 1000;
    const audio = heard.reduce((n, h) => n + h.seconds, 0);
    const rate = corpusWer(heard);
    process.stderr.write(`[pocketsphinx] WER ${(rate * 100).toFixed(1)} % over ${heard.length} sentences, ${audio.toFixed(1)} s of audio in ${elapsed.toFixed(2)} s (2 decoders)\n`);
    for (const h of heard) expect(words(h.hypothesis).length).toBeGreaterThan(0);
    expect(rate).toBeLessThan(0.4);
    expect(ps.requests).toBe(5);
  });

  it('hears English only: another language is not read, and the chain answers no text, never invented words', async () => {
    ps ??= new PocketsphinxRecognizer({ processes: 1 });
    expect(ps.hears('en-US')).toBe(true);
    expect(ps.hears('pt')).toBe(false);
    const chain = new RecognizerChain([ps]);
    const r = await chain.recognize({ key: 'x', pcm: new Int16Array(8000), audioMs: 1000, lang: 'pt', at: Date.now() });
    expect(r.text).toBeNull();
    // Silence in English: no words.
    const silent = await chain.recognize({ key: 'y', pcm: new Int16Array(8000), audioMs: 1000, lang: 'en', at: Date.now() });
    expect(silent.text).toBeNull();
  });
});
