// What the far end says, cut into utterances by voice activity: a phrase
// starts at the first voiced 20 ms frame (with a little audio before it, so
// the first sound is not clipped) and ends once silence has lasted
// `hangoverMs` (the pauses between a sentence's words and clauses are
// shorter). Each finished utterance is handed to a speech recognizer with the
// milliseconds of audio it spans. Fed one frame per tick, silence included:
// a peer that suppresses silence sends nothing, and that is silence too.
// Which frames are voiced is the VoiceDetector's call (vad.ts): Silero's
// neural model by default, the energy threshold where it cannot load.
// Besides utterances, `onSpeech` tells when someone starts talking (onset,
// once the voice has lasted minVoiceMs, so a click or a cough never counts)
// and when they stopped (offset, once the closing silence has lasted
// hangoverMs): what speech events and barge-in are made of.

import { voiceDetector, type VoiceDetector } from './vad.ts';
import { isMainThread } from 'node:worker_threads';
import { ThreadedDetector } from './vad-thread.ts';

export type SpeechChange = 'onset' | 'offset';

export type HearingOptions = {
  /** RMS above which a frame holds voice, for the energy detector (the fallback when Silero cannot load). */
  voiceRms: number;
  /** Silence that ends an utterance. */
  hangoverMs: number;
  /** Audio kept before the first voiced frame. */
  prerollMs: number;
  /** Voice shorter than this is a click or a cough, not an utterance. */
  minVoiceMs: number;
  /** An utterance longer than this is cut here (and the rest is a new one). */
  maxMs: number;
  /**
   * What decides whether a frame is voiced; default Silero in this thread on the main thread (the
   * energy rule at voiceRms if it cannot load), in the voice process on any other. 'thread': Silero in a voice process of its own (vad-thread.ts), a frame late,
   * for a thread that must keep time (the media plane's).
   */
  detector?: VoiceDetector | 'thread';
  /**
   * Speech started (onset: `ms` is the voiced audio heard so far) or stopped
   * (offset: `ms` is the audio the speech spanned, from its first voiced frame
   * to its last). An utterance cut at maxMs while the voice goes on is neither.
   */
  onSpeech?: (kind: SpeechChange, ms: number) => void;
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
  private readonly detector: VoiceDetector;
  /** An onset was reported and its offset not yet. */
  private talking = false;
  /** Milliseconds from the talk's first voiced frame to its last, across maxMs cuts. */
  private talkMs = 0;
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
    // Off the main thread, Silero runs in the voice process unless told otherwise: its runtime aborts
    // the process when a worker thread is terminated in the middle of a call into it (vad-thread.ts).
    const threaded = o.detector === 'thread' || (o.detector === undefined && !isMainThread);
    this.detector = threaded ? new ThreadedDetector() : o.detector && o.detector !== 'thread' ? o.detector : voiceDetector({ energyRms: this.o.voiceRms });
  }

  /** 'silero' or 'energy': which detector this hears with. */
  get detectorKind(): VoiceDetector['kind'] {
    return this.detector.kind;
  }

  /** One 20 ms frame (160 samples; null: nothing arrived, silence); the utterance it ended, if any. */
  push(frame: Int16Array | null): Utterance | null {
    // A frame that never came is silence (one shared, never written: frames are only read and copied out).
    const f = frame ?? SILENCE;
    const voiced = this.detector.push(frame).speech;
    if (!this.inVoice) {
      if (!voiced) {
        // After an utterance cut at maxMs, the talk ends once its silence is as long as a hangover.
        if (this.talking) {
          this.silenceMs += 20;
          if (this.silenceMs >= this.o.hangoverMs) this.change('offset', this.talkMs);
        }
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
      if (!this.talking && this.voicedMs >= this.o.minVoiceMs) {
        this.talkMs = 0;
        this.change('onset', this.voicedMs);
      }
    } else {
      this.silenceMs += 20;
    }
    const tooLong = (this.frames.length - this.prerollFrames) * 20 >= this.o.maxMs;
    if (this.silenceMs < this.o.hangoverMs && !tooLong) return null;
    return this.end(!tooLong);
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
    // What comes next is a new stretch of audio (and Silero's model goes back to its thread's idle ones).
    this.detector.reset();
    if (!this.inVoice) {
      this.preroll.length = 0;
      if (this.talking) this.change('offset', this.talkMs);
      return null;
    }
    return this.end(true);
  }

  /** The utterance under way ends; `stopped`: because the voice did (not a cut at maxMs). */
  private end(stopped: boolean): Utterance | null {
    this.inVoice = false;
    const kept = this.frames.slice(0, this.upToVoice);
    const voicedMs = this.voicedMs;
    const audioMs = (this.upToVoice - this.prerollFrames) * 20;
    if (this.talking) {
      this.talkMs += audioMs;
      if (stopped) this.change('offset', this.talkMs);
    }
    this.frames = [];
    this.upToVoice = 0;
    if (voicedMs < this.o.minVoiceMs) return null;
    return { pcm: concat(kept), audioMs, voicedMs };
  }

  private change(kind: SpeechChange, ms: number): void {
    this.talking = kind === 'onset';
    this.o.onSpeech?.(kind, ms);
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
