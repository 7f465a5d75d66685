import type { RawData } from 'ws';
import { ApiError } from '../errors.ts';
import type { Services } from '../services.ts';
import { Hearing } from '../../gateway/media/hearing.ts';
import { sayAloudAsPerson, type ParticipantRow } from './participants.ts';
import { audioBudgetOf, type AudioBudget } from './audio-budget.ts';
import { fairQueueOf } from '../engines/speech/fair-queue.ts';
import { withTx, type Client } from '../db/pool.ts';
import { HeardPhrase } from '../engines/speech/heard-phrase.ts';

// A person speaking in a room (GET /r/{id}/audio, a WebSocket opened by the
// room page's microphone button). The page sends its microphone as 16 kHz
// 16-bit mono PCM, little-endian, in binary messages of up to one second:
// 16 kHz because it is what recognizers read best (speech carries little
// above 8 kHz, and 8 kHz phone audio loses consonants), and raw PCM rather
// than Opus because every recognizer takes it as is, the page makes it with
// Web Audio alone, and no decoder has to run on the server (32 kB/s, only
// while the microphone is on). Here:
//   - voice activity cuts it into phrases (gateway/media/hearing.ts, as on a
//     call's line, at 20 ms frames of 320 samples);
//   - each phrase is read by the first recognizer of TOLK_RECOGNIZE that
//     hears the person's "I speak" language, and enters the room's log as a
//     typed phrase does (participants.ts sayAloudAsPerson): every page, agent
//     session and transcript gets it;
//   - everyone in the room hears it as it is said: its onset and offset enter
//     the log as speech.started and speech.stopped, and while the phrase goes
//     on its audio feeds a recognizer stream (Services.recognizer open(): an
//     engine that only reads whole utterances is read at the phrase's end),
//     whose partials enter the log as segment.partial (at most one every
//     PARTIAL_EVERY_MS, and only a changed text) and go to the speaker's page;
//     the final carries the partials' segment id;
//   - the audio is kept only until it is read, never stored.
// Client messages: binary PCM; text `{"type":"end"}` ends the phrase under
// way (push-to-talk released). Server messages (text JSON): `ready`,
// `partial` and `final` (with the phrase's segment_id), `error` (then the
// socket closes). The stream is settled in the person's turn of the
// recognizer's fair queue (fair-queue.ts), as a whole phrase was read.
//
// Limits: a message must be whole samples and at most MAX_MESSAGE_BYTES
// (one second); a person may send PublicLimits.audioSecondsPerParticipantMinute
// seconds of audio per minute, counted per person across their sockets and the
// service's processes (audio-budget.ts); anything else (text that is not a known
// message, a partial sample) closes the socket with 1003 or 1008. A socket is
// opened only by a participant of the room (its id and secret, checked
// before the upgrade, page.ts).

export const AUDIO_RATE = 16_000;
/** One second of audio. */
export const MAX_MESSAGE_BYTES = AUDIO_RATE * 2;
const FRAME_SAMPLES = AUDIO_RATE / 50;
const FRAME_BYTES = FRAME_SAMPLES * 2;

/** Close codes: RFC 6455's, and ours in the 4000s. */
export const CLOSE = { done: 1000, goingAway: 1001, unsupported: 1003, policy: 1008, tooBig: 1009, replaced: 4001, noRecognizer: 4003, idle: 4008, left: 4009, limited: 4029 } as const;

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void };

/**
 * Where a person's audio comes from and their captions go: the page's WebSocket, or their voice
 * forwarded by the media server (media/voice-link.ts), which speaks the same messages.
 */
export type MicSocket = {
  readonly readyState: number;
  readonly OPEN: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  on(event: 'message', fn: (data: RawData, isBinary: boolean) => void): unknown;
  on(event: 'close' | 'error', fn: () => void): unknown;
};

/** What one open socket costs in memory is this object, its Hearing (at most 30 s of a phrase) and its remainder. */
export class AudioSocket {
  private readonly hearing = new Hearing({ voiceRms: 300, maxMs: 30_000, onSpeech: (kind) => this.onSpeech(kind) });
  private remainder: Buffer = Buffer.alloc(0);
  /** The person's audio budget, shared by their sockets on every process; messages wait in `held` until it is read. */
  private readonly budget: AudioBudget;
  private held: Array<[RawData, boolean]> | null = [];
  /** Phrases are read and published one after another, in the order they were said. */
  private chain: Promise<void> = Promise.resolve();
  /** The phrase under way, heard by its recognizer stream. */
  private phrase: HeardPhrase | null = null;
  /** Speech activity and partials enter the log one after another, as they happened, and before the phrase's final. */
  private signals: Promise<void> = Promise.resolve();
  /** speech.started was published and speech.stopped not yet. */
  private talking = false;
  private closed = false;
  private ended = false;
  /** What it was saying is not to be recognized nor published (its person left, or it went quiet: drop()). */
  private dropped = false;
  readonly opened = Date.now();

  private readonly s: Services;
  private readonly ws: MicSocket;
  private readonly roomId: string;
  private readonly p: ParticipantRow;
  private readonly log: Log;

  constructor(s: Services, ws: MicSocket, roomId: string, p: ParticipantRow, log: Log) {
    this.s = s;
    this.ws = ws;
    this.roomId = roomId;
    this.p = p;
    this.log = log;
    this.budget = audioBudgetOf(s.pool, () => s.config.publicLimits.audioSecondsPerParticipantMinute);
    void this.budget.open(p.id).then(() => {
      const held = this.held ?? [];
      this.held = null;
      for (const [data, isBinary] of held) this.onMessage(data, isBinary);
    });
    ws.on('message', (data, isBinary) => {
      if (this.held) {
        // At most a few seconds' messages wait for the budget to be read (a few milliseconds); more close the socket.
        if (this.held.length >= 8) return this.fail(CLOSE.policy, 'rate_limited', 'audio sent faster than it can be counted');
        this.held.push([data, isBinary]);
      } else this.onMessage(data, isBinary);
    });
    ws.on('close', () => this.onClose());
    ws.on('error', () => this.onClose());
    const recognizer = s.recognizer;
    if (!recognizer?.hears(p.speak_lang)) {
      this.fail(CLOSE.noRecognizer, 'no_recognizer', `No speech recognizer on this service hears ${p.speak_lang}: type what you want to say instead`);
      return;
    }
    this.send({ type: 'ready', sample_rate: AUDIO_RATE, max_message_bytes: MAX_MESSAGE_BYTES, lang: p.speak_lang, recognizer: recognizer.engineFor(p.speak_lang) });
  }

  /** Closes the socket from our side; the phrase under way is still read and published. */
  close(code: number, reason: string): void {
    if (this.closed) return;
    this.onClose();
    this.ws.close(code, reason);
  }

  /** Closes the socket and drops what it was saying, under way or waiting to be read (mic-watch.ts: its person left the room). */
  drop(code: number, error: string, message: string): void {
    if (this.closed) return;
    this.dropped = true;
    this.abandon();
    this.fail(code, error, message);
  }

  /** Whatever is under way is finished (published if it is a phrase). */
  settled(): Promise<void> {
    return this.chain;
  }

  private send(m: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(m));
  }

  private fail(code: number, error: string, message: string): void {
    this.send({ type: 'error', code: error, message });
    this.closed = true;
    this.ws.close(code, message.slice(0, 120));
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    if (!isBinary) return this.onControl(buf.toString('utf8'));
    if (buf.length === 0) return;
    if (buf.length % 2 !== 0) return this.fail(CLOSE.unsupported, 'bad_audio', 'audio must be 16-bit PCM: whole samples of 2 bytes');
    if (buf.length > MAX_MESSAGE_BYTES) return this.fail(CLOSE.tooBig, 'bad_audio', `audio messages are at most ${MAX_MESSAGE_BYTES} bytes (one second)`);
    if (!this.count(buf.length / 2 / AUDIO_RATE)) {
      return this.fail(CLOSE.limited, 'rate_limited', `at most ${this.s.config.publicLimits.audioSecondsPerParticipantMinute} seconds of audio a minute`);
    }
    this.remainder = this.remainder.length > 0 ? Buffer.concat([this.remainder, buf]) : buf;
    let at = 0;
    for (; at + FRAME_BYTES <= this.remainder.length; at += FRAME_BYTES) {
      const frame = new Int16Array(FRAME_SAMPLES);
      for (let i = 0; i < FRAME_SAMPLES; i++) frame[i] = this.remainder.readInt16LE(at + i * 2);
      const u = this.hearing.push(frame);
      if (u) {
        this.phrase?.write(frame);
        this.finish(u.pcm, u.audioMs);
      } else if (this.hearing.speaking) {
        if (this.phrase) this.phrase.write(frame);
        else this.begin();
      } else if (this.phrase) {
        // Voice too short to be a phrase (a click, a cough): nothing to read.
        this.abandon();
      }
    }
    this.remainder = Buffer.from(this.remainder.subarray(at));
  }

  /** Adds seconds of audio to the person's last minute (audio-budget.ts); false when that passes the limit. */
  private count(seconds: number): boolean {
    return this.budget.charge(this.p.id, seconds);
  }

  private onControl(text: string): void {
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      m = null;
    }
    const type = m && typeof m === 'object' ? (m as { type?: unknown }).type : undefined;
    if (type === 'end') {
      const u = this.hearing.flush();
      if (u) this.finish(u.pcm, u.audioMs);
      return;
    }
    if (type === 'ping') return this.send({ type: 'pong' });
    this.fail(CLOSE.unsupported, 'bad_message', 'text messages are {"type":"end"} or {"type":"ping"}; audio goes in binary messages');
  }

  /** Speech started or stopped (Hearing): every session and page of the room is told, in the order it happened. */
  private onSpeech(kind: 'onset' | 'offset'): void {
    if (kind === 'onset' === this.talking) return;
    this.talking = kind === 'onset';
    const p = { logId: this.roomId, speaker: this.p.name, participantId: this.p.id, kind: kind === 'onset' ? 'started' as const : 'stopped' as const };
    this.signal((tx) => this.s.reactions.speechActivity(this.s, tx, p));
  }

  private signal(write: (tx: Client) => Promise<void>): void {
    this.signals = this.signals
      .then(() => withTx(this.s.pool, write))
      .catch((err) => this.log.warn({ err: String(err), participant: this.p.id }, 'a speech signal was not published'));
  }

  /** A phrase starts: its audio so far (the preroll and its first voiced frame) goes to a recognizer stream of its own (heard-phrase.ts). */
  private begin(): void {
    const phrase = new HeardPhrase(this.s.recognizer!, { lang: this.p.speak_lang, rate: AUDIO_RATE, key: this.p.id }, {
      onPartial: (text, segmentId) => {
        // What the phrase says so far, to the speaker's page and the room's log.
        this.send({ type: 'partial', text, segment_id: segmentId });
        const p = { logId: this.roomId, speaker: this.p.name, participantId: this.p.id, srcLang: this.p.speak_lang, segmentId, text };
        this.signal((tx) => this.s.reactions.partialHeard(this.s, tx, p));
      },
      // Settled by the engine's endpointing before our silence ended the phrase: published now, in order.
      onFinal: (f) => {
        this.chain = this.chain.then(async () => {
          if (!this.dropped) await this.publish(f.text, f.audioMs, 0, f.segmentId);
        }).catch((err) => this.log.warn({ err: String(err), participant: this.p.id }, 'a phrase said aloud was not published'));
      },
    });
    const pcm = this.hearing.current();
    if (pcm) phrase.write(pcm);
    this.phrase = phrase;
  }

  /** The phrase under way ends with no final (too short, dropped, the socket closed on a fault): its stream stops. */
  private abandon(): void {
    this.phrase?.abandon();
    this.phrase = null;
  }

  /** A phrase ended: read it, publish it, tell the speaker. */
  private finish(pcm: Int16Array, audioMs: number): void {
    const endedAt = Date.now();
    const phrase = this.phrase;
    this.phrase = null;
    // No more partials of it; its stream is settled in the person's turn below.
    phrase?.hush();
    this.chain = this.chain.then(async () => {
      if (this.dropped) return phrase?.abandon();
      const started = Date.now();
      // One phrase per person with the recognizer at a time, whatever sockets they opened (fair-queue.ts): its
      // stream is settled in the person's turn, or the phrase read whole where there is no stream.
      const recognizer = this.s.recognizer!;
      const text = await fairQueueOf(recognizer).run(this.p.id, async () => {
        const heard = phrase?.finish();
        if (heard) return heard;
        return (await recognizer.recognize({ key: this.p.id, pcm, rate: AUDIO_RATE, audioMs, lang: this.p.speak_lang, at: endedAt })).text;
      })!;
      const recognizeMs = Date.now() - started;
      // Dropped while the recognizer read it (its person left): not published.
      if (this.dropped) return;
      // What its early finals (the engine's endpointing) did not already publish.
      const rest = Math.max(0, audioMs - (phrase?.earlyMs ?? 0));
      if (!text || !text.trim()) {
        if (phrase?.early) return;
        this.send({ type: 'final', seq: null, text: null, audio_ms: audioMs, recognize_ms: recognizeMs, reason: 'no words were recognized', ...(phrase ? { segment_id: phrase.id } : {}) });
        return;
      }
      await this.publish(text, rest, recognizeMs, phrase?.id);
    }).catch((err) => {
      this.log.warn({ err: String(err), participant: this.p.id }, 'a phrase said aloud was not published');
      this.send({ type: 'final', seq: null, text: null, audio_ms: audioMs, reason: 'the phrase could not be published' });
    });
  }

  /** A phrase (or an engine-settled part of one) to the room, after its partials, and its final to the speaker. */
  private async publish(text: string, audioMs: number, recognizeMs: number, segmentId: string | undefined): Promise<void> {
    // Its partials (and the speech activity before it) are in the log first: the final replaces them.
    await this.signals;
    try {
      const { seq } = await sayAloudAsPerson(this.s, this.roomId, this.p.id, text, audioMs, segmentId);
      this.send({ type: 'final', seq, text, audio_ms: audioMs, recognize_ms: recognizeMs, ...(segmentId ? { segment_id: segmentId } : {}) });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'conflict') return this.fail(CLOSE.left, 'conflict', err.message.replace(/^\w+: /, ''));
      if (err instanceof ApiError && err.code === 'rate_limited') return this.send({ type: 'error', code: 'rate_limited', message: err.message });
      throw err;
    }
  }

  private onClose(): void {
    if (this.ended) return;
    this.ended = true;
    this.budget?.close(this.p.id);
    this.held = null;
    // The phrase under way when the page went (the tab closed, the person left): read and published if they are
    // still in the room. A socket we closed for a fault drops it.
    if (!this.closed) {
      this.closed = true;
      const u = this.hearing.flush();
      if (u) this.finish(u.pcm, u.audioMs);
    }
    this.abandon();
    this.remainder = Buffer.alloc(0);
  }
}
