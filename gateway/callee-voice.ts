import type sip from 'sip';
import type { MediaPlane } from './media/plane.ts';
import { baseLang, GREETING, HELLO, PAUSE_MS, voicemailAudio } from './callee-script.ts';
import type { SpeechSynthesizer } from '../src/engines/speech/synthesizer.ts';
import type { HeardUtterance, SpeechRecognizer } from '../src/engines/speech/recognizer.ts';

// What the simulated callee (callee.ts) says on its calls, and knows it said:
// its hello or voicemail recording when it picks up, the phrases the
// simulator gives it (one at a time, a pause after each, as a person
// speaks), and, since it knows what it said and when, the test-mode
// recognizer of what the gateway hears from it.

/** Closing silence (the plane's hangover) and late packets: how long before an utterance's end plus its voiced length its sounds may have finished. */
const UTTERANCE_SLACK_MS = 2_000;

/** One call the callee answers (callee.ts keeps its SIP; the fields below the state are what it says). */
export type CalleeCall = {
  callId: string;
  invite: sip.Message;
  /** Our To tag, the same in every response of the call. */
  tag: string;
  /** 'ringing' until the final response; 'answered' until ACKed; then 'confirmed' until BYE. */
  state: 'ringing' | 'answered' | 'confirmed' | 'done';
  timers: Set<NodeJS.Timeout>;
  /** The gateway's call id (X-Tolk-Call) and the language to speak (X-Tolk-Lang). */
  key: string | null;
  lang: string;
  /** Its RTP stream on the plane (connected once answered), or null without audio. */
  stream: string | null;
  /** What it said, in order: the text, when its audio started and finished playing (null: not yet), whether a recognition took it. */
  said: Array<{ utterance: string; text: string; startedAt: number | null; finishedAt: number | null; taken: boolean }>;
  /** Utterances queued or playing. */
  speaking: number;
  /** It does not start a new phrase before this (epoch ms): a pause after each, as people leave. */
  quietUntil: number;
};

/** The callee's voice on the media plane: what each call says, by the gateway's key and by its stream. */
export class CalleeVoice {
  /** Calls by the gateway's key, and by their stream on the plane. */
  readonly byKey = new Map<string, CalleeCall>();
  readonly streams = new Map<string, CalleeCall>();

  private readonly media: { plane: MediaPlane; speech: SpeechSynthesizer } | undefined;

  constructor(media: { plane: MediaPlane; speech: SpeechSynthesizer } | undefined) {
    this.media = media;
    media?.plane.on('started', this.onStarted);
    media?.plane.on('finished', this.onFinished);
  }

  /** Stops listening to the plane. */
  detach(): void {
    this.media?.plane.off('started', this.onStarted);
    this.media?.plane.off('finished', this.onFinished);
  }

  private readonly onStarted = (stream: string, utterance: string): void => {
    const u = this.streams.get(stream)?.said.find((x) => x.utterance === utterance);
    if (u) u.startedAt = Date.now();
  };

  private readonly onFinished = (stream: string, utterance: string): void => {
    const call = this.streams.get(stream);
    if (!call) return;
    const u = call.said.find((x) => x.utterance === utterance);
    if (u) u.finishedAt = Date.now();
    call.speaking = Math.max(0, call.speaking - 1);
    call.quietUntil = Date.now() + PAUSE_MS;
  };

  /** Picked up: a person says hello; a voicemail plays its greeting and beep. */
  async greet(call: CalleeCall, voicemail: boolean): Promise<void> {
    if (!call.stream || !this.media || call.state === 'done') return;
    const lang = baseLang(call.lang);
    if (voicemail) await this.play(call, GREETING[lang] ?? GREETING.en!, await voicemailAudio(this.media.speech, call.lang));
    else await this.play(call, HELLO[lang] ?? HELLO.en!, await this.speech(call, HELLO[lang] ?? HELLO.en!));
  }

  /** SimulatedCallee.say (callee.ts). */
  async say(key: string, text: string, lang: string): Promise<boolean> {
    const call = this.byKey.get(key);
    if (!call || !call.stream || !this.media || (call.state !== 'answered' && call.state !== 'confirmed')) return false;
    if (call.speaking > 0 || Date.now() < call.quietUntil) return false;
    if (lang) call.lang = lang;
    await this.play(call, text, await this.speech(call, text));
    return true;
  }

  /** Plays `pcm` on the call's stream as utterance `text`. */
  private async play(call: CalleeCall, text: string, pcm: Int16Array): Promise<void> {
    const utterance = `u${call.said.length}`;
    call.said.push({ utterance, text, startedAt: null, finishedAt: null, taken: false });
    call.speaking++;
    try {
      await this.media!.plane.play(call.stream!, utterance, pcm);
    } catch (err) {
      call.speaking--;
      throw err;
    }
  }

  /** The text in the call's language, as its engine speaks it (the engine's English for a language it lacks). */
  private async speech(call: CalleeCall, text: string): Promise<Int16Array> {
    const sp = this.media!.speech;
    return (await sp.synthesize(text, sp.speaks(call.lang) ? call.lang : 'en')).pcm;
  }

  readonly recognizer: SpeechRecognizer = {
    name: 'simulated callee',
    // It knows its own words, in whatever language it spoke them.
    hears: () => true,
    // The heard utterance covers what the callee started saying before it
    // ended and no earlier utterance was given: those texts, joined. A
    // sound it did not make (nothing it said started by then) has no text.
    // What finished well before the utterance began (its voiced length and
    // closing silence back from its end, with room for late packets) was
    // not in it: a hello the line took for too short to be speech (a loaded
    // machine's detector woke late) is dropped, not joined to the next phrase.
    recognize: async (u: HeardUtterance) => {
      const call = this.byKey.get(u.key);
      const began = u.at - u.audioMs - UTTERANCE_SLACK_MS;
      const open = (call?.said ?? []).filter((x) => !x.taken && x.startedAt !== null && x.startedAt <= u.at);
      for (const x of open) x.taken = true;
      const mine = open.filter((x) => x.finishedAt === null || x.finishedAt >= began);
      return { text: mine.length > 0 ? mine.map((x) => x.text).join(' ') : null };
    },
    async close() {},
  };
}
