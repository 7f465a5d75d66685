// Answering-machine detection from the audio of an answered call: a person
// picks up with a short "hello?" and waits; a voicemail plays a greeting
// longer than that, then a beep. Fed 20 ms frames of 8 kHz PCM as they are
// heard, it decides `human` or `machine` (or `unknown` when nobody says
// anything), then keeps listening for the beep, a pure tone, found with the
// Goertzel algorithm at the frequencies voicemail systems use.

export type AmdOptions = {
  /** RMS above which a frame holds voice. */
  voiceRms: number;
  /** A greeting that ends (silence follows) within this much voice is a person. */
  humanMaxMs: number;
  /** Voice longer than this, uninterrupted by a pause, is a recorded greeting. */
  machineMinMs: number;
  /** Silence after voice that ends a greeting. */
  pauseMs: number;
  /** With no voice for this long after the answer, the verdict is `unknown`. */
  waitMs: number;
  /** A tone holding this long is a beep. */
  beepMinMs: number;
  /** No verdict this long after the answer (voice that is neither short nor long, then silence): `unknown`. */
  maxMs: number;
};

export const AMD_DEFAULTS: AmdOptions = { voiceRms: 200, humanMaxMs: 1500, machineMinMs: 2800, pauseMs: 700, waitMs: 5000, beepMinMs: 120, maxMs: 6000 };

export type AmdVerdict = { kind: 'human' | 'machine' | 'unknown'; atMs: number; voiceMs: number; reason: string };
export type AmdEvent = { type: 'verdict'; verdict: AmdVerdict } | { type: 'beep'; atMs: number; hz: number };

const FRAME = 160;
const RATE = 8000;
/** Tones of voicemail beeps (and the common 1 kHz). */
const BEEP_HZ = [440, 480, 600, 800, 850, 900, 950, 1000, 1100, 1200, 1400, 1600, 2000];
/** A frame is a tone when one frequency holds this share of its energy. */
const TONE_SHARE = 0.6;

/** Power of `hz` in the frame (Goertzel), normalized so a full sine of amplitude A gives about A²/2. */
function goertzel(frame: Int16Array, hz: number): number {
  const k = (2 * Math.PI * hz) / RATE;
  const coeff = 2 * Math.cos(k);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < frame.length; i++) {
    const s0 = frame[i]! + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  const power = s1 * s1 + s2 * s2 - coeff * s1 * s2;
  return (2 * power) / (frame.length * frame.length);
}

export class AnsweringMachineDetector {
  private readonly o: AmdOptions;
  private ms = 0;
  private voiceMs = 0;
  /** Voice without a pause, ms. */
  private runMs = 0;
  private silenceMs = 0;
  private heardVoice = false;
  private verdict: AmdVerdict | null = null;
  private toneHz: number | null = null;
  private toneMs = 0;
  private beeped = false;

  constructor(o: Partial<AmdOptions> = {}) {
    this.o = { ...AMD_DEFAULTS, ...o };
  }

  /** One 20 ms frame (160 samples); what it decided, if anything. */
  push(frame: Int16Array): AmdEvent[] {
    if (frame.length !== FRAME) throw new Error(`amd: a frame is ${FRAME} samples, not ${frame.length}`);
    this.ms += 20;
    let energy = 0;
    for (let i = 0; i < FRAME; i++) energy += frame[i]! * frame[i]!;
    const meanSquare = energy / FRAME;
    const voiced = Math.sqrt(meanSquare) > this.o.voiceRms;
    const out: AmdEvent[] = [];

    const tone = voiced ? this.tone(frame, meanSquare) : null;
    if (!this.verdict) {
      if (voiced && tone === null) {
        this.heardVoice = true;
        this.voiceMs += 20;
        this.runMs += 20;
        this.silenceMs = 0;
        if (this.runMs >= this.o.machineMinMs) this.decide('machine', `voice for ${this.runMs} ms without a pause`, out);
        // A person says hello and waits for an answer; a recording goes on talking.
        else if (this.voiceMs >= this.o.machineMinMs) this.decide('machine', `greetings of ${this.voiceMs} ms in all`, out);
      } else {
        this.silenceMs += 20;
        if (this.silenceMs >= this.o.pauseMs) this.runMs = 0;
        if (this.heardVoice && this.silenceMs >= this.o.pauseMs) {
          if (this.voiceMs <= this.o.humanMaxMs) this.decide('human', `a greeting of ${this.voiceMs} ms, then silence`, out);
        }
        if (!this.heardVoice && this.ms >= this.o.waitMs) this.decide('unknown', `no voice in ${this.ms} ms`, out);
      }
      if (!this.verdict && this.ms >= this.o.maxMs) this.decide('unknown', `no verdict in ${this.ms} ms (voice ${this.voiceMs} ms)`, out);
      // A beep before any verdict (a greeting we took for speech in pieces): a machine.
    }
    if (!this.beeped) {
      if (tone !== null && (this.toneHz === null || this.toneHz === tone)) {
        this.toneHz = tone;
        this.toneMs += 20;
        if (this.toneMs >= this.o.beepMinMs) {
          this.beeped = true;
          if (!this.verdict) this.decide('machine', `a ${tone} Hz beep`, out);
          out.push({ type: 'beep', atMs: this.ms - this.toneMs, hz: tone });
        }
      } else {
        this.toneHz = tone;
        this.toneMs = tone === null ? 0 : 20;
      }
    }
    return out;
  }

  get decided(): AmdVerdict | null {
    return this.verdict;
  }

  private decide(kind: AmdVerdict['kind'], reason: string, out: AmdEvent[]): void {
    this.verdict = { kind, atMs: this.ms, voiceMs: this.voiceMs, reason };
    out.push({ type: 'verdict', verdict: this.verdict });
  }

  /** The beep frequency this frame is a pure tone of, or null. */
  private tone(frame: Int16Array, meanSquare: number): number | null {
    let best = 0;
    let bestHz = 0;
    for (const hz of BEEP_HZ) {
      const p = goertzel(frame, hz);
      if (p > best) { best = p; bestHz = hz; }
    }
    return best / meanSquare >= TONE_SHARE ? bestHz : null;
  }
}
