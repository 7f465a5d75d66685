import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EnergyDetector, SileroDetector, type VoiceDetector } from '../gateway/media/vad.ts';
import { babble, librivox, listen, prompts, RATE, scene, soxNoise, type Recording } from '../test/helpers/vad-audio.ts';
import { envNumber, round } from './stats.ts';

// The `vad` target of npm run bench (bench/run.ts): the voice activity
// detectors a call's line can hear with (gateway/media/vad.ts), today's
// energy threshold beside Silero, on real recordings (test/helpers/vad-audio.ts:
// LibriVox read English, made 8 kHz by sox, and BENCH_VAD_PROMPTS, default 40,
// Spanish, French and Italian telephone prompts per language), each after
// 1 s of lead and followed by 1 s, clean and with noise under it at 10 dB and
// 0 dB SNR (pink, brown and babble in turn; sox makes the noise at run time in
// a temporary folder), and on BENCH_VAD_NOISE_S (default 60) seconds of each
// noise alone, quiet (RMS 300, -41 dBFS) and loud (RMS 1500, -27 dBFS).
// Through Hearing, as the line hears: an onset is what speech.started and
// barge-in see (once the voice has lasted Hearing's minVoiceMs, 120 ms).
//   - delay: from where speech starts in the clean recording to the onset, p50/p99;
//   - missed: utterances with no onset between 200 ms before their start and their end;
//   - early: onsets in the lead, before any speech (noise taken for it);
//   - false starts per minute of noise alone, and the share of its frames called voice;
//   - CPU ms per call-second: the detector and Hearing, per second of audio heard.

const LEAD_MS = 1000;
const TAIL_MS = 1000;
const SLACK = (200 * RATE) / 1000;

type Condition = 'clean' | '10 dB' | '0 dB';
export type VadRow = { delay_p50_ms: number | null; delay_p99_ms: number | null; missed_pct: number; early: number; utterances: number };
export type VadNoiseRow = { false_starts_per_min: number; voiced_pct: number };
export type VadResult = {
  utterances: number;
  noise_seconds: number;
  speech: Record<string, Record<Condition, VadRow>>;
  noise: Record<string, Record<string, VadNoiseRow>>;
  cpu_ms_per_call_second: Record<string, number>;
};

function pct(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
}

export async function runVadBench(log: (m: string) => void): Promise<VadResult> {
  const perLanguage = Math.round(envNumber('BENCH_VAD_PROMPTS', 40));
  const noiseS = Math.round(envNumber('BENCH_VAD_NOISE_S', 60));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-vad-'));
  try {
    const recs: Recording[] = [...librivox(), ...prompts(perLanguage)];
    log(`vad: ${recs.length} recordings, clean and at 10 and 0 dB SNR; ${noiseS} s of each noise alone`);
    const noises = { pink: soxNoise('pinknoise', noiseS, 1000, dir), brown: soxNoise('brownnoise', noiseS, 1000, dir), babble: babble(recs, noiseS, 1000) };
    const kinds = Object.keys(noises) as Array<keyof typeof noises>;
    const detectors: Record<string, VoiceDetector> = { energy: new EnergyDetector(), silero: new SileroDetector() };
    const out: VadResult = { utterances: recs.length, noise_seconds: noiseS, speech: {}, noise: {}, cpu_ms_per_call_second: {} };
    for (const [name, d] of Object.entries(detectors)) {
      let cpu = 0;
      let audioS = 0;
      const hear = (pcm: Int16Array) => {
        d.reset();
        const t = process.cpuUsage();
        const h = listen(pcm, d);
        const c = process.cpuUsage(t);
        cpu += (c.user + c.system) / 1000;
        audioS += pcm.length / RATE;
        return h;
      };
      const rows = {} as Record<Condition, VadRow>;
      for (const cond of ['clean', '10 dB', '0 dB'] as Condition[]) {
        const delays: number[] = [];
        let missed = 0;
        let early = 0;
        recs.forEach((r, i) => {
          const noise = cond === 'clean' ? undefined : noises[kinds[i % kinds.length]!];
          const s = scene(r, { leadMs: LEAD_MS, tailMs: TAIL_MS, noise, snrDb: cond === 'clean' ? undefined : Number.parseInt(cond, 10), offset: i * 7919 });
          const h = hear(s.pcm);
          early += h.onsets.filter((t) => t < s.start - SLACK).length;
          const hit = h.onsets.find((t) => t >= s.start - SLACK && t <= s.end);
          if (hit === undefined) missed++;
          else delays.push(((hit - s.start) * 1000) / RATE);
        });
        delays.sort((a, b) => a - b);
        rows[cond] = { delay_p50_ms: pct(delays, 0.5), delay_p99_ms: pct(delays, 0.99), missed_pct: round((missed * 100) / recs.length, 1), early, utterances: recs.length };
      }
      out.speech[name] = rows;
      const alone: Record<string, VadNoiseRow> = {};
      for (const k of kinds) {
        for (const [level, rms] of [['quiet', 300], ['loud', 1500]] as const) {
          const n = noises[k];
          const g = rms / 1000;
          const h = hear(n.map((x) => Math.max(-32768, Math.min(32767, Math.round(x * g)))));
          alone[`${k} ${level}`] = { false_starts_per_min: round(h.onsets.length / (noiseS / 60), 1), voiced_pct: round((h.voicedFrames * 100) / h.frames, 1) };
        }
      }
      out.noise[name] = alone;
      out.cpu_ms_per_call_second[name] = round(cpu / audioS, 3);
      log(`vad: ${name} done`);
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function printVadReport(r: VadResult): void {
  console.log(`\nVoice activity: ${r.utterances} recorded utterances (onset through Hearing; delay from the speech's start in the clean recording), energy (today's rule) beside Silero`);
  const speech: Record<string, Record<string, string | number>> = {};
  for (const [name, rows] of Object.entries(r.speech)) {
    for (const [cond, x] of Object.entries(rows)) {
      speech[`${name} ${cond}`] = { 'delay p50 ms': x.delay_p50_ms ?? 'n/a', 'delay p99 ms': x.delay_p99_ms ?? 'n/a', 'missed %': x.missed_pct, 'early onsets': x.early };
    }
  }
  console.table(speech);
  const noise: Record<string, Record<string, string | number>> = {};
  for (const [name, rows] of Object.entries(r.noise)) {
    noise[name] = {};
    for (const [k, x] of Object.entries(rows)) noise[name][`${k}: starts/min (voiced %)`] = `${x.false_starts_per_min} (${x.voiced_pct})`;
  }
  console.log(`Noise alone (${r.noise_seconds} s each; quiet RMS 300, loud RMS 1500):`);
  console.table(noise);
  console.log(`CPU ms per call-second: ${Object.entries(r.cpu_ms_per_call_second).map(([k, v]) => `${k} ${v}`).join(', ')}`);
}
