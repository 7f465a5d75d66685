import type { Client } from '../db/pool.ts';
import type { Services } from '../services.ts';
import type { Gateway } from '../../gateway/gateway.ts';
import { CALLEE_NAME } from './calls.ts';
import { perKey } from './per-key.ts';
import { HeardPhrase, PhraseUnderWay } from '../engines/speech/heard-phrase.ts';
import type { StreamingRecognizer } from '../engines/speech/streaming.ts';
import { writeOnLine } from './outage.ts';
import type { LineDeps } from './line-deps.ts';

// What is heard on a call's line (call-line.ts owns one): the far end's
// utterances, read by the recognizer in order (it keeps its place), its DTMF
// digits, and when it starts and stops talking, published in the call's log
// in the order heard. Once answered, with an engine that hears as the audio
// comes (Deepgram live, vosk-server, OpenAI realtime), an utterance is heard
// while it is said: its audio goes to the engine's stream as the media plane
// sends it (every 100 ms), whose partials enter the log as segment.partial (at
// most one every 250 ms) and whose finals are the phrase (heard-phrase.ts);
// with any other (PocketSphinx) it is read whole at its end.

/** What is heard on a line, as the call's log keeps it (services.ts Reactions heardOnCall). */
type Heard = Parameters<Services['reactions']['heardOnCall']>[2];

/** Who reads what the far end says. */
export type LineRecognizer = Gateway['recognizer'] & { open?: StreamingRecognizer['open']; streamsAsSpoken?: (lang: string) => boolean };

/** What the hearing reads of its line. */
export type HearingLine = {
  readonly id: string;
  /** Through a trunk: a real person, heard by the service's recognizers. */
  readonly live: boolean;
  /** A call into a room: the room's line hears it, not this one. */
  readonly intoRoom: boolean;
  /** The callee's language once a person answered; null before (and after the end). */
  readonly answeredIn: string | null;
  readonly disposed: boolean;
  /** Queues a task in the call's chain of events. */
  run(task: () => Promise<void>, what: string): void;
  /** A signal of the call's log written in that chain (outage.ts). */
  write(what: string, w: (tx: Client) => Promise<void>): void;
};

/** How long a call's next events (its hangup) wait for the recognition of a phrase heard before them. */
const HEARD_IN_ORDER_MS = 5_000;

export class LineHearing {
  /** The far end's utterance under way, heard by a recognizer stream (once answered). */
  private readonly phrase = new PhraseUnderWay();
  private readonly heard: ReturnType<typeof perKey>;
  private readonly line: HearingLine;
  private readonly d: LineDeps;

  constructor(line: HearingLine, d: LineDeps) {
    this.line = line;
    this.d = d;
    this.heard = perKey((err, callId) => d.log.warn({ err: String(err), callId }, 'what was heard on the line was not published'));
  }

  /** Who reads what the far end says: a real person's, the service's recognizers; the built-in callee's, its own. */
  get recognizer(): LineRecognizer {
    const { s, gw } = this.d;
    return this.line.live && s.recognizer ? s.recognizer : gw.recognizer;
  }

  /** The callee started or stopped talking (the media plane's onset and offset): speech.started or speech.stopped, once answered. */
  speech(kind: 'started' | 'stopped'): void {
    if (this.line.answeredIn === null || this.line.intoRoom) return;
    const { s } = this.d;
    this.line.write(`speech.${kind}`, (tx) => s.reactions.speechActivity(s, tx, { logId: this.line.id, speaker: CALLEE_NAME, participantId: 'callee', kind }));
  }

  /**
   * The far end's utterance under way, as the media plane sends it (`start`: its first part). Once
   * answered, it goes to a recognizer stream of its own, whose partials are published as it goes.
   */
  listen(pcm: Int16Array, start: boolean): void {
    if (this.line.intoRoom) return;
    if (start) this.phrase.begin(() => this.openPhrase());
    this.phrase.write(pcm);
  }

  /** The stream of an utterance that starts, once answered; null where the recognizer does not hear as the audio comes. */
  private openPhrase(): HeardPhrase | null {
    const { id, answeredIn: lang } = this.line;
    if (lang === null || this.line.disposed) return null;
    // Only an engine that hears as the audio comes (Deepgram live, vosk-server, OpenAI realtime): PocketSphinx's
    // stream reads the growing audio again for its partials, three times the decoding, on the decoders every call
    // shares, and its final waits behind a partial's read (a loaded 2-core machine missed its calls' time).
    const recognizer = this.recognizer;
    if (!recognizer.streamsAsSpoken?.(lang)) return null;
    const { s } = this.d;
    // A recognizer that does not stream reads the utterance whole at its end (hear()).
    return new HeardPhrase(recognizer, { lang, rate: 8000, key: id }, {
      onPartial: (text, segmentId) => {
        if (this.line.answeredIn === null) return;
        const p = { logId: id, speaker: CALLEE_NAME, participantId: 'callee', srcLang: lang, segmentId, text };
        this.line.write('segment.partial', (tx) => s.reactions.partialHeard(s, tx, p));
      },
      // Settled by the engine's endpointing before the plane's silence ended the utterance: published now, in order.
      onFinal: (f) => this.publishHeard(async () => ({ callId: id, kind: 'person', speaker: CALLEE_NAME, lang, text: f.text, audioMs: f.audioMs, segmentId: f.segmentId })),
    });
  }

  /** The utterance under way was too short to be one (a click, a cough), or the call ended: its stream stops. */
  unheard(): void {
    this.phrase.abandon();
  }

  /** What the far end said (an utterance of the media plane): recognized, then published as the callee's phrase. */
  hear(u: { pcm: Int16Array; audioMs: number; at: number }): void {
    if (this.line.intoRoom) return;
    const { id } = this.line;
    const recognizer = this.recognizer;
    // Heard as it was said: its stream settles it now (its last words), whatever waits before it.
    const phrase = this.phrase.take();
    const streamed = phrase?.finish() ?? null;
    this.publishHeard(async (lang) => {
      // Recognized even when it will not be published: the recognizer keeps its place in the conversation.
      const text = streamed ? (await streamed) || null : (await recognizer.recognize({ key: id, pcm: u.pcm, audioMs: u.audioMs, lang, at: u.at })).text;
      // What its early finals (the engine's endpointing) already published is not said again.
      if (text === null && phrase?.early) return null;
      const audioMs = Math.max(0, u.audioMs - (phrase?.earlyMs ?? 0));
      return { callId: id, kind: 'person', speaker: CALLEE_NAME, lang, text, audioMs, ...(phrase ? { segmentId: phrase.id } : {}) };
    });
  }

  /** A DTMF digit from the far end: an event of the call's log of its own. */
  digit(digit: string, durationMs: number): void {
    if (this.line.intoRoom) return;
    this.publishHeard(async (lang) => ({ callId: this.line.id, kind: 'dtmf', speaker: CALLEE_NAME, lang, text: digit, audioMs: durationMs }));
  }

  /** What is still being recognized or published (to wait for at stop). */
  pending(): Array<Promise<void>> {
    return this.heard.pending();
  }

  private publish(seg: Heard): Promise<unknown> {
    const { s } = this.d;
    return writeOnLine(this.d, this.line.id, `heard ${seg.kind}`, (tx) => s.reactions.heardOnCall(s, tx, seg));
  }

  /**
   * Recognized one after another (the recognizer keeps its place in the conversation), even when
   * not published: heard before the answer (the greeting answering-machine detection listens to),
   * it is not part of the conversation. Published in the call's chain of events, at the place it
   * was heard (after the answer, before the hangup SIP reported around it), and, while the
   * database is away, once it is back.
   */
  private publishHeard(what: (lang: string) => Promise<Heard | null>): void {
    const { id, answeredIn: lang } = this.line;
    let made!: (seg: Heard | null) => void;
    const recognized = new Promise<Heard | null>((ok) => { made = ok; });
    this.heard.run(id, async () => {
      try {
        made(await what(lang ?? 'en'));
      } catch (err) {
        made(null);
        throw err;
      }
    });
    if (lang === null) return;
    this.line.run(async () => {
      // The call's events behind this phrase (its hangup) wait for its recognition, up to
      // HEARD_IN_ORDER_MS; a slower one is published when it is ready, if the call still goes on.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((ok) => { timer = setTimeout(ok, HEARD_IN_ORDER_MS, 'late'); });
      const seg = await Promise.race([recognized, late]).finally(() => clearTimeout(timer));
      if (seg === 'late') {
        this.heard.run(id, async () => {
          const r = await recognized;
          if (r && this.line.answeredIn !== null) await this.publish(r);
        });
        return;
      }
      if (!seg || this.line.answeredIn === null) return;
      await this.publish(seg);
    }, 'heard');
  }
}
