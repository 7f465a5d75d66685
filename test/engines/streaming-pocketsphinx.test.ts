import { afterAll, describe, expect, it, vi } from 'vitest';
import { EngineError } from '../../src/engines/errors.ts';
import { PocketsphinxRecognizer } from '../../src/engines/pocketsphinx/recognizer.ts';
import { sentence, speak } from '../helpers/stream-audio.ts';

// PocketSphinx heard as a stream (src/engines/speech/reread-stream.ts) on a
// real recorded sentence at a phone line's 8 kHz: partials come while the
// speaker speaks and grow, and the final is what the whole-utterance reading
// of the same audio gives.

vi.setConfig({ testTimeout: 60_000 });

const ps = new PocketsphinxRecognizer({ processes: 2 });
afterAll(async () => { await ps.close(); });

const wordCount = (t: string) => t.split(/\s+/).filter(Boolean).length;

describe('PocketSphinx stream', () => {
  it('answers partials that grow while the audio comes, then the final the whole-utterance reading gives', async () => {
    const { pcm } = await sentence('0870');
    const seen = await speak(ps.open({ lang: 'en', rate: 8_000, key: 'ps-1' }), pcm, { chunkMs: 20, speed: 1 });
    const partials = seen.filter((h) => h.kind === 'partial');
    const finals = seen.filter((h) => h.kind === 'final');
    expect(partials.length).toBeGreaterThanOrEqual(2);
    expect(partials.every((p) => !p.afterEnd)).toBe(true);
    expect(finals).toHaveLength(1);
    expect(seen.at(-1)).toBe(finals[0]);
    // Each partial covers more audio than the one before, and the last says more than the first.
    for (let i = 1; i < partials.length; i++) expect(partials[i]!.endMs!).toBeGreaterThan(partials[i - 1]!.endMs!);
    expect(wordCount(partials.at(-1)!.text)).toBeGreaterThan(wordCount(partials[0]!.text));
    const whole = await ps.recognize({ key: 'ps-whole', pcm, rate: 8_000, audioMs: pcm.length / 8, lang: 'en', at: Date.now() });
    expect(finals[0]!.text).toBe(whole.text);
    expect(finals[0]!.endMs).toBe(Math.round(pcm.length / 8));
  });

  it('refuses a language it does not hear, and an aborted stream fails with an EngineError', async () => {
    await expect(speak(ps.open({ lang: 'de', rate: 8_000, key: 'ps-2' }), new Int16Array(800))).rejects.toMatchObject({ name: 'EngineError', permanent: true });
    const { pcm } = await sentence('0880');
    const ctl = new AbortController();
    const stream = ps.open({ lang: 'en', rate: 8_000, key: 'ps-3', signal: ctl.signal });
    setTimeout(() => ctl.abort(), 300);
    await expect(speak(stream, pcm, { speed: 2 })).rejects.toBeInstanceOf(EngineError);
  });
});
