import type { Client } from '../db/pool.ts';
import { now } from '../services.ts';
import type { CallEvent } from '../../machines/call.ts';
import type { LineNotice } from './channel.ts';
import type { CallState } from './events.ts';
import { perKey } from './per-key.ts';
import { writeOnLine } from './outage.ts';
import { LineHearing } from './line-hearing.ts';
import type { LineDeps } from './line-deps.ts';
import { disclosureOnLine, partsOf, phraseText, sessionOfCall, trimQuiet, type CallVoice } from './line.ts';

// One call dialed by this process's gateway, from its dial to its end: what
// is live about it lives here and goes with dispose().
//
// - What is said on it: the AI disclosure first (worded and synthesized while
//   it rings, started at the pick-up), then the agent's says, in the callee's
//   language, played in the order asked for; a callee who talks over a say
//   stops it (the media plane's barge-in), and each say's progress is reported.
// - What is heard on it: its LineHearing (line-hearing.ts).
// - Its chain of events: what SIP says about the call (and what is heard)
//   is applied in the order it happened, and, while PostgreSQL is away, waits
//   in that order to be written (outage.ts).
// - Its timers: the per-call limit from the pick-up, and the longest an
//   answer may stay unwritten (dialer.ts says when each is armed).

/** A call as it is dialed: what its line needs before its answer is written. */
export type LinePlan = {
  id: string;
  /** The callee's language. */
  lang: string;
  /** The call's voice_id (and its owner), spoken with when it is a ready cloned voice. */
  voice?: CallVoice;
  /** The per-call limit in seconds from the pick-up (null: none). */
  maxSeconds: number | null;
  /** Through a trunk: the far end is a real person, heard by the service's recognizers (TOLK_RECOGNIZE), never by the built-in callee's. */
  live: boolean;
  /** A call into a room (its room_id), and its number masked (the participant's name there); unset: a call with an AI agent. */
  room?: { id: string; phone: string };
};

export class CallLine {
  readonly id: string;
  readonly lang: string;
  readonly voice: CallVoice | undefined;
  readonly maxSeconds: number | null;
  readonly live: boolean;
  /**
   * A call into a room: once answered, its callee is a participant there (the services' phoneRooms
   * port, rooms/phone/), which hears and speaks on the line; this line then says and hears nothing
   * itself (no AI disclosure: the room's line tells them the call is translated by AI).
   */
  readonly room: { id: string; phone: string } | undefined;
  private brought = false;
  readonly placedAt = Date.now();
  /** A live call on its way to its INVITE (its trunk read, its calls-per-second slot awaited). */
  preparing = false;
  /**
   * The call as this process last wrote it (events.ts CallState): its next
   * ringing or answer is applied in one statement on it. A cache: lost or
   * stale (checked by version), it only costs the usual locked transaction.
   */
  state: CallState | undefined;
  disposed = false;
  /** Set once a person answered: what is heard is published, the agent's says spoken. */
  private answeredLang: string | null = null;
  private disclosed = false;
  /** The agent's says given to the line whose end (finished or interrupted) is not reported yet. */
  private readonly says = new Set<string>();
  /** The call's agent session (its say progress goes to it), read once. */
  private session: Promise<string | null> | undefined;
  private voiceName: Promise<string | undefined> | undefined;
  private wording: Promise<{ text: string; lang: string }> | undefined;
  private limit: NodeJS.Timeout | undefined;
  private unwritten: NodeJS.Timeout | undefined;
  private readonly events: ReturnType<typeof perKey>;
  private readonly said: ReturnType<typeof perKey>;
  /** What is heard on the line: the far end's utterances, digits and speech activity. */
  readonly hearing: LineHearing;
  private readonly d: LineDeps;

  constructor(plan: LinePlan, d: LineDeps) {
    this.id = plan.id;
    this.lang = plan.lang;
    this.voice = plan.voice;
    this.maxSeconds = plan.maxSeconds;
    this.live = plan.live;
    this.room = plan.room;
    this.d = d;
    const { log } = d;
    this.events = perKey((err, callId, event) => log.error({ err, callId, event }, 'call event not applied'));
    this.said = perKey((err, callId, utterance) => log.warn({ err: String(err), callId, utterance }, 'a phrase could not be spoken on the line'));
    this.hearing = new LineHearing(this, d);
  }

  /** Queues `task` behind the call's other events; `what` names it in the log should it fail. */
  run(task: () => Promise<void>, what: string): void {
    this.events.run(this.id, task, what);
  }

  /** Whether an event waits in the call's chain (to be written once the database is back). */
  get busy(): boolean {
    return this.events.busy(this.id);
  }

  get answered(): boolean {
    return this.answeredLang !== null;
  }

  /** The callee's language once a person answered; null before (and after the end). */
  get answeredIn(): string | null {
    return this.answeredLang;
  }

  /** A call into a room: the room's line speaks and hears for it. */
  get intoRoom(): boolean {
    return this.room !== undefined;
  }

  /**
   * The call is being dialed: its disclosure is made ready (worded in the callee's language and
   * spoken into the synthesizer's cache), so that at the pick-up it only has to be played.
   */
  prepare(): void {
    if (this.room) return;
    const { speech } = this.d.gw;
    void this.wordingOf().then(async (w) => {
      if (!speech.speaks(w.lang)) return;
      const voice = await this.voiceOf();
      await Promise.all(partsOf(w.text).map((part) => speech.synthesize(part, w.lang, voice)));
    }).catch((err) => this.d.log.warn({ err: String(err), callId: this.id }, 'the disclosure could not be made ready; it is made at the pick-up'));
  }

  /**
   * The far end picked up (a 2xx, before answering-machine detection has decided): the disclosure
   * starts on the line at once, while detection listens (as asynchronous AMD does), so a person who
   * picks up and says nothing hears it within a tick or two, not after the detector's wait.
   */
  pickedUp(): void {
    if (this.wording && !this.room) this.disclose();
  }

  /** A person answered and the dialog is here: the disclosure goes first (unless it started at the pick-up), and what is heard is published. */
  answer(): void {
    if (this.disposed) return;
    if (this.room) return this.bring(this.room);
    this.answeredLang = this.lang;
    this.disclose();
  }

  /** A call into a room, answered: its callee joins the room, whose line speaks and hears from now on. */
  private bring(room: { id: string; phone: string }): void {
    if (this.brought) return;
    this.brought = true;
    const rooms = this.d.s.phoneRooms;
    if (!rooms) {
      this.d.log.error({ callId: this.id, room: room.id }, 'no room lines in this process: the call into a room is hung up');
      return this.hangup({ type: 'HANGUP' }, now(this.d.s));
    }
    rooms.bring(this.id, {
      roomId: room.id, lang: this.lang, phone: room.phone, recognizer: this.hearing.recognizer,
      end: () => this.hangup({ type: 'HANGUP' }, now(this.d.s), 'cannot hang up a call whose room ended'),
    });
  }

  /** Says a phrase on the line, after what was asked before it: `what` gives its text and language when its turn comes (null: none). */
  speak(utterance: string, what: () => Promise<{ text: string; lang: string } | null>, interruptible = false, unspoken?: () => void): void {
    const { signaling } = this.d.gw;
    this.said.run(this.id, async () => {
      let played = false;
      try {
        if (!signaling.hasMedia(this.id)) return;
        const w = await what();
        if (w && this.up) played = await this.play(utterance, w.text, w.lang, interruptible);
      } finally {
        // Nothing of it reached the line (no text, no engine speaks its language, the line went, it failed): told all the same.
        if (!played) unspoken?.();
      }
    }, utterance);
  }

  /** An agent's say on the call's session (channel.ts), spoken to the callee once answered. */
  say(n: Extract<LineNotice, { type: 'say' }>): void {
    const lang = this.answeredLang;
    if (lang === null || !this.up) return;
    this.says.add(n.utterance);
    this.speak(n.utterance, async () => {
      const text = n.phrase.text ?? (await phraseText(this.d.s.pool, this.id, n.phrase.seq));
      if (text === null) return null;
      const p = { ...n.phrase, text, created_at: new Date(n.phrase.created_at) };
      // The say in the callee's language, translated once (the session's listeners read the same); what no
      // engine could translate is spoken as it was written, in its own language: never a marked form aloud.
      const { s } = this.d;
      const t = await s.reactions.phraseIn(s, this.id, n.livemode, p, lang);
      return t.untranslated || t.text === null ? { text, lang: p.src_lang } : { text: t.text, lang };
    }, n.interruptible, () => this.progress(n.utterance, 'finished', 0));
  }

  /**
   * The media plane started, finished or dropped (the callee talked over it) an utterance: an agent's
   * say's progress to its session (the sayProgress reaction), in the call's chain of events, so that
   * with the database away it waits in order (outage.ts). The disclosure is no say: not reported.
   */
  progress(utterance: string, kind: 'started' | 'finished' | 'interrupted', spokenMs: number): void {
    if (!this.says.has(utterance)) return;
    if (kind !== 'started') this.says.delete(utterance);
    const { s } = this.d;
    this.write(`say.${kind}`, async (tx) => {
      this.session ??= sessionOfCall(tx, this.id);
      const sessionId = await this.session.catch((err: unknown) => { this.session = undefined; throw err; });
      if (sessionId === null) return;
      await s.reactions.sayProgress(s, tx, { logId: this.id, sessionId, utteranceId: utterance, kind, spokenMs });
    });
  }

  /**
   * The per-call limit on the line: from the pick-up, the gateway hangs up at the limit itself,
   * whether or not the durable job (written with the answer) can run: with the database away, the
   * answer may not even be written yet. The call ends max_duration at the limit's moment, so it is
   * billed the limit and not the seconds its BYE took. The timer lives as long as the dialog in this
   * process: if the process dies, the dialog dies with it and the sweep of lost gateways ends the call.
   */
  limitFrom(pickedUp: Date): void {
    const max = this.maxSeconds;
    if (max === null || this.disposed) return;
    this.clearTimers();
    const endAt = new Date(pickedUp.getTime() + max * 1000);
    this.limit = this.at(endAt, () => {
      this.limit = undefined;
      if (!this.up) return;
      this.d.log.info({ callId: this.id, maxSeconds: max }, 'the per-call limit hangs up the line');
      this.hangup({ type: 'MAX_DURATION' }, endAt, 'cannot hang up at the per-call limit');
    });
  }

  /**
   * Answered while the database is away, its answer is kept in this process's memory alone: should
   * the process die before the database is back, the line dies with it and the call ends
   * failed/gateway_lost unbilled; and no spending limit can be checked meanwhile. So after
   * `seconds` with its answer still unwritten, the line is hung up: the call ends failed/gateway_lost
   * at that moment, billed from its pick-up, once the database is back.
   */
  unwrittenFrom(pickedUp: Date, seconds: number): void {
    if (this.unwritten || this.disposed) return;
    const endAt = new Date(pickedUp.getTime() + seconds * 1000);
    this.unwritten = this.at(endAt, () => {
      this.unwritten = undefined;
      if (!this.up) return;
      this.d.log.warn({ callId: this.id, seconds }, 'the database has been away since this call was answered: the line is hung up');
      this.hangup({ type: 'FAILED', reason: 'gateway_lost' }, endAt, 'cannot hang up a call whose answer is not written');
    });
  }

  /** The answer was written: the wait for the database no longer limits the call. */
  answerWritten(): void {
    clearTimeout(this.unwritten);
    this.unwritten = undefined;
  }

  /** The dialog ended (or the call did): no timer hangs it up any more. */
  clearTimers(): void {
    clearTimeout(this.limit);
    clearTimeout(this.unwritten);
    this.limit = undefined;
    this.unwritten = undefined;
  }

  /** Whether the call's dialog is held by this process's gateway now. */
  get up(): boolean {
    return this.d.gw.signaling.active().includes(this.id);
  }

  /** Hangs up the dialog, when it is still here, and ends the call with `event` at `endedAt`, in the chain of its events. */
  hangup(event: CallEvent, endedAt: Date, failed = 'cannot hang up the line'): void {
    if (!this.up) return;
    this.d.gw.signaling.hangup(this.id).catch((err) => this.d.log.error({ err, callId: this.id }, failed));
    this.run(() => this.d.apply(this.id, event, endedAt), event.type);
  }

  /** The call ended: its timers stop, nothing more is heard or said; what is under way finishes (pending()). */
  dispose(): void {
    if (this.brought && !this.disposed) this.d.s.phoneRooms?.ended(this.id);
    this.disposed = true;
    this.hearing.unheard();
    this.clearTimers();
    this.answeredLang = null;
    this.state = undefined;
  }

  /** What is still being applied, said or published (to wait for at stop). */
  pending(): Array<Promise<void>> {
    return [...this.events.pending(), ...this.said.pending(), ...this.hearing.pending()];
  }

  get idle(): boolean {
    return this.pending().length === 0;
  }

  private at(when: Date, fire: () => void): NodeJS.Timeout {
    const t = setTimeout(fire, Math.max(0, when.getTime() - now(this.d.s).getTime()));
    t.unref();
    return t;
  }

  /**
   * The voice the agent speaks with: the call's voice when it is a ready cloned voice the engines
   * can speak (the voices' answer, through the reactions' spokenVoice), read once per call (only for
   * a call with a voice_id: one without costs no statement); else the engine's own voice for the language.
   */
  private voiceOf(): Promise<string | undefined> {
    const v = this.voice;
    if (!v) return Promise.resolve(undefined);
    this.voiceName ??= this.d.s.reactions.spokenVoice(this.d.s.pool, { orgId: v.orgId, livemode: v.livemode }, v.id).catch((err) => {
      this.d.log.warn({ err: String(err), callId: this.id }, 'the call\'s voice could not be read: the engine\'s own voice speaks');
      return undefined;
    });
    return this.voiceName;
  }

  private wordingOf(): Promise<{ text: string; lang: string }> {
    this.wording ??= disclosureOnLine(this.d.s, this.lang);
    return this.wording;
  }

  private disclose(): void {
    if (this.disclosed) return;
    this.disclosed = true;
    const wording = this.wordingOf();
    this.speak('disclosure', () => wording);
  }

  /** Says `text` in `lang`; a language no engine speaks stays text (logged once per language): false. */
  private async play(utterance: string, text: string, lang: string, interruptible: boolean): Promise<boolean> {
    const { speech, signaling } = this.d.gw;
    if (!speech.speaks(lang)) {
      if (!this.d.unspoken.has(lang)) this.d.log.warn({ lang, engine: speech.name }, 'no speech engine for this language: calls in it are silent on the line');
      this.d.unspoken.add(lang);
      return false;
    }
    const voice = await this.voiceOf();
    // Its first sentence, then the rest: the line starts speaking once the first is made, not the whole.
    const parts = partsOf(text);
    const made = parts.map((part) => speech.synthesize(part, lang, voice));
    for (const [i, p] of made.entries()) {
      const { pcm } = await p;
      // Joined as one phrase: the engine's quiet after the first part and before the next is cut to a sentence's pause.
      const joined = made.length === 1 ? pcm : trimQuiet(pcm, { start: i > 0, end: i < made.length - 1 });
      await signaling.play(this.id, utterance, joined, { more: i < made.length - 1, interruptible });
    }
    return true;
  }

  /** A signal of the call's log (a say's progress, speech activity) written in the call's chain (outage.ts). */
  write(what: string, w: (tx: Client) => Promise<void>): void {
    this.run(async () => { await writeOnLine(this.d, this.id, what, w); }, what);
  }
}
