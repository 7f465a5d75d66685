import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { PocketsphinxRecognizer } from '../../src/engines/pocketsphinx/recognizer.ts';
import { whisperModel } from '../../src/engines/whisper/index.ts';
import { WhisperRecognizer } from '../../src/engines/whisper/recognizer.ts';
import { measureWer, recordings } from '../../scripts/recognizer-wer.ts';
import { installRandomWhisper } from '../helpers/onnx/whisper.ts';

// `npm run recognizer-wer` measures a recognizer on real recorded speech in
// four languages, so that a model a user pulls can be judged on their own
// machine: it must tell a recognizer that hears from one that does not.
// PocketSphinx reads English; a Whisper model of random weights reads noise.

vi.setConfig({ testTimeout: 300_000 });

const closers: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of closers) await c();
});

describe('recognizer-wer', () => {
  it('has recordings with their texts in English, Spanish, French and Italian, at a phone line\'s 8 kHz', async () => {
    expect((await recordings('en')).length).toBe(5);
    for (const lang of ['es', 'fr', 'it']) {
      const recs = await recordings(lang, 10);
      expect(recs.length, lang).toBe(10);
      for (const r of recs) {
        expect(r.reference.split(' ').length).toBeGreaterThanOrEqual(3);
        // At least a second of speech at 8 kHz.
        expect(r.pcm.length).toBeGreaterThan(8000);
      }
    }
  });

  it('tells a recognizer that hears (PocketSphinx, English) from one that reads noise (Whisper of random weights, every language)', async () => {
    const ps = new PocketsphinxRecognizer({ processes: 1 });
    closers.push(() => ps.close());
    const [en] = await measureWer(ps, ['en', 'es']);
    // PocketSphinx hears no Spanish: only English is measured.
    expect(en).toMatchObject({ lang: 'en', recordings: 5 });
    expect(en!.wer).toBeLessThan(0.6);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-wer-'));
    closers.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    installRandomWhisper(dir, 'tiny');
    const w = new WhisperRecognizer(whisperModel(dir), { processes: 1 });
    closers.push(() => w.close());
    // Three recordings a language tell noise apart: a random model reads each to its longest output,
    // minutes of one shared core for more on a loaded machine.
    const noise = await measureWer(w, ['en', 'es', 'fr', 'it'], 3);
    expect(noise.map((x) => x.lang)).toEqual(['en', 'es', 'fr', 'it']);
    for (const x of noise) expect(x.wer, x.lang).toBeGreaterThan(0.9);
    expect(noise[0]!.seconds_per_audio_second).toBeGreaterThan(0);
  });
});
