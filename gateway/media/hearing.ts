// What the far end says, cut into utterances by voice activity: a phrase
// starts at the first voiced 20 ms frame (with a little audio before it, so
// the first sound is not clipped) and ends once silence has lasted
// `hangoverMs` (the pauses between a sentence's words and clauses are
// shorter). Each finished utterance is handed to a speech recognizer with the
// milliseconds of audio it spans. Fed one frame per tick, silence included:
// a peer that suppresses silence sends nothing, and that is silence too.

export type HearingOptions = {
  /** RMS above which a frame holds voice (as answering-machine detection uses). */
  voiceRms: number;
  /** Silence that ends an utterance. */
  hangoverMs: number;
  /** Audio kept before the first voiced frame. */
  prerollMs: number;
  /** Voice shorter than this is a click or a cough, not an utterance. */
  minVoiceMs: number;
  /** An utterance longer than this is cut here (and the rest is a new one). */
  maxMs: number;
};

export const HEARING_DEFAULTS: HearingOptions = { voiceRms: 400, hangoverMs: 700, prerollMs: 200, minVoiceMs: 120, maxMs: 30_000 };

export type Utterance = {
  /** 16-bit PCM at the frames' rate (a line's 8 kHz), from the preroll to the last voiced frame. */
  pcm: Int16Array;
  /** Milliseconds from the first voiced frame to the end of the last one. */
  audioMs: number;
  /** Voiced milliseconds in it. */
  voicedMs: number;
};

const FRAME = 160;
const SILENCE = new Int16Array(FRAME);

export class Hearing {
  private readonly o: HearingOptions;
  private readonly preroll: Int16Array[] = [];
  private frames: Int16Array[] = [];
  /** Frames of `frames` up to the last voiced one. */
  private upToVoice = 0;
  private voicedMs = 0;
  private silenceMs = 0;
  private prerollFrames = 0;
  private inVoice = false;

  constructor(o: Partial<HearingOptions> = {}) {
    this.o = { ...HEARING_DEFAULTS, ...o };
  }

  /** One 20 ms frame (160 samples; null: nothing arrived, silence); the utterance it ended, if any. */
  push(frame: Int16Array | null): Utterance | null {
    // A frame that never came is silence (one shared, never written: frames are only read and copied out).
    const f = frame ?? SILENCE;
    let voiced = false;
    if (frame) {
      let sum = 0;
      for (let i = 0; i < f.length; i++) sum += f[i]! * f[i]!;
      voiced = f.length > 0 && Math.sqrt(sum / f.length) > this.o.voiceRms;
    }
    if (!this.inVoice) {
      if (!voiced) {
        this.preroll.push(f);
        if (this.preroll.length > this.o.prerollMs / 20) this.preroll.shift();
        return null;
      }
      this.inVoice = true;
      this.prerollFrames = this.preroll.length;
      this.frames = this.preroll.splice(0);
      this.voicedMs = 0;
      this.silenceMs = 0;
    }
    this.frames.push(f);
    if (voiced) {
      this.voicedMs += 20;
      this.silenceMs = 0;
      this.upToVoice = this.frames.length;
    } else {
      this.silenceMs += 20;
    }
    const tooLong = (this.frames.length - this.prerollFrames) * 20 >= this.o.maxMs;
    if (this.silenceMs < this.o.hangoverMs && !tooLong) return null;
    return this.end();
  }

  /** Whether an utterance is under way (voice heard, its closing silence not yet long enough). */
  get speaking(): boolean {
    return this.inVoice;
  }

  /** The utterance so far (from the preroll to the last voiced frame), while one is under way: what a partial result reads. */
  current(): Int16Array | null {
    return this.inVoice ? concat(this.frames.slice(0, this.upToVoice)) : null;
  }

  /** Ends the utterance under way now (the speaker let go of push-to-talk, or left): it, if long enough to be one. */
  flush(): Utterance | null {
    if (!this.inVoice) {
      this.preroll.length = 0;
      return null;
    }
    return this.end();
  }

  private end(): Utterance | null {
    this.inVoice = false;
    const kept = this.frames.slice(0, this.upToVoice);
    const voicedMs = this.voicedMs;
    const audioMs = (this.upToVoice - this.prerollFrames) * 20;
    this.frames = [];
    this.upToVoice = 0;
    if (voicedMs < this.o.minVoiceMs) return null;
    return { pcm: concat(kept), audioMs, voicedMs };
  }
}

/** Frames one after another (a line's are 160 samples, a microphone's at 16 kHz 320). */
function concat(frames: Int16Array[]): Int16Array {
  let n = 0;
  for (const f of frames) n += f.length;
  const pcm = new Int16Array(n);
  let at = 0;
  for (const f of frames) {
    pcm.set(f, at);
    at += f.length;
  }
  return pcm;
}
