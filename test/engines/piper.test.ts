import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import type { ModelEntry } from '../../src/engines/models/catalog.ts';
import { prepareModel } from '../../src/engines/models/prepare.ts';
import { pullModels } from '../../src/engines/models/pull.ts';
import { modelsOf } from '../../src/engines/models/store.ts';
import { PiperSynthesizer } from '../../src/engines/piper/synthesizer.ts';
import { startSynthesizers } from '../../src/engines/speech/index.ts';
import { SAMPLES_PER_ID, publishTestVoice } from '../helpers/onnx/piper.ts';
import { until } from '../helpers/wait.ts';
import { startFileServer } from '../helpers/file-server.ts';

// The `piper` voices, from the publisher's files to the line: a voice
// published as rhasspy/piper-voices publishes one (made by the test: no
// voice can be downloaded here) is pulled from a local server, prepared at
// install (its phonemes' ids, its settings as the model's metadata), and
// speaks text through eSpeak NG's phonemes and sherpa-onnx's runtime, at the
// line's 8 kHz; a process that dies is replaced.

vi.setConfig({ testTimeout: 60_000 });

let server: Awaited<ReturnType<typeof startFileServer>>;
let base = '';
const served = new Map<string, Buffer>();
let dir: string;
let piper: PiperSynthesizer;

const VOICES = [
  { name: 'piper-test-en', espeakVoice: 'en-us', locale: 'en-US', language: 'English' },
  { name: 'piper-test-pt', espeakVoice: 'pt-br', locale: 'pt-BR', language: 'Portuguese' },
];

function entry(v: (typeof VOICES)[number]): ModelEntry {
  const file = (p: string) => {
    const body = served.get(`/${v.name}/${p}`)!;
    return { path: p, url: `${base}/${v.name}/${p}`, size: body.length, sha256: createHash('sha256').update(body).digest('hex') };
  };
  return {
    name: v.name, kind: 'speak', engine: 'piper', languages: [v.locale.split('-')[0]!], license: 'CC0', source: base, about: 'a test voice',
    files: [file('voice.onnx'), file('voice.onnx.json')], settings: { locale: v.locale, voice: v.name },
  };
}

beforeAll(async () => {
  server = await startFileServer(served);
  base = server.url;
  const published = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-piper-published-'));
  for (const v of VOICES) {
    const files = publishTestVoice(path.join(published, v.name), v);
    served.set(`/${v.name}/voice.onnx`, fs.readFileSync(files.onnx));
    served.set(`/${v.name}/voice.onnx.json`, fs.readFileSync(files.json));
  }
  fs.rmSync(published, { recursive: true, force: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-piper-'));
  await pullModels(VOICES.map((v) => v.name), { dir, catalog: VOICES.map(entry), prepare: prepareModel });
  piper = new PiperSynthesizer(modelsOf(dir, 'piper'), { backoff: { initialMs: 100 } });
});

afterAll(async () => {
  await piper?.close();
  await server?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / Math.max(1, pcm.length));

describe('piper', () => {
  it('a pulled voice is prepared at install: its phonemes\' ids written, its settings in the model', () => {
    const folder = path.join(dir, 'piper-test-en');
    const tokens = fs.readFileSync(path.join(folder, 'tokens.txt'), 'utf8').split('\n').filter(Boolean);
    expect(tokens.slice(0, 4)).toEqual(['_ 0', '^ 1', '$ 2', '  3']);
    // The newline is no phoneme: left out.
    expect(tokens.some((l) => l.endsWith(' 999'))).toBe(false);
    const model = fs.readFileSync(path.join(folder, 'voice.onnx'));
    expect(model.length).toBeGreaterThan(served.get('/piper-test-en/voice.onnx')!.length);
    expect(model.subarray(served.get('/piper-test-en/voice.onnx')!.length).toString('latin1')).toMatch(/comment.*piper.*voice.*en-us.*sample_rate.*22050/s);
  });

  it('speaks a sentence at the line\'s 8 kHz, as long as its phonemes are many; Portuguese by its own voice; not a language it has no voice for', async () => {
    expect(piper.speaks('en')).toBe(true);
    expect(piper.speaks('pt-BR')).toBe(true);
    expect(piper.speaks('ja')).toBe(false);
    const short = await piper.synthesize('Hello.', 'en');
    const long = await piper.synthesize('Hello, could you send me the report by Friday afternoon?', 'en');
    expect(rms(short.pcm)).toBeGreaterThan(1000);
    expect(short.ms).toBe(Math.round(short.pcm.length / 8));
    // Each phoneme id is SAMPLES_PER_ID samples at 22050 Hz: "Hello." is ^ _ h _ ə _ l _ ˈ _ o _ ʊ _ . _ $ or so.
    expect(short.ms).toBeGreaterThanOrEqual(Math.floor((10 * SAMPLES_PER_ID) / 22.05));
    expect(long.ms).toBeGreaterThan(3 * short.ms);
    const pt = await piper.synthesize('Olá, tudo bem?', 'pt-BR');
    expect(rms(pt.pcm)).toBeGreaterThan(1000);
    await expect(piper.synthesize('こんにちは', 'ja')).rejects.toThrow(/piper has no voice for ja \(installed: piper-test-en, piper-test-pt\)/);
  });

  it('its process killed, what it was saying fails, and the next sentence is spoken by another', async () => {
    const pids = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('piper/speaker.ts') && fs.readFileSync(`/proc/${p}/status`, 'utf8').includes(`PPid:\t${process.pid}\n`);
      } catch {
        return false;
      }
    });
    const [pid] = pids();
    expect(pid).toBeDefined();
    const saying = piper.synthesize('A long sentence that the speaker is saying when it dies, with many words in it.', 'en');
    process.kill(Number(pid), 'SIGKILL');
    await expect(saying).rejects.toThrow(/piper/);
    const again = await until('spoken again', async () => piper.synthesize('Back again.', 'en').catch(() => null), { timeoutMs: 30_000, intervalMs: 100 });
    expect(rms(again.pcm)).toBeGreaterThan(1000);
  });
});

describe('a voice present is used without configuration', () => {
  it('TOLK_SPEECH_ENGINES unset: piper first, the others after it for the languages it has no voice for', async () => {
    const c = loadConfig({ TOLK_MODELS_DIR: dir });
    expect(c.speechEngines[0]).toBe('piper');
    expect(c.speechEngines.slice(1)).toContain('pico');
    const speech = startSynthesizers(c);
    try {
      expect(speech.speaks('pt')).toBe(true);
      expect(speech.speaks('de')).toBe(true); // Pico's
      expect((await speech.synthesize('Bom dia.', 'pt')).pcm.length).toBeGreaterThan(0);
    } finally {
      await speech.close();
    }
    expect(loadConfig({ TOLK_MODELS_DIR: dir, TOLK_SPEECH_ENGINES: 'pico' }).speechEngines).toEqual(['pico']);
  });
});
