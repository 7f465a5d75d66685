import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// Whether a 20 ms frame holds a voice. Two detectors answer it:
//   - SileroDetector: Silero VAD v5, a small neural network (2 MB, MIT) run by
//     sherpa-onnx-node's native ONNX runtime, prebuilt per platform. It tells a
//     voice from noise of the same loudness (a fan, a street, a television),
//     which no loudness rule can. The model is read from @ricky0123/vad-web's
//     package, which ships it; nothing is downloaded.
//   - EnergyDetector: a frame is voice when its RMS is above a threshold, the
//     rule Hearing had before; kept to compare with (bench/vad.ts) and as the
//     fallback when the model cannot load (a platform without a prebuilt
//     runtime), which logs one warning per thread.
// Frames are 16-bit PCM at the stream's rate, told by their length: 160
// samples on a call's line (8 kHz), 320 from the room page (16 kHz).

export type VoiceDecision = {
  /** Speech is on (with the detector's own hysteresis: it starts above the on threshold and stops below the off one). */
  speech: boolean;
  /**
   * How sure it is that the frame is speech, 0 to 1. sherpa-onnx's Node binding
   * gives Silero's decision, not its per-window probability: 1 or 0 there.
   */
  probability: number;
};

export interface VoiceDetector {
  /** 'silero' or 'energy': what the bench and the logs print. */
  readonly kind: 'silero' | 'energy';
  /** One 20 ms frame (null: nothing arrived, which is silence). */
  push(frame: Int16Array | null): VoiceDecision;
  /** Forgets what it heard (a new stream on the same detector). */
  reset(): void;
}

/** RMS above which a frame holds voice (what Hearing used before; answering-machine detection uses the same scale). */
export const ENERGY_RMS = 400;

export class EnergyDetector implements VoiceDetector {
  readonly kind = 'energy';
  private readonly rms: number;

  constructor(rms = ENERGY_RMS) {
    this.rms = rms;
  }

  push(frame: Int16Array | null): VoiceDecision {
    if (!frame || frame.length === 0) return { speech: false, probability: 0 };
    let sum = 0;
    for (let i = 0; i < frame.length; i++) sum += frame[i]! * frame[i]!;
    const rms = Math.sqrt(sum / frame.length);
    // Not a probability: how far above the threshold, capped (twice the threshold reads as sure).
    return { speech: rms > this.rms, probability: Math.min(1, rms / (2 * this.rms)) };
  }

  reset(): void {}
}

export type SileroOptions = {
  /** Probability above which speech starts (Silero's usual 0.5); it stops below this minus 0.15 (the runtime's fixed hysteresis). */
  threshold: number;
  /** Speech must last this long before it is on (Hearing's minVoiceMs keeps clicks out after it, so only a window or so). */
  minSpeechMs: number;
  /** Below the off threshold this long before speech is off (Hearing's hangover then decides where an utterance ends). */
  minSilenceMs: number;
};

export const SILERO_DEFAULTS: SileroOptions = { threshold: 0.5, minSpeechMs: 32, minSilenceMs: 96 };

// The runtime wants 16 kHz and windows of 512 samples (32 ms) for Silero v5;
// it ends the process on anything else, so nothing else is ever passed.
const MODEL_RATE = 16_000;
const WINDOW = 512;
// The runtime keeps the samples of the speech under way (for segments, which
// nothing here reads), growing its buffer past BUFFER_S and saying so on
// stderr. Voice that never pauses (a television behind the callee) would grow
// it without end, so past RESET_AFTER_WINDOWS of speech the model starts
// afresh, and speech stays on for up to HOLD_WINDOWS while it hears again.
const BUFFER_S = 10;
const RESET_AFTER_WINDOWS = Math.floor((8 * MODEL_RATE) / WINDOW);
const HOLD_WINDOWS = 8;
// Each model state is an ONNX session of about 8 MB. A stream quiet this long
// (a microphone switched off, a line's silence) gives its state back to the
// thread's idle ones and takes one again when there is sound, so a room of
// two hundred open microphones costs what its sounding ones do.
const RELEASE_AFTER_WINDOWS = Math.ceil((2 * MODEL_RATE) / WINDOW);
const MAX_IDLE = 32;
const idle = new Map<string, SherpaVad[]>();

type SherpaVad = {
  acceptWaveform(samples: Float32Array): void;
  isDetected(): boolean;
  isEmpty(): boolean;
  pop(): void;
  reset(): void;
};
type Sherpa = { Vad: new (config: object, bufferSeconds: number) => SherpaVad };

let sherpa: Sherpa | null | undefined;
/** Detectors made in this thread: each starts its windows at another phase (see the constructor). */
let made = 0;
let modelPath: string | null = null;
let warned = false;

/** The runtime and the model's file, once per thread; null (and one warning) when either is missing. */
function runtime(warn: (m: string) => void): Sherpa | null {
  if (sherpa !== undefined) return sherpa;
  try {
    const require = createRequire(import.meta.url);
    const model = path.join(path.dirname(require.resolve('@ricky0123/vad-web/package.json')), 'dist', 'silero_vad_v5.onnx');
    // The runtime exits the process on a missing model rather than throwing: look first.
    if (!fs.existsSync(model)) throw new Error(`no model at ${model}`);
    sherpa = require('sherpa-onnx-node') as Sherpa;
    modelPath = model;
  } catch (err) {
    sherpa = null;
    if (!warned) {
      warned = true;
      warn(`voice activity: the Silero model cannot load (${(err as Error).message.split('\n')[0]}); using the energy threshold instead`);
    }
  }
  return sherpa;
}

export class SileroDetector implements VoiceDetector {
  readonly kind = 'silero';
  /** The model's state, held only while there is sound to hear (see release()). */
  private vad: SherpaVad | null = null;
  private readonly config: object;
  private readonly key: string;
  /** Quiet windows in a row while speech is off. */
  private quietWindows = 0;
  /** Model-rate samples not yet a whole window. */
  private readonly pending = new Float32Array(WINDOW);
  private filled = 0;
  /** The previous 8 kHz sample, which the first interpolated one of a frame leans on. */
  private last = 0;
  private on = false;
  /** Windows the speech under way has lasted (up to a reset). */
  private onWindows = 0;
  /** Windows that speech stays on after a reset while the model has not yet heard it again. */
  private hold = 0;
  /** Samples in a frame: a frame that never came is this much silence. */
  private size = 160;

  /** Throws when the runtime or the model is missing: voiceDetector() falls back instead. */
  constructor(o: Partial<SileroOptions> = {}, warn: (m: string) => void = (m) => process.emitWarning(m)) {
    const s = runtime(warn);
    if (!s) throw new Error('voice activity: the Silero model is not available');
    const c = { ...SILERO_DEFAULTS, ...o };
    this.config = {
      sileroVad: { model: modelPath, threshold: c.threshold, minSpeechDuration: c.minSpeechMs / 1000, minSilenceDuration: c.minSilenceMs / 1000, windowSize: WINDOW, maxSpeechDuration: 3600 },
      sampleRate: MODEL_RATE,
      numThreads: 1,
      provider: 'cpu',
      debug: false,
    };
    this.key = JSON.stringify(this.config);
    // Made now, so that a model that cannot load fails here (and voiceDetector() falls back), and
    // left with the idle ones until there is sound to hear.
    this.vad = this.acquire();
    this.release();
    // A media plane pushes every call's frame in the same tick: were their windows in step, every
    // call's model would run in one tick and none in the next. Staggered, the work spreads over ticks.
    this.filled = (made++ * 97) % WINDOW;
  }

  push(frame: Int16Array | null): VoiceDecision {
    if (frame) this.size = frame.length;
    const n = this.size;
    if (n === 320) {
      for (let i = 0; i < n; i++) this.put(frame ? frame[i]! / 32768 : 0);
    } else {
      // 8 kHz doubled by linear interpolation: on the LibriVox recordings made 8 kHz, Silero's decisions
      // came within 40 ms of those on the original 16 kHz, closer than with sox's filtered resampling.
      for (let i = 0; i < n; i++) {
        const x = frame ? frame[i]! / 32768 : 0;
        this.put((this.last + x) / 2);
        this.put(x);
        this.last = x;
      }
    }
    return { speech: this.on, probability: this.on ? 1 : 0 };
  }

  reset(): void {
    this.release();
    this.pending.fill(0);
    this.last = 0;
    this.on = false;
    this.onWindows = 0;
    this.hold = 0;
  }

  private put(x: number): void {
    this.pending[this.filled++] = x;
    if (this.filled < WINDOW) return;
    this.filled = 0;
    // A window near digital silence while speech is off is not run through
    // the model (the bulk of its CPU): no voice is that quiet, and a line
    // mostly carries silence while the far end listens.
    if (!this.on && quiet(this.pending)) {
      if (++this.quietWindows >= RELEASE_AFTER_WINDOWS) this.release();
      return;
    }
    this.quietWindows = 0;
    const vad = (this.vad ??= this.acquire());
    vad.acceptWaveform(this.pending);
    const heard = vad.isDetected();
    if (!heard && this.hold > 0) {
      this.hold--;
      this.on = true;
    } else {
      this.hold = 0;
      this.on = heard;
    }
    this.onWindows = this.on ? this.onWindows + 1 : 0;
    if (this.onWindows >= RESET_AFTER_WINDOWS) {
      vad.reset();
      this.onWindows = 0;
      this.hold = HOLD_WINDOWS;
    }
    // Finished segments hold their samples; nothing here reads them.
    while (!vad.isEmpty()) vad.pop();
  }

  private acquire(): SherpaVad {
    const vad = idle.get(this.key)?.pop();
    if (vad) return vad;
    return new sherpa!.Vad(this.config, BUFFER_S);
  }

  /** Gives the model's state back to this thread's idle ones: after 2 s of quiet, or at reset(), it is silence's state anyway. */
  private release(): void {
    this.quietWindows = 0;
    if (!this.vad) return;
    this.vad.reset();
    const list = idle.get(this.key) ?? [];
    if (list.length < MAX_IDLE) list.push(this.vad);
    idle.set(this.key, list);
    this.vad = null;
  }
}

/** RMS under which a window is taken for silence without asking the model (-56 dBFS: a line's hiss, no voice). */
const QUIET_RMS = 50 / 32768;

function quiet(w: Float32Array): boolean {
  let s = 0;
  for (let i = 0; i < w.length; i++) s += w[i]! * w[i]!;
  return Math.sqrt(s / w.length) < QUIET_RMS;
}

/** Silero when it can load in this thread, otherwise the energy rule (one warning per thread). */
export function voiceDetector(o: { kind?: 'silero' | 'energy'; energyRms?: number; silero?: Partial<SileroOptions>; warn?: (m: string) => void } = {}): VoiceDetector {
  if (o.kind !== 'energy') {
    try {
      return new SileroDetector(o.silero, o.warn);
    } catch {
      // runtime() warned once already.
    }
  }
  return new EnergyDetector(o.energyRms);
}
