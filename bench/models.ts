import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PocketsphinxRecognizer, pocketsphinxInstalled } from '../src/engines/pocketsphinx/recognizer.ts';
import type { HeardUtterance } from '../src/engines/speech/recognizer.ts';
import { WhisperRecognizer } from '../src/engines/whisper/recognizer.ts';
import { whisperModel } from '../src/engines/whisper/index.ts';
import { installRandomWhisper, type WhisperSize } from '../test/helpers/onnx/whisper.ts';
import { sentence } from '../test/helpers/stream-audio.ts';
import { until } from '../test/helpers/wait.ts';
import { procCpu } from './proc.ts';
import { decoderPids } from './hearing.ts';
import { envNumber, round, sleep, stats, type LatencyStats } from './stats.ts';
import { BergamotEngine } from '../src/engines/bergamot/translate.ts';
import { ApertiumEngine } from '../src/engines/apertium/translate.ts';
import { startApy } from '../src/engines/apertium/apy.ts';
import { PHRASES } from '../src/engines/sim/phrasebook.ts';
import { bergamotModel, bergamotVocab } from '../test/helpers/bergamot-model.ts';

// The `models` target of npm run bench (bench/run.ts): what the offline
// engines cost on this machine (operator.md, Models).
//
// Whisper, each size and form of the catalog (tiny, base, small; int8 and
// float32), on models of the real architecture's shapes with random weights
// (test/helpers/onnx/whisper.ts: nothing can be downloaded here; the same
// shapes cost the same), read by the engine as the service reads
// (WhisperRecognizer: a decoder process, sherpa-onnx's runtime):
//   - load: from the engine made to its decoder ready;
//   - memory: the decoder process's resident size once loaded, and its peak
//     after the readings (VmRSS, VmHWM);
//   - real-time factor: the decoder's CPU seconds per second of audio, and
//     its wall time per second of audio, over the 5 recorded sentences of
//     pocketsphinx-testdata at a phone line's 8 kHz, read one at a time;
//     against PocketSphinx's CPU per second of audio on the same sentences
//     (the embedded recognizer it replaces, its decoder processes measured
//     the same way): the baseline, in its own processes.
//     Random weights read as many tokens as the model allows (6 a second of
//     audio: sherpa-onnx's limit) where speech reads about 3: the decoder's
//     share of the time is an upper bound.
//   - speakers: BENCH_MODELS_SPEAKERS (default 1,2,3,4,6) people talking at
//     once, each saying a recorded sentence then pausing 2 s, for
//     BENCH_MODELS_SECONDS (30), on the engine's default processes and
//     threads: the delay from each utterance's end to its text (p50, p90);
//     the most speakers whose p90 stays under BENCH_MODELS_KEEP_UP_MS (2000)
//     is how many one process hears in a conversation.
// BENCH_MODELS_WHISPER: the forms measured (default tiny-int8,tiny,base-int8,base,small-int8);
// BENCH_MODELS_SPEAKER_MODELS: those the speakers part runs on (default tiny-int8,base-int8).

export type WhisperCost = {
  model: string;
  parameters_file_mb: number;
  load_ms: number;
  rss_mb: number | null;
  peak_rss_mb: number | null;
  cpu_rtf: number | null;
  wall_rtf: number;
  vs_pocketsphinx_cpu: number | null;
};

export type SpeakersRun = { model: string; speakers: number; utterances: number; delay: LatencyStats; keeps_up: boolean };

export type TranslationCost = { engine: string; phrases: number; first_ms: number; per_phrase: LatencyStats; rss_growth_mb: number | null };

export type ModelsResult = {
  cores: number;
  translation: TranslationCost[];
  audio_s: number;
  pocketsphinx_cpu_rtf: number | null;
  whisper: WhisperCost[];
  speakers: SpeakersRun[];
  most_speakers: Record<string, number>;
  failures: number;
};

function descendants(pid: number, match: string): number[] {
  const out: number[] = [];
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      if (status.includes(`PPid:\t${pid}\n`) && cmd.includes(match)) out.push(Number(p));
    } catch {
      // Gone.
    }
  }
  return out;
}

function memoryMb(pid: number, field: 'VmRSS' | 'VmHWM'): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

const utterance = (pcm: Int16Array, key: string): HeardUtterance => ({ key, pcm, rate: 8000, audioMs: pcm.length / 8, lang: 'en', at: Date.now() });

export async function runModelsBench(log: (m: string) => void): Promise<ModelsResult> {
  const forms = (process.env.BENCH_MODELS_WHISPER ?? 'tiny-int8,tiny,base-int8,base,small-int8').split(',').map((s) => s.trim()).filter(Boolean);
  const speakerForms = (process.env.BENCH_MODELS_SPEAKER_MODELS ?? 'tiny-int8,base-int8').split(',').map((s) => s.trim()).filter(Boolean);
  const speakerCounts = (process.env.BENCH_MODELS_SPEAKERS ?? '1,2,3,4,6').split(',').map(Number).filter((n) => n > 0);
  const seconds = envNumber('BENCH_MODELS_SECONDS', 30);
  const keepUpMs = envNumber('BENCH_MODELS_KEEP_UP_MS', 2000);
  const sentences = await Promise.all(['0870', '0880', '0890', '0920', '0930'].map((id) => sentence(id)));
  const audioS = sentences.reduce((s, x) => s + x.pcm.length / 8000, 0);
  const result: ModelsResult = { cores: os.availableParallelism(), translation: [], audio_s: round(audioS), pocketsphinx_cpu_rtf: null, whisper: [], speakers: [], most_speakers: {}, failures: 0 };

  if (pocketsphinxInstalled()) {
    const ps = new PocketsphinxRecognizer({ processes: 1 });
    try {
      await ps.recognize(utterance(new Int16Array(8000), 'warm'));
      const pids = decoderPids();
      const before = procCpu(pids);
      for (const [i, s] of sentences.entries()) await ps.recognize(utterance(s.pcm, `ps${i}`));
      const after = procCpu(pids);
      if (before !== null && after !== null) result.pocketsphinx_cpu_rtf = round((after - before) / audioS, 3);
    } finally {
      await ps.close();
    }
    log(`models: PocketSphinx reads ${round(audioS)} s of audio at ${result.pocketsphinx_cpu_rtf} CPU s per s`);
  }

  const modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-models-'));
  try {
    for (const form of forms) {
      const [size, q] = form.split('-') as [WhisperSize, string | undefined];
      const name = installRandomWhisper(modelsDir, size, { int8: q === 'int8', name: `whisper-${form}` });
      const fileMb = round((fs.statSync(path.join(modelsDir, name, 'encoder.onnx')).size + fs.statSync(path.join(modelsDir, name, 'decoder.onnx')).size) / 1024 / 1024);
      const started = Date.now();
      const w = new WhisperRecognizer(whisperModel(modelsDir, name), { processes: 1 });
      try {
        await until('the decoder up', async () => w.spare(), { timeoutMs: 300_000, intervalMs: 20 });
        const loadMs = Date.now() - started;
        const [pid] = descendants(process.pid, 'whisper/decoder.ts');
        const rss = pid ? memoryMb(pid, 'VmRSS') : null;
        const cpuBefore = pid ? procCpu([pid]) : null;
        const t0 = performance.now();
        for (const [i, s] of sentences.entries()) await w.recognize(utterance(s.pcm, `w${i}`));
        const wall = (performance.now() - t0) / 1000;
        const cpuAfter = pid ? procCpu([pid]) : null;
        const cpuRtf = cpuBefore !== null && cpuAfter !== null ? round((cpuAfter - cpuBefore) / audioS, 3) : null;
        const cost: WhisperCost = {
          model: form, parameters_file_mb: fileMb, load_ms: loadMs, rss_mb: rss, peak_rss_mb: pid ? memoryMb(pid, 'VmHWM') : null,
          cpu_rtf: cpuRtf, wall_rtf: round(wall / audioS, 3),
          vs_pocketsphinx_cpu: cpuRtf !== null && result.pocketsphinx_cpu_rtf ? round(cpuRtf / result.pocketsphinx_cpu_rtf, 2) : null,
        };
        result.whisper.push(cost);
        log(`models: whisper ${form}: loaded in ${loadMs} ms, ${rss} MB resident, ${cost.cpu_rtf} CPU s and ${cost.wall_rtf} s per s of audio`);
        if (speakerForms.includes(form)) {
          await w.close();
          for (const k of speakerCounts) {
            const run = await speakers(modelsDir, name, form, k, sentences.map((s) => s.pcm), seconds, keepUpMs);
            result.speakers.push(run);
            if (run.utterances === 0) result.failures++;
            log(`models: whisper ${form}, ${k} speakers: ${run.utterances} utterances, end of speech to text p50 ${run.delay.p50_ms} ms, p90 ${run.delay.p90_ms} ms`);
            if (run.keeps_up) result.most_speakers[form] = k;
            else break;
          }
        }
      } finally {
        await w.close();
      }
    }
  } finally {
    fs.rmSync(modelsDir, { recursive: true, force: true });
  }
  result.translation = await translationCosts(log);
  return result;
}

/**
 * Translation time per phrase, English to Spanish, the phrasebook's phrases one at a time: a
 * Firefox Translations model of the real tiny architecture (random weights) in its worker
 * thread, against Apertium's apertium-apy (the rule-based engine it replaces) in its own process.
 */
async function translationCosts(log: (m: string) => void): Promise<TranslationCost[]> {
  const texts = PHRASES.map((p) => p.en!).filter(Boolean);
  const out: TranslationCost[] = [];
  const time = async (engine: { name: string; translate: BergamotEngine['translate'] }, rss: () => number | null) => {
    const before = rss();
    let t0 = performance.now();
    await engine.translate(texts[0]!, 'en', ['es'], AbortSignal.timeout(60_000));
    const first = Math.round(performance.now() - t0);
    const each: number[] = [];
    for (const text of texts) {
      t0 = performance.now();
      await engine.translate(text, 'en', ['es'], AbortSignal.timeout(60_000));
      each.push(performance.now() - t0);
    }
    const after = rss();
    const cost: TranslationCost = { engine: engine.name, phrases: texts.length, first_ms: first, per_phrase: stats(each), rss_growth_mb: before !== null && after !== null ? round(after - before) : null };
    out.push(cost);
    log(`models: ${engine.name} en→es: first phrase ${first} ms, then p50 ${cost.per_phrase.p50_ms} ms, p90 ${cost.per_phrase.p90_ms} ms a phrase`);
  };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-bergamot-'));
  const folder = path.join(dir, 'bergamot-en-es');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'model.bin'), bergamotModel());
  fs.writeFileSync(path.join(folder, 'vocab.spm'), bergamotVocab());
  const engine = new BergamotEngine([{ name: 'bergamot-en-es', kind: 'translate', engine: 'bergamot', languages: ['en', 'es'], license: '', source: '', about: '', files: [], dir: folder }]);
  try {
    await time(engine, () => memoryMb(process.pid, 'VmRSS'));
  } finally {
    await engine.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const apy = await startApy().catch(() => null);
  if (apy) {
    try {
      const apertium = new ApertiumEngine({ url: apy.url });
      await apertium.load(AbortSignal.timeout(10_000));
      await time(apertium, () => null);
    } finally {
      await apy.stop();
    }
  }
  return out;
}

/** k people talking at once on the engine's defaults: each says a sentence, waits for nothing, pauses 2 s, and says the next. */
async function speakers(modelsDir: string, name: string, form: string, k: number, pcms: Int16Array[], seconds: number, keepUpMs: number): Promise<SpeakersRun> {
  const w = new WhisperRecognizer(whisperModel(modelsDir, name));
  const delays: number[] = [];
  const readings: Promise<unknown>[] = [];
  try {
    await until('the decoder up', async () => w.spare(), { timeoutMs: 300_000, intervalMs: 20 });
    const end = Date.now() + seconds * 1000;
    await Promise.all(Array.from({ length: k }, async (_, who) => {
      // Speakers start apart, as people do.
      await sleep((who * 2000) / k);
      for (let n = 0; Date.now() < end; n++) {
        const pcm = pcms[(who + n) % pcms.length]!;
        // The sentence is spoken (its length in real time), then read.
        await sleep(pcm.length / 8);
        const spoken = performance.now();
        // A speaker whose last sentence is not read yet talks on (the next is read after it).
        readings.push(w.recognize(utterance(pcm, `s${who}`)).then(() => delays.push(performance.now() - spoken), () => {}));
        await sleep(2000);
      }
    }));
    await Promise.all(readings);
  } finally {
    await w.close();
  }
  const delay = stats(delays);
  return { model: form, speakers: k, utterances: delays.length, delay, keeps_up: delays.length > 0 && delay.p90_ms < keepUpMs };
}

export function printModelsReport(r: ModelsResult): void {
  console.log(`\nOffline models on ${r.cores} cores (${r.audio_s} s of recorded speech at 8 kHz; PocketSphinx ${r.pocketsphinx_cpu_rtf ?? 'n/a'} CPU s per s of audio)`);
  console.log('whisper form   files MB  load ms  RSS MB  peak MB  CPU s/s  wall s/s  CPU vs PocketSphinx');
  for (const w of r.whisper) {
    console.log(`${w.model.padEnd(14)} ${String(w.parameters_file_mb).padStart(8)} ${String(w.load_ms).padStart(8)} ${String(w.rss_mb ?? '-').padStart(7)} ${String(w.peak_rss_mb ?? '-').padStart(8)} ${String(w.cpu_rtf ?? '-').padStart(8)} ${String(w.wall_rtf).padStart(9)} ${String(w.vs_pocketsphinx_cpu ?? '-').padStart(10)}x`);
  }
  for (const s of r.speakers) console.log(`speakers ${s.model} x${s.speakers}: ${s.utterances} utterances, end of speech to text p50 ${s.delay.p50_ms} ms p90 ${s.delay.p90_ms} ms${s.keeps_up ? '' : ' (falls behind)'}`);
  for (const [m, k] of Object.entries(r.most_speakers)) console.log(`one process hears ${k} people talking at once with whisper ${m}`);
  for (const t of r.translation) console.log(`translation ${t.engine} en→es, ${t.phrases} phrases one at a time: first ${t.first_ms} ms, then p50 ${t.per_phrase.p50_ms} ms, p90 ${t.per_phrase.p90_ms} ms${t.rss_growth_mb !== null ? `, the process ${t.rss_growth_mb} MB larger` : ''}`);
}
