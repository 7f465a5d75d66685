import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnergyDetector, SileroDetector, voiceDetector } from './vad.ts';
import { ThreadedDetector, voiceThreadReady } from './vad-thread.ts';
import { babble, librivox, listen, prompts, RATE, scene, soxNoise, type Recording } from '../../test/helpers/vad-audio.ts';

// Voice activity on real recordings (test/helpers/vad-audio.ts): LibriVox's
// read English made 8 kHz by sox, and Spanish, French and Italian telephone
// prompts, after a second of lead; noise made by sox (pink, brown) or by
// mixing 24 recordings at once (babble). Where speech starts is read off the
// clean recording (its first sure stretch of voice, back over its rise).

let dir: string;
let recs: Recording[];
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-vad-test-'));
  recs = [...librivox(), ...prompts(10)];
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const ms = (samples: number) => (samples * 1000) / RATE;

describe('voice activity', () => {
  it('Silero finds the speech in every recording, each within 500 ms of its start and most within 200 ms', () => {
    expect(recs.length).toBe(35);
    const silero = new SileroDetector();
    const delays: number[] = [];
    for (const r of recs) {
      silero.reset();
      const s = scene(r, { leadMs: 1000, tailMs: 1000 });
      const h = listen(s.pcm, silero);
      // Nothing in the lead (digital silence), then speech soon after it starts.
      expect(h.voiceOn[0], r.name).toBeGreaterThan(s.start - 100 * 8);
      const delay = ms(h.voiceOn[0]! - s.start);
      expect(delay, r.name).toBeLessThanOrEqual(500);
      delays.push(delay);
      // Hearing reports the onset too (once the voice has lasted its minVoiceMs).
      expect(h.onsets.length, r.name).toBeGreaterThanOrEqual(1);
    }
    delays.sort((a, b) => a - b);
    expect(delays[Math.floor(delays.length / 2)]).toBeLessThanOrEqual(200);
  });

  it('noise alone is not speech: no start on pink or brown noise, at most a couple on babble', () => {
    const silero = new SileroDetector();
    const seconds = 30;
    const starts: Record<string, number> = {};
    for (const [name, noise] of [
      ['pink', soxNoise('pinknoise', seconds, 1500, dir)],
      ['brown', soxNoise('brownnoise', seconds, 1500, dir)],
      ['babble', babble(recs, seconds, 1500)],
    ] as const) {
      silero.reset();
      starts[name] = listen(noise, silero).onsets.length;
    }
    expect(starts.pink).toBe(0);
    expect(starts.brown).toBe(0);
    expect(starts.babble).toBeLessThanOrEqual(2);
  });

  it('at 0 dB SNR Silero still hears most utterances, where the energy rule hears noise as voice', () => {
    const noises = [soxNoise('pinknoise', 30, 1000, dir), soxNoise('brownnoise', 30, 1000, dir)];
    const heard = { silero: 0, energy: 0 };
    for (const [name, d] of [['silero', new SileroDetector()], ['energy', new EnergyDetector()]] as const) {
      recs.forEach((r, i) => {
        d.reset();
        const s = scene(r, { leadMs: 1000, tailMs: 1000, noise: noises[i % 2], snrDb: 0, offset: i * 7919 });
        const h = listen(s.pcm, d);
        // Heard: Hearing's first onset comes with the speech (not in the noise before it) and no later than its end.
        const first = h.onsets[0];
        if (first !== undefined && first >= s.start - 200 * 8 && first <= s.end) heard[name]++;
      });
    }
    expect(heard.silero).toBeGreaterThanOrEqual(Math.ceil(recs.length * 0.8));
    expect(heard.silero).toBeGreaterThan(heard.energy);
  });

  it('16 kHz frames (the room page) are heard as well as the line\'s 8 kHz', () => {
    const silero = new SileroDetector();
    const wav = fs.readFileSync('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav');
    const pcm = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) >> 1);
    const lead = new Int16Array(16_000);
    let first = -1;
    let n = 0;
    for (const part of [lead, pcm]) {
      for (let at = 0; at + 320 <= part.length; at += 320, n++) {
        if (silero.push(part.subarray(at, at + 320)).speech && first < 0) first = n;
      }
    }
    // The clean 8 kHz copy starts at 240 ms after its lead; at 16 kHz within the same bounds.
    expect(first * 20 - 1000).toBeGreaterThan(100);
    expect(first * 20 - 1000).toBeLessThan(240 + 500);
  });

  it('voiceDetector() gives Silero here, and the energy rule when asked', () => {
    expect(voiceDetector().kind).toBe('silero');
    expect(voiceDetector({ kind: 'energy' }).kind).toBe('energy');
  });

  it('in a voice thread of its own, Silero decides as in this thread, a few frames late', async () => {
    const r = recs[0]!;
    const s = scene(r, { leadMs: 1000, tailMs: 1000 });
    const here = new SileroDetector();
    expect(await voiceThreadReady()).toBe(true);
    const threaded = new ThreadedDetector();
    const onHere: number[] = [];
    const onThere: number[] = [];
    let was = [false, false];
    for (let at = 0, n = 0; at + 160 <= s.pcm.length; at += 160, n++) {
      const f = s.pcm.subarray(at, at + 160);
      const now = [here.push(f).speech, threaded.push(f).speech];
      if (now[0] && !was[0]) onHere.push(n);
      if (now[1] && !was[1]) onThere.push(n);
      was = now;
      // As a media plane's tick: the decisions come back between ticks.
      await new Promise((ok) => setTimeout(ok, 1));
    }
    expect(onThere.length).toBe(onHere.length);
    expect(onThere[0]! - onHere[0]!).toBeGreaterThanOrEqual(0);
    expect(onThere[0]! - onHere[0]!).toBeLessThanOrEqual(5);
  });

  it('a line that falls silent mid-word (no packets at all, for 3 s) turns speech off in the voice thread as here, and on again when the voice comes back', async () => {
    const r = recs[0]!;
    const s = scene(r, { leadMs: 500, tailMs: 0 });
    const whole: Int16Array[] = [];
    for (let at = 0; at + 160 <= s.pcm.length; at += 160) whole.push(s.pcm.subarray(at, at + 160));
    // Cut where speech is on, half way between where it starts and where it ends: mid-word.
    const probe = new SileroDetector();
    const on = whole.map((f) => probe.push(f).speech);
    const cut = Math.round((on.indexOf(true) + on.lastIndexOf(true)) / 2);
    expect(on[cut]).toBe(true);
    const voice: Array<Int16Array | null> = whole.slice(0, cut);
    const gap = Array.from({ length: 150 }, () => null);
    const frames = [...voice, ...gap, ...voice, ...gap];
    const here = new SileroDetector();
    expect(await voiceThreadReady()).toBe(true);
    const threaded = new ThreadedDetector();
    const edges = { here: [] as Array<[boolean, number]>, there: [] as Array<[boolean, number]> };
    let was = [false, false];
    for (let n = 0; n < frames.length; n++) {
      const now = [here.push(frames[n]!).speech, threaded.push(frames[n]!).speech];
      if (now[0] !== was[0]) edges.here.push([now[0]!, n]);
      if (now[1] !== was[1]) edges.there.push([now[1]!, n]);
      was = now;
      await new Promise((ok) => setTimeout(ok, 1));
    }
    // On, off when the packets stop, on again, off again: the same turns, each late by the voice
    // process's answers only (a few frames; more on a loaded machine, where this loop's 1 ms per
    // frame outruns them), or early by up to a window (each detector's 32 ms windows start at a
    // phase of their own, vad.ts). Silence held back while speech is on would put the offs 45
    // frames or more behind: nothing would reach the voice process before 50 of it had gathered.
    expect(edges.here.map(([on]) => on)).toEqual([true, false, true, false]);
    expect(edges.there.map(([on]) => on)).toEqual(edges.here.map(([on]) => on));
    edges.here.forEach(([, n], i) => {
      const late = edges.there[i]![1] - n;
      expect(late, `turn ${i}`).toBeGreaterThanOrEqual(-3);
      expect(late, `turn ${i}`).toBeLessThanOrEqual(30);
    });
  });
});
