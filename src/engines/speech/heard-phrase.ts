import { randomBytes } from 'node:crypto';
import type { RecognitionStream, StreamOptions, StreamingRecognizer } from './streaming.ts';

// One phrase of one speaker while they say it (a person on the room page, a
// callee on a line): its audio goes to a recognizer stream of its own as it
// comes, what the stream has heard so far is told as partials (at most one
// every `everyMs`, only when it changed, never after the phrase ended), and at
// its end the stream's finals, joined, are its text. The id is the one its
// partials carry and its final will: `seg_…` (the session events'
// meta.segment_id). A recognizer with no streams (a custom one) gives no
// stream: the caller reads the phrase whole at its end, as before.
//
// Endpointing: a streaming engine settles a phrase (a final) once its own
// endpointing heard the speaker stop (Deepgram's speech_final after 300 ms
// of silence, vosk-server's result, OpenAI's committed turn), which is
// sooner than our voice activity's end (700 ms of silence). A final that
// comes while the phrase is still under way is given at once to `onFinal`
// (the caller publishes it): the listeners do not wait for our hangover.
// What the speaker says after it, before our end, is a new segment (a new
// id); what the stream settles at the end is the rest (finish()).

/** The least time between two partials of a speaker by default (every page and session reads each one). */
export const PARTIAL_EVERY_MS = 250;

const segmentId = () => `seg_${randomBytes(9).toString('base64url')}`;

export type PhraseHooks = {
  /** The phrase so far (the segment's partials, at most one every `everyMs`, only when it changed). */
  onPartial: (text: string, segmentId: string) => void;
  /** A segment the engine settled while the speaker's phrase is still under way (its endpointing), with the audio it spans. */
  onFinal?: (f: { text: string; segmentId: string; audioMs: number }) => void;
  everyMs?: number;
};

export class HeardPhrase {
  /** The segment under way: its partials' id, and its final's. */
  id = segmentId();
  /** Segments already given to onFinal, and the audio they spanned. */
  early = 0;
  earlyMs = 0;
  /** Null: the recognizer does not stream; the phrase is read whole at its end. */
  readonly stream: RecognitionStream | null;
  private readonly stop = new AbortController();
  private readonly finals: string[] = [];
  private partialText = '';
  private sent = '';
  private sentAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private done = false;
  /** The stream's finals joined, once its results end ('' when stopped before any). */
  private readonly text: Promise<string>;
  private readonly hooks: PhraseHooks;
  private readonly everyMs: number;
  private readonly rate: number;
  /** Samples written since the last early final. */
  private samples = 0;

  constructor(recognizer: { open?: StreamingRecognizer['open'] }, o: Omit<StreamOptions, 'signal'>, hooks: PhraseHooks) {
    this.hooks = hooks;
    this.everyMs = hooks.everyMs ?? PARTIAL_EVERY_MS;
    this.rate = o.rate;
    this.stream = typeof recognizer.open === 'function' ? recognizer.open({ ...o, signal: this.stop.signal }) : null;
    const stream = this.stream;
    this.text = stream ? this.read(stream) : Promise.resolve('');
  }

  /** The stream's results as they come: partials, early finals, and the rest settled at its end (joined). */
  private async read(stream: RecognitionStream): Promise<string> {
    try {
      for await (const h of stream) {
        if (h.kind === 'final') {
          this.partialText = '';
          const text = [...this.finals, h.text.trim()].join(' ').trim();
          if (!this.done && this.hooks.onFinal && text) {
            // Settled by the engine while the speaker's phrase goes on: published now, the rest is a new segment.
            this.finals.length = 0;
            const audioMs = Math.round((this.samples * 1000) / this.rate);
            const id = this.id;
            this.id = segmentId();
            this.early++;
            this.earlyMs += audioMs;
            this.samples = 0;
            this.sent = '';
            if (this.timer) clearTimeout(this.timer);
            this.timer = null;
            this.hooks.onFinal({ text, segmentId: id, audioMs });
            continue;
          }
          if (h.text.trim()) this.finals.push(h.text.trim());
        } else this.partialText = h.text.trim();
        this.partial();
      }
    } catch {
      // Stopped (the phrase was dropped) or failed: what was settled is all there is.
    }
    return this.finals.join(' ');
  }

  /** More of the phrase's audio (ignored once it ended). */
  write(pcm: Int16Array): void {
    if (this.done || !this.stream) return;
    this.samples += pcm.length;
    this.stream.write(pcm);
  }

  /** The phrase ended: no more partials (its stream may be settled later, in its speaker's turn: finish()). */
  hush(): void {
    this.done = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The phrase ended: no more partials; the stream settles it; its text since the last early final (null: no stream, read it whole). */
  finish(): Promise<string> | null {
    this.hush();
    if (!this.stream) return null;
    this.stream.end();
    return this.text;
  }

  /** The phrase ends with no final (too short, dropped): its stream stops at once. */
  abandon(): void {
    this.hush();
    this.stop.abort();
  }

  private partial(): void {
    if (this.done || this.timer) return;
    const text = [...this.finals, this.partialText].join(' ').trim();
    if (!text || text === this.sent) return;
    const wait = this.sentAt + this.everyMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => { this.timer = null; this.partial(); }, wait);
      this.timer.unref();
      return;
    }
    this.sent = text;
    this.sentAt = Date.now();
    this.hooks.onPartial(text, this.id);
  }
}

/**
 * The utterance under way on a phone line (calls/line-hearing.ts, rooms/phone/phone-line.ts): its
 * phrase, whose recognizer stream hears it as it is said, from its first part to its end.
 */
export class PhraseUnderWay {
  private phrase: HeardPhrase | null = null;

  /**
   * An utterance starts: the one before, if any, is abandoned. `open` makes its phrase, or null for
   * none; one whose recognizer does not stream is not kept (it is read whole at its end).
   */
  begin(open: () => HeardPhrase | null): void {
    this.abandon();
    const p = open();
    this.phrase = p?.stream ? p : null;
  }

  write(pcm: Int16Array): void {
    this.phrase?.write(pcm);
  }

  /** Too short to be one, or not to be heard: its stream stops. */
  abandon(): void {
    this.phrase?.abandon();
    this.phrase = null;
  }

  /** The utterance ended: its phrase (null when none streamed it), no longer under way. */
  take(): HeardPhrase | null {
    const p = this.phrase;
    this.phrase = null;
    return p;
  }
}
