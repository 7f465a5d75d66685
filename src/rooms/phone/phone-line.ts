import { ApiError } from '../../errors.ts';
import { withTx } from '../../db/pool.ts';
import type { Services } from '../../services.ts';
import type { Gateway } from '../../../gateway/gateway.ts';
import { fillPhone, phoneTexts, type PhoneTexts } from '../../i18n/phone.ts';
import { HeardPhrase, PhraseUnderWay } from '../../engines/speech/heard-phrase.ts';
import type { StreamingRecognizer } from '../../engines/speech/streaming.ts';
import { fairQueueOf } from '../../engines/speech/fair-queue.ts';
import { HEARTBEAT_MS, joinByPhone, leaveByPhone, phoneStillIn, sayAloudAsPerson } from '../participants.ts';
import type { PinHolder } from '../phone-pins.ts';
import { PhoneLobby } from './lobby.ts';
import { phraseSpoken, roomPhrases } from '../interpretation.ts';
import type { PageSpeech } from '../read-aloud.ts';
import type { RoomMixes } from './voices-mix.ts';

// One person on the phone (rooms/phone/dial-in.ts answered their call): first in the lobby
// (lobby.ts: greeted in the languages of the organization's rooms, they type their PIN); then in
// the room, a participant like a page's person (their name and languages, counted in the people
// cap, on the participant list with a phone badge):
//
// - what they say is the media plane's utterances (its voice activity, 8 kHz), read by the service's
//   recognizers in their speaking language (a stream as it is said where the engine hears as the
//   audio comes: partials), and published as their phrase: captions, agents' session events, the
//   others' interpretation, the transcript, with them as speaker; their onset and offset are
//   speech.started and speech.stopped;
// - what they hear is the room's phrases in their hearing language, spoken (rooms/interpretation.ts
//   phraseSpoken, synthesized once per room, phrase and language, shared with the interpretation
//   channels), from the moment they joined, the AI-translation notice first; and, where the room's
//   voices are on a media server, the others' own voices, mixed under it (voices-mix.ts). A phrase
//   in their own language is spoken to them only when that voice is not in their mix (typed, or
//   said on another phone), so that they hear everything said, once;
// - `*6` mutes and unmutes them (said back to them);
// - their BYE makes them leave; the room ending (or their removal) says so and hangs up. Their
//   process's heartbeat keeps them present; should it die, the presence sweep ends them, billed to
//   when they were last seen (participants.ts markLeft bills a phone participant once).

type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/** `mixes`: the room's own voices for its phone lines (voices-mix.ts), where there is a media server. */
export type PhoneLineDeps = { s: Services; gw: Gateway; speech: PageSpeech; log: Log; mixes?: RoomMixes };

export type DialIn = {
  /** The dial-in number: its id (PIN quotas per number), and the organization whose rooms it takes callers into. */
  numberId: string;
  orgId: string;
  /** The caller: their number (or address) as the PIN quotas count it, and masked as the badge shows it. */
  caller: string;
  masked: string;
  /** Their connected minutes are billed at this factor. */
  minuteFactor: number;
};

/** `*` then `6` within this: mute or unmute. */
const STAR_MS = 3_000;

export class PhoneLine {
  /** The dialog's key (the signaling's): a dial-in's participant id, or the call's id. */
  readonly key: string;
  /** Their participant id in the room. */
  readonly pid: string;
  private readonly d: PhoneLineDeps;
  private readonly dialIn: DialIn | null;
  /** A dial-in's lobby, where the PIN is typed; null for a call brought into a room. */
  private readonly lobby: PhoneLobby | null;
  /** Who reads what they say: the service's recognizers (a real person), or the simulated callee's own (a test call). */
  private readonly recognizer: (Gateway['recognizer'] & { open?: StreamingRecognizer['open'] }) | undefined;
  /** A call brought into the room (not a dial-in): how it is hung up (the call ends with it). */
  private readonly endCall: (() => void) | undefined;
  private state: 'ringing' | 'lobby' | 'joining' | 'room' | 'gone' = 'ringing';
  private room: { id: string; name: string; speak: string; hear: string; texts: PhoneTexts; textsLang: string; livemode: boolean; cursor: number } | undefined;
  private muted = false;
  private starAt = 0;
  private readonly phrase = new PhraseUnderWay();
  private heardChain: Promise<void> = Promise.resolve();
  private signals: Promise<void> = Promise.resolve();
  private playing: Promise<void> = Promise.resolve();
  private heartbeat: NodeJS.Timeout | undefined;
  private n = 0;
  /** Utterances played whose end is awaited (a goodbye before the BYE). */
  private readonly ends = new Map<string, () => void>();
  /** Called once the line is over (its map entry goes). */
  onGone: () => void = () => {};

  constructor(key: string, o: { pid?: string; dialIn?: DialIn; recognizer?: Gateway['recognizer'] & { open?: StreamingRecognizer['open'] }; endCall?: () => void }, d: PhoneLineDeps) {
    this.key = key;
    this.pid = o.pid ?? key;
    this.dialIn = o.dialIn ?? null;
    this.recognizer = o.recognizer ?? d.s.recognizer;
    this.endCall = o.endCall;
    this.d = d;
    this.lobby = this.dialIn ? new PhoneLobby(this, this.dialIn, d) : null;
  }

  get inRoom(): boolean {
    return this.state === 'room';
  }

  get inLobby(): boolean {
    return this.state === 'lobby';
  }

  /** The caller's ACK came: they are greeted, and their PIN awaited. */
  async answered(): Promise<void> {
    if (this.state !== 'ringing') return;
    this.state = 'lobby';
    await this.lobby?.greet();
  }

  /** The lobby said goodbye: they are gone. */
  leave(): void {
    this.state = 'gone';
  }

  /** A digit from the caller (RFC 4733 or SIP INFO). */
  digit(digit: string): void {
    if (this.state === 'lobby') return this.lobby?.digit(digit);
    if (this.state !== 'room') return;
    const now = Date.now();
    if (digit === '*') {
      this.starAt = now;
      return;
    }
    if (digit === '6' && now - this.starAt <= STAR_MS) {
      this.starAt = 0;
      this.muted = !this.muted;
      if (this.muted) this.unheard();
      this.d.log.info({ key: this.key, muted: this.muted }, 'phone participant muted or unmuted (*6)');
      const r = this.room!;
      void this.say(`mute-${this.n++}`, this.muted ? r.texts.muted : r.texts.unmuted, r.textsLang);
    }
  }

  /** Their PIN let them in. */
  async join(h: PinHolder): Promise<void> {
    const speak = h.speak_lang ?? 'en';
    const dialIn = this.dialIn!;
    await this.enter({
      roomId: h.room_id, name: h.name ?? `Phone ${dialIn.masked}`, speak, hear: h.hear_lang ?? speak, phone: dialIn.masked, minuteFactor: dialIn.minuteFactor,
    });
  }

  /**
   * Into the room (their PIN, or a call placed into it once answered): a participant, told where they
   * are and that the others are translated for them by AI; then they hear the room and it hears them.
   */
  async enter(j: { roomId: string; name: string; speak: string; hear: string; phone: string; minuteFactor: number | null }): Promise<void> {
    this.state = 'joining';
    let joined: Awaited<ReturnType<typeof joinByPhone>>;
    try {
      joined = await joinByPhone(this.d.s, this.pid, { ...j });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'conflict')) this.d.log.error({ key: this.key, err: String(err) }, 'a caller could not join the room');
      this.state = 'lobby';
      if (this.endCall) {
        this.state = 'gone';
        this.endCall();
        return;
      }
      return this.lobby?.goodbye(/full/.test(String((err as Error).message)) ? 'full' : 'goodbye');
    }
    if (this.gone) {
      // Hung up while joining: they leave again (billed their few seconds).
      await leaveByPhone(this.d.s, this.pid).catch(() => {});
      return;
    }
    const t = phoneTexts(j.hear);
    this.room = { id: j.roomId, name: j.name, speak: j.speak, hear: j.hear, texts: t.texts, textsLang: t.lang, livemode: joined.livemode, cursor: joined.cursor };
    this.state = 'room';
    this.d.log.info({ key: this.key, participant: this.pid, room: j.roomId, speak: j.speak, hear: j.hear }, 'a phone participant joined the room');
    void this.say('joined', fillPhone(t.texts.joined, { title: joined.title || 'the meeting', count: joined.others }), t.lang);
    void this.say('notice', t.texts.notice, t.lang);
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.d.mixes?.add(j.roomId, this.key);
    void this.follow();
    void this.watch();
  }

  private get gone(): boolean {
    return this.state === 'gone';
  }

  // --- What they hear ---

  /** The room's phrases from their join on, in their language, in order. */
  private async follow(): Promise<void> {
    const r = this.room!;
    try {
      for await (const { seg, livemode } of roomPhrases(this.d.s, r.id, r.cursor, () => this.inRoom)) {
        if (seg.participant_id === this.pid) continue;
        // A phrase in their own language is heard as it was said where that voice is in their mix; else it is spoken.
        const voiceHeard = this.d.mixes?.publishes(r.id, seg.participant_id) ?? false;
        const pcm = await phraseSpoken(this.d.s, this.d.speech, r.id, livemode, seg, r.hear, { voiceHeard, who: this.key })
          .catch((err) => { this.d.log.warn({ key: this.key, seq: seg.seq, err: String(err) }, 'a phrase was not spoken to the caller'); return null; });
        if (pcm && this.inRoom) await this.play(`seq-${seg.seq}`, pcm, false);
      }
    } catch (err) {
      if (this.inRoom) this.d.log.warn({ key: this.key, err: String(err) }, 'the caller stopped hearing the room');
    }
  }

  /** Whether they are still in the room, at each change of it (the room ended, they were removed). */
  private async watch(): Promise<void> {
    const bus = this.d.s.logBus;
    const r = this.room!;
    while (this.inRoom && bus) {
      const mark = bus.mark();
      const { rows } = await this.d.s.pool.query<{ left: boolean }>(`SELECT left_at IS NOT NULL AS left FROM room_participants WHERE id = $1`, [this.pid]).catch(() => ({ rows: [] as Array<{ left: boolean }> }));
      if (rows[0]?.left) return this.removed();
      await bus.waitFor(r.id, 30_000, mark);
    }
  }

  private async beat(): Promise<void> {
    if (!this.inRoom) return;
    const still = await phoneStillIn(this.d.s.pool, this.pid).catch(() => true);
    if (!still) this.removed();
  }

  /** The room ended, or they were removed: told, then our BYE. */
  private removed(): void {
    if (!this.inRoom) return;
    const r = this.room!;
    this.state = 'gone';
    this.stopRoom();
    this.d.log.info({ key: this.key, room: r.id }, 'the caller is no longer in the room: goodbye');
    void this.say('ended', r.texts.ended, r.textsLang, true).then(() => (this.endCall ? this.endCall() : this.hangup()));
  }

  // --- What they say ---

  /** Onset or offset of their voice. */
  speech(kind: 'onset' | 'offset'): void {
    if (!this.inRoom || this.muted) return;
    const r = this.room!;
    const p = { logId: r.id, speaker: r.name, participantId: this.pid, kind: kind === 'onset' ? 'started' as const : 'stopped' as const };
    this.signal((tx) => this.d.s.reactions.speechActivity(this.d.s, tx, p));
  }

  private signal(write: (tx: import('../../db/pool.ts').Client) => Promise<void>): void {
    this.signals = this.signals
      .then(() => withTx(this.d.s.pool, write))
      .catch((err) => this.d.log.warn({ err: String(err), key: this.key }, 'a speech signal was not published'));
  }

  /** Their utterance under way, in parts of 100 ms: a recognizer stream of its own where the engine hears as the audio comes. */
  listen(pcm: Int16Array, start: boolean): void {
    if (start) this.phrase.begin(() => this.openPhrase());
    this.phrase.write(pcm);
  }

  /** The stream of an utterance that starts, in the room and unmuted; null where the recognizer does not hear as the audio comes. */
  private openPhrase(): HeardPhrase | null {
    const recognizer = this.recognizer;
    if (!this.inRoom || this.muted || !recognizer) return null;
    const r = this.room!;
    if (!recognizer.streamsAsSpoken?.(r.speak)) return null;
    return new HeardPhrase(recognizer, { lang: r.speak, rate: 8000, key: this.key }, {
      onPartial: (text, segmentId) => {
        const p = { logId: r.id, speaker: r.name, participantId: this.pid, srcLang: r.speak, segmentId, text };
        this.signal((tx) => this.d.s.reactions.partialHeard(this.d.s, tx, p));
      },
      onFinal: (f) => { this.heardChain = this.heardChain.then(() => this.publish(f.text, f.audioMs, f.segmentId)); },
    });
  }

  unheard(): void {
    this.phrase.abandon();
  }

  /** An utterance of theirs ended: read (its stream settled, or read whole) in their turn, then published as their phrase. */
  hear(u: { pcm: Int16Array; audioMs: number; at: number }): void {
    const phrase = this.phrase.take();
    if (!this.inRoom || this.muted) return phrase?.abandon();
    const recognizer = this.recognizer;
    const r = this.room!;
    if (!recognizer?.hears(r.speak)) return phrase?.abandon();
    phrase?.hush();
    this.heardChain = this.heardChain.then(async () => {
      const text = await fairQueueOf(recognizer).run(this.key, async () => {
        const heard = phrase?.finish();
        if (heard) return heard;
        return (await recognizer.recognize({ key: this.key, pcm: u.pcm, rate: 8000, audioMs: u.audioMs, lang: r.speak, at: u.at })).text;
      });
      if (!text || !text.trim()) return;
      await this.publish(text, Math.max(0, u.audioMs - (phrase?.earlyMs ?? 0)), phrase?.id);
    }).catch((err) => this.d.log.warn({ key: this.key, err: String(err) }, 'a phrase said on the phone was not published'));
  }

  private async publish(text: string, audioMs: number, segmentId: string | undefined): Promise<void> {
    if (!this.inRoom) return;
    await this.signals;
    try {
      await sayAloudAsPerson(this.d.s, this.room!.id, this.pid, text, audioMs, segmentId);
    } catch (err) {
      if (err instanceof ApiError && (err.code === 'conflict' || err.code === 'rate_limited')) return;
      throw err;
    }
  }

  // --- The line ---

  /** Their BYE (or the media timeout): they leave the room, billed once. */
  async ended(): Promise<void> {
    const was = this.state;
    this.state = 'gone';
    this.lobby?.stop();
    this.stopRoom();
    for (const done of this.ends.values()) done();
    if (was === 'room') await leaveByPhone(this.d.s, this.pid).catch((err) => this.d.log.error({ key: this.key, err: String(err) }, 'a phone participant could not leave'));
    this.onGone();
  }

  /** The plane finished (or dropped) one of our utterances. */
  spoken(utterance: string): void {
    this.ends.get(utterance)?.();
  }

  private stopRoom(): void {
    if (this.room) this.d.mixes?.remove(this.room.id, this.key);
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    this.unheard();
  }

  /** Our BYE, then they are gone. */
  async hangup(): Promise<void> {
    await this.d.gw.signaling.hangup(this.key).catch((err) => this.d.log.warn({ key: this.key, err: String(err) }, 'the caller could not be hung up'));
    await this.ended();
  }

  /** Says `text` in `lang` on the line (after what is playing); `untilSaid`: resolves once it has been heard (or the line went). */
  async say(utterance: string, text: string, lang: string, untilSaid = false, interruptible = false): Promise<void> {
    const speech = this.d.gw.speech;
    if (!speech.speaks(lang)) return;
    const made = speech.synthesize(text, lang);
    // In the order asked: each waits for the one before it to be queued.
    const turn = this.playing.then(async () => {
      const { pcm } = await made;
      await this.play(utterance, pcm, interruptible, untilSaid);
    });
    this.playing = turn.catch(() => {});
    await turn.catch((err) => this.d.log.warn({ key: this.key, utterance, err: String(err) }, 'a prompt was not said'));
  }

  private async play(utterance: string, pcm: Int16Array, interruptible: boolean, untilSaid = false): Promise<void> {
    const { signaling } = this.d.gw;
    if (!signaling.hasMedia(this.key)) return;
    const heard = untilSaid ? new Promise<void>((ok) => {
      const t = setTimeout(ok, pcm.length / 8 + 3_000);
      t.unref();
      this.ends.set(utterance, () => { clearTimeout(t); this.ends.delete(utterance); ok(); });
    }) : undefined;
    await signaling.play(this.key, utterance, pcm, { interruptible });
    await heard;
  }
}
