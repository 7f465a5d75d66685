import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { reportAll } from '../../src/engines/translate/report.ts';
import { EngineError } from '../../src/engines/errors.ts';
import { installedModels } from '../../src/engines/models/store.ts';
import { whisperModel } from '../../src/engines/whisper/index.ts';
import { WhisperRecognizer } from '../../src/engines/whisper/recognizer.ts';
import { WHISPER_LANGUAGES } from '../../src/engines/whisper/languages.ts';
import { installRandomWhisper } from '../helpers/onnx/whisper.ts';
import { sentence, speak } from '../helpers/stream-audio.ts';
import { until } from '../helpers/wait.ts';

// The `whisper` recognizer on a model of Whisper tiny's real shapes with
// random weights (test/helpers/onnx/whisper.ts: no model can be downloaded
// here), int8 as sherpa-onnx publishes it: it loads, reads real recorded
// speech to some text in any of its languages, says how long that took,
// hears while the speaker speaks, names the language when none is given,
// and survives its decoder's death and a broken model.

vi.setConfig({ testTimeout: 240_000, hookTimeout: 120_000 });

let dir: string;
let w: WhisperRecognizer;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-whisper-'));
  installRandomWhisper(dir, 'tiny');
  w = new WhisperRecognizer(whisperModel(dir), { processes: 1, threads: 2, backoff: { initialMs: 100 } });
});

afterAll(async () => {
  await w?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const utterance = (pcm: Int16Array, lang: string, rate = 8_000) => ({ key: 'k', pcm, rate, audioMs: Math.round((pcm.length / rate) * 1000), lang, at: Date.now() });

describe('whisper', () => {
  it('loads the installed model and reads a recorded sentence of a phone line to text, in Spanish as in English, and says how long it took', async () => {
    // Loading the model in a process at the lowest priority takes a minute or more beside a loaded machine's other files.
    await until('a decoder up', async () => w.spare(), { timeoutMs: 150_000, intervalMs: 50 });
    const { pcm } = await sentence('0870');
    const en = await w.recognize(utterance(pcm, 'en'));
    // Random weights read noise: words of its vocabulary (" w123"), at most 6 a second of audio.
    expect(en.text).toMatch(/^w\d+( w\d+)*$/);
    expect(en.text!.split(' ').length).toBeLessThanOrEqual(Math.ceil((pcm.length / 8000) * 6));
    const es = await w.recognize(utterance(pcm, 'es-MX'));
    expect(es.text).toMatch(/^w\d+/);
    expect(w.timing.decodings).toBe(2);
    expect(w.timing.audioMs).toBe(2 * Math.round((pcm.length / 8000) * 1000));
    expect(w.timing.decodeMs).toBeGreaterThan(0);
    process.stderr.write(`[whisper tiny int8, random weights] ${w.timing.audioMs} ms of audio read in ${w.timing.decodeMs} ms (real-time factor ${(w.timing.decodeMs / w.timing.audioMs).toFixed(2)})\n`);
  });

  it('hears the 99 languages of a multilingual model, not others, and names the language it heard when none is given', async () => {
    expect(WHISPER_LANGUAGES).toHaveLength(99);
    for (const l of ['en', 'es', 'pt-BR', 'fr', 'de', 'it', 'ja', 'sw']) expect(w.hears(l)).toBe(true);
    expect(w.hears('tlh')).toBe(false);
    await expect(w.recognize(utterance(new Int16Array(8000), 'tlh'))).rejects.toMatchObject({ name: 'EngineError', permanent: true });
    const { pcm } = await sentence('0880');
    const r = await w.recognize(utterance(pcm, ''));
    expect(WHISPER_LANGUAGES as readonly string[]).toContain(r.lang);
    // Too short to hold a word: no text, and no decoding.
    const before = w.timing.decodings;
    expect(await w.recognize(utterance(new Int16Array(800), 'en'))).toEqual({ text: null });
    expect(w.timing.decodings).toBe(before);
  });

  it('as a stream: partials while the speaker speaks, then the final the whole reading gives', async () => {
    const { pcm } = await sentence('0890', 16_000);
    // At half the audio's pace: a loaded machine (the whole suite beside it) still reads a partial before the end.
    const seen = await speak(w.open({ lang: 'en', rate: 16_000, key: 's' }), pcm, { rate: 16_000, chunkMs: 20, speed: 0.5 });
    const partials = seen.filter((h) => h.kind === 'partial');
    const finals = seen.filter((h) => h.kind === 'final');
    expect(partials.length).toBeGreaterThanOrEqual(1);
    expect(partials.every((p) => !p.afterEnd)).toBe(true);
    expect(finals).toHaveLength(1);
    const whole = await w.recognize(utterance(pcm, 'en', 16_000));
    expect(finals[0]!.text).toBe(whole.text);
  });

  it('a decoder that dies fails what it was reading with an EngineError, and another takes its place', async () => {
    const { pcm } = await sentence('0920');
    const pids = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p) && fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('whisper/decoder.ts') && fs.readFileSync(`/proc/${p}/status`, 'utf8').includes(`PPid:\t${process.pid}\n`));
    expect(pids).toHaveLength(1);
    const reading = w.recognize(utterance(pcm, 'en'));
    process.kill(Number(pids[0]), 'SIGKILL');
    await expect(reading).rejects.toBeInstanceOf(EngineError);
    await until('another decoder', async () => w.spare(), { timeoutMs: 60_000, intervalMs: 50 });
    expect((await w.recognize(utterance(pcm, 'en'))).text).toMatch(/^w\d+/);
  });

  it('a model that does not load fails every reading with a sentence, and the process lives on', async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-whisper-broken-'));
    try {
      const name = installRandomWhisper(broken, 'tiny', { name: 'whisper-broken' });
      const enc = path.join(broken, name, 'encoder.onnx');
      fs.rmSync(enc);
      fs.writeFileSync(enc, Buffer.from('not an onnx model'));
      const b = new WhisperRecognizer(whisperModel(broken), { processes: 1 });
      try {
        await until('the load failed', async () => (await b.recognize(utterance(new Int16Array(8000), 'en')).then(() => null, (e: EngineError) => e.message.includes('did not load') ? e : null)), { timeoutMs: 60_000, intervalMs: 100 });
        await expect(b.recognize(utterance(new Int16Array(8000), 'en'))).rejects.toMatchObject({ permanent: true, message: expect.stringMatching(/^whisper: the model did not load/) });
      } finally {
        await b.close();
      }
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  });
});

describe('a model present is used without configuration', () => {
  it('TOLK_RECOGNIZE unset: whisper first; set, what the operator says; TOLK_WHISPER_MODEL names one of several, and an unknown name stops the start', () => {
    expect(installedModels(dir).map((m) => m.name)).toEqual(['whisper-tiny-int8']);
    const env = { TOLK_MODELS_DIR: dir };
    expect(loadConfig(env).recognize[0]).toEqual({ name: 'whisper' });
    expect(loadConfig({ ...env, TOLK_RECOGNIZE: 'pocketsphinx' }).recognize).toEqual([{ name: 'pocketsphinx' }]);
    installRandomWhisper(dir, 'tiny', { name: 'whisper-tiny.en-int8', languages: ['en'] });
    // The multilingual one before the English-only.
    expect(whisperModel(dir).name).toBe('whisper-tiny-int8');
    expect(whisperModel(dir, 'whisper-tiny.en-int8').name).toBe('whisper-tiny.en-int8');
    expect(() => whisperModel(dir, 'whisper-small')).toThrow(/TOLK_WHISPER_MODEL names whisper-small, which is not installed .*npx tolk models pull whisper-small/);
    expect(() => whisperModel(fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-empty-')))).toThrow(/whisper needs a model: `npx tolk models pull whisper-base-int8`/);
    fs.rmSync(path.join(dir, 'whisper-tiny.en-int8'), { recursive: true });
  });

  it('npx tolk engines says what it adds: the languages it hears, answering', async () => {
    const report = await reportAll(loadConfig({ TOLK_MODELS_DIR: dir, TOLK_TRANSLATE: '', TOLK_SPEECH_ENGINES: 'pico' }));
    expect(report.recognize[0]).toMatchObject({ name: 'whisper', answers: true, error: null });
    expect(report.recognize[0]!.langs).toEqual(expect.arrayContaining(['en', 'es', 'pt', 'fr', 'de', 'it']));
    for (const lang of ['es', 'pt', 'de']) expect(report.languages.find((l) => l.lang === lang)?.recognize[0]).toBe('whisper');
  });
});
