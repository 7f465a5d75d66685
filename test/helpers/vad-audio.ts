import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Hearing } from '../../gateway/media/hearing.ts';
import type { VoiceDetector } from '../../gateway/media/vad.ts';

// Real recordings and real noise for judging voice activity detectors (the
// tests in gateway/media/vad.test.ts and bench/vad.ts): read speech in
// English (pocketsphinx-testdata's LibriVox, 16 kHz, made 8 kHz by sox) and
// telephone prompts in Spanish, French and Italian (asterisk-core-sounds-*-wav,
// 8 kHz), and noise made by sox (pink, brown) or by mixing many recordings
// at once (babble), all as a line carries them: 8 kHz 16-bit mono.
//
// Where speech starts is read off the clean recording: the first stretch of
// sure voice (three of four 20 ms frames at a fifth of the recording's loud
// frames' RMS, its 90th percentile, and at least 300), then back over the
// rise before it while frames stay above twice the background's RMS (its 10th
// percentile; at least 100). The prompts' background is digital silence and
// the read speech's a quiet room (RMS 60 to 250), so a breath or hiss does not
// pass for the start, and a soft first consonant is not left out.

export const RATE = 8000;
export const FRAME = 160;
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const PROMPTS = '/usr/share/asterisk/sounds';

export type Recording = { name: string; pcm: Int16Array; /** Sample where speech starts (clean). */ start: number };

/** 16-bit mono PCM at 8 kHz from any sound file, by sox. */
export function read8k(file: string): Int16Array {
  const out = execFileSync('sox', [file, '-t', 'raw', '-r', String(RATE), '-e', 'signed', '-b', '16', '-c', '1', '-'], { maxBuffer: 1 << 28 });
  return new Int16Array(out.buffer, out.byteOffset, out.length >> 1).slice();
}

function frameRms(pcm: Int16Array, at: number): number {
  let s = 0;
  for (let i = at; i < at + FRAME; i++) s += pcm[i]! * pcm[i]!;
  return Math.sqrt(s / FRAME);
}

/** The sample where speech starts in a clean recording (see above); -1 when nothing reaches the level. */
export function speechStart(pcm: Int16Array): number {
  const rms: number[] = [];
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) rms.push(frameRms(pcm, at));
  const sorted = [...rms].sort((a, b) => a - b);
  const loud = sorted[Math.floor(rms.length * 0.9)] ?? 0;
  const floor = sorted[Math.floor(rms.length * 0.1)] ?? 0;
  const level = Math.max(300, loud / 5);
  // The first frame of a sure stretch of voice (three of four frames at the level)...
  let i = rms.findIndex((_, k) => rms.slice(k, k + 4).filter((r) => r >= level).length >= 3 && rms[k]! >= level);
  if (i < 0) return -1;
  // ...and back over its rise, while above the background (twice its floor).
  while (i > 0 && rms[i - 1]! >= Math.max(100, 2 * floor)) i--;
  return i * FRAME;
}

/** RMS of the frames at or above the speech level: the speech's own level, which an SNR is measured against. */
export function activeRms(pcm: Int16Array): number {
  const sorted: number[] = [];
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) sorted.push(frameRms(pcm, at));
  sorted.sort((a, b) => a - b);
  const level = Math.max(300, (sorted[Math.floor(sorted.length * 0.9)] ?? 0) / 5);
  let s = 0;
  let n = 0;
  for (let at = 0; at + FRAME <= pcm.length; at += FRAME) {
    const r = frameRms(pcm, at);
    if (r >= level) {
      s += r * r;
      n++;
    }
  }
  return n ? Math.sqrt(s / n) : 0;
}

export function rms(pcm: Int16Array): number {
  let s = 0;
  for (let i = 0; i < pcm.length; i++) s += pcm[i]! * pcm[i]!;
  return Math.sqrt(s / Math.max(1, pcm.length));
}

/** The LibriVox sentences (5, 3 to 7 s each). */
export function librivox(): Recording[] {
  return fs.readdirSync(LIBRIVOX).filter((f) => f.endsWith('.wav')).sort().map((f) => recording(`en/${f.replace(/\.wav$/, '').slice(-4)}`, path.join(LIBRIVOX, f)));
}

/** The first `perLanguage` prompts (by name) of each language that last 1 to 6 s and have speech. */
export function prompts(perLanguage: number, langs = ['es', 'fr', 'it']): Recording[] {
  const out: Recording[] = [];
  for (const lang of langs) {
    const dir = path.join(PROMPTS, lang);
    let n = 0;
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.wav')).sort()) {
      if (n >= perLanguage) break;
      const size = fs.statSync(path.join(dir, f)).size;
      // 8 kHz 16-bit WAV: 16 kB a second.
      if (size < 16_000 || size > 96_000) continue;
      const r = recording(`${lang}/${f.replace(/\.wav$/, '')}`, path.join(dir, f));
      if (r.start < 0) continue;
      out.push(r);
      n++;
    }
  }
  return out;
}

function recording(name: string, file: string): Recording {
  const pcm = read8k(file);
  return { name, pcm, start: speechStart(pcm) };
}

/** `seconds` of sox's pink or brown noise at RMS `level`. */
export function soxNoise(kind: 'pinknoise' | 'brownnoise', seconds: number, level: number, dir: string): Int16Array {
  const file = path.join(dir, `${kind}-${seconds}.wav`);
  if (!fs.existsSync(file)) execFileSync('sox', ['-R', '-n', '-r', String(RATE), '-b', '16', '-c', '1', file, 'synth', String(seconds), kind, 'vol', '0.5']);
  return atLevel(read8k(file), level);
}

/** Babble: `voices` streams of recordings one after another, each starting elsewhere, mixed, `seconds` long, at RMS `level`. */
export function babble(recs: Recording[], seconds: number, level: number, voices = 24): Int16Array {
  const n = seconds * RATE;
  const sum = new Float64Array(n);
  for (let v = 0; v < voices; v++) {
    let at = 0;
    for (let k = v * 7; at < n; k++) {
      const p = recs[k % recs.length]!.pcm;
      for (let i = 0; i < p.length && at < n; i++, at++) sum[at] = sum[at]! + p[i]!;
    }
  }
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(sum[i]!)));
  return atLevel(out, level);
}

function atLevel(pcm: Int16Array, level: number): Int16Array {
  const g = level / Math.max(1, rms(pcm));
  return pcm.map((x) => Math.max(-32768, Math.min(32767, Math.round(x * g))));
}

/**
 * A recording as a call hears it: `leadMs` before it and `tailMs` after it,
 * with noise under the whole at `snrDb` below the speech's active level (no
 * noise: digital silence). The noise is read from `noise` at `offset`,
 * wrapping around. Returns the audio and where speech starts in it.
 */
export function scene(r: Recording, o: { leadMs: number; tailMs: number; noise?: Int16Array; snrDb?: number; offset?: number }): { pcm: Int16Array; start: number; end: number } {
  const lead = (o.leadMs * RATE) / 1000;
  const out = new Int16Array(lead + r.pcm.length + (o.tailMs * RATE) / 1000);
  const mix = new Float64Array(out.length);
  for (let i = 0; i < r.pcm.length; i++) mix[lead + i] = r.pcm[i]!;
  if (o.noise && o.snrDb !== undefined) {
    const g = activeRms(r.pcm) / Math.pow(10, o.snrDb / 20) / Math.max(1, rms(o.noise));
    const off = o.offset ?? 0;
    for (let i = 0; i < out.length; i++) mix[i] = mix[i]! + o.noise[(off + i) % o.noise.length]! * g;
  }
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(mix[i]!)));
  return { pcm: out, start: lead + r.start, end: lead + r.pcm.length };
}

export type Heard = {
  /** Samples at which the detector's decision turned to speech (frame ends). */
  voiceOn: number[];
  /** Samples at which Hearing reported an onset (frame ends). */
  onsets: number[];
  /** Frames the detector called speech. */
  voicedFrames: number;
  frames: number;
};

/** What a detector decides on pcm, frame by frame, and what Hearing reports from its decisions. */
export function listen(pcm: Int16Array, detector: VoiceDetector): Heard {
  const h: Heard = { voiceOn: [], onsets: [], voicedFrames: 0, frames: 0 };
  let at = 0;
  let was = false;
  const watched: VoiceDetector = {
    kind: detector.kind,
    reset: () => detector.reset(),
    push: (f) => {
      const d = detector.push(f);
      if (d.speech && !was) h.voiceOn.push(at + FRAME);
      if (d.speech) h.voicedFrames++;
      was = d.speech;
      return d;
    },
  };
  const hearing = new Hearing({ detector: watched, onSpeech: (kind) => { if (kind === 'onset') h.onsets.push(at + FRAME); } });
  for (; at + FRAME <= pcm.length; at += FRAME) {
    hearing.push(pcm.subarray(at, at + FRAME));
    h.frames++;
  }
  return h;
}
