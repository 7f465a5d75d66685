import { prepared } from '../db/pool.ts';
import { LOG_SIGNALS, type Services } from '../services.ts';
import { ChannelSender } from '../media/channel-sender.ts';
import type { MediaServers } from '../media/servers.ts';
import { phraseVoice, spokenOnce, type PageSpeech } from './read-aloud.ts';
import { ChannelLeases, LEASE_RETRY_MS } from './interpretation-leases.ts';

// A room's interpretation channels (rooms/voices.ts): for each language its
// listeners hear, a Streaming mountpoint of the room's Janus that speaks the
// room's phrases in that language, as they come:
//
// - a person's phrase said in another language, translated (the room's
//   translations, sessions/translations.ts) and spoken by the synthesizer (in
//   the speaker's ready cloned voice where there is one, read-aloud.ts
//   phraseVoice); a person's phrase in the
//   listener's own language is never re-spoken (they hear the voice itself),
//   nor one no engine translates (they read it);
// - an agent's say, a robot's line, an announcement and the AI disclosure,
//   which have no voice of their own, in every language, the one they were
//   said in included.
//
// Each phrase is synthesized once per language for the whole room (and stored,
// read-aloud.ts spokenOnce, which "read aloud" shares), whoever listens, and
// sent once: every listener of the language receives the same mountpoint.
// A channel is kept while a page of this process listens to it; the room's
// log is followed (the LogBus) from the moment the first channel opens. Where
// processes share the room's Janus, one of them speaks each channel, the one
// holding its lease (interpretation-leases.ts); the others take it over when it goes.

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

type Channel = {
  refs: number;
  sender: Promise<ChannelSender>;
  id: Promise<string>;
  chain: Promise<void>;
  /** Whether this process speaks it (always, on a Janus of its own; with the lease, on a shared one). */
  speaks: boolean;
  retry: NodeJS.Timeout | null;
};

export type Seg = { seq: number; kind: string; text: string | null; src_lang: string; announced: string | null; created_at: Date; participant_id: string; session_id: string | null };

/** Kinds with no voice of their own: spoken in every language. */
const VOICELESS = new Set(['agent', 'robot', 'announcement', 'disclosure']);

class RoomInterpreter {
  private readonly channels = new Map<string, Channel>();
  private following = false;
  private readonly s: Services;
  private readonly media: MediaServers;
  private readonly speech: PageSpeech;
  private readonly roomId: string;
  private readonly log: Log;
  private readonly leases: ChannelLeases;
  /** Phrases spoken per language on this process (tests, bench). */
  spoken = 0;

  /** Called when its last channel here closed. */
  onIdle: () => void = () => {};

  constructor(s: Services, media: MediaServers, speech: PageSpeech, leases: ChannelLeases, roomId: string, log: Log) {
    this.s = s;
    this.media = media;
    this.speech = speech;
    this.leases = leases;
    this.roomId = roomId;
    this.log = log;
  }

  /** This process's leases were lost with their connection: its channels try again. */
  lostLeases(): void {
    for (const [lang, c] of this.channels) {
      if (!this.media.shared || !c.speaks) continue;
      c.speaks = false;
      this.log.warn({ room: this.roomId, lang }, `this process stopped speaking room ${this.roomId}'s interpretation in ${lang}: its database connection went`);
      this.lease(lang, c);
    }
  }

  /** On a shared Janus: the channel's lease taken, or tried again every LEASE_RETRY_MS while it has listeners here. */
  private lease(lang: string, c: Channel): void {
    const name = `${this.roomId}.${lang}`;
    const attempt = async () => {
      c.retry = null;
      if (this.channels.get(lang) !== c) return;
      const ok = await this.leases.take(name).catch(() => false);
      if (this.channels.get(lang) !== c) {
        // Released meanwhile.
        if (ok) await this.leases.give(name);
        return;
      }
      if (ok) {
        c.speaks = true;
        this.log.info({ room: this.roomId, lang }, `this process speaks room ${this.roomId}'s interpretation in ${lang}`);
      } else {
        c.retry = setTimeout(() => void attempt(), LEASE_RETRY_MS);
        c.retry.unref();
      }
    };
    void attempt();
  }

  /** A listener of `lang`: the channel's mountpoint id, and the release of it. */
  async listen(lang: string): Promise<{ id: string; release: () => void }> {
    let c = this.channels.get(lang);
    if (!c) {
      const ch = this.media.channel(this.roomId, lang);
      const made: Channel = {
        refs: 0, sender: ch.then((m) => new ChannelSender(m.host, m.port, 8000)), id: ch.then((m) => m.id), chain: Promise.resolve(),
        speaks: !this.media.shared, retry: null,
      };
      // Awaited by interpret() only once the channel is made: a channel that could not be made fails listen() alone.
      made.sender.catch(() => {});
      c = made;
      this.channels.set(lang, c);
      ch.catch(() => { if (this.channels.get(lang) === made) this.channels.delete(lang); });
      if (this.media.shared) this.lease(lang, c);
    }
    c.refs++;
    const id = await c.id;
    if (!this.following) void this.follow();
    let released = false;
    return {
      id,
      release: () => {
        if (released) return;
        released = true;
        c.refs--;
        if (c.refs > 0 || this.channels.get(lang) !== c) return;
        this.channels.delete(lang);
        if (c.retry) clearTimeout(c.retry);
        if (c.speaks && this.media.shared) void this.leases.give(`${this.roomId}.${lang}`);
        void c.sender.then((snd) => snd.close(), () => {});
        if (this.channels.size === 0) this.onIdle();
      },
    };
  }

  private async follow(): Promise<void> {
    this.following = true;
    try {
      for await (const { seg, livemode } of roomPhrases(this.s, this.roomId, null, () => this.channels.size > 0)) {
        // In order, per language: each phrase synthesized after the one before, and queued behind it.
        for (const [lang, c] of this.channels) c.chain = c.chain.then(() => this.interpret(seg, lang, livemode));
      }
    } catch (err) {
      this.log.warn({ err: String(err), room: this.roomId }, 'the room\'s interpretation stopped following it');
    } finally {
      this.following = false;
    }
  }

  /** One phrase into one language's channel (queued after what it is saying). */
  private async interpret(seg: Seg, lang: string, livemode: boolean): Promise<void> {
    const c = this.channels.get(lang);
    // Another process speaks it (it holds the lease).
    if (!c || !c.speaks) return;
    try {
      const pcm = await phraseSpoken(this.s, this.speech, this.roomId, livemode, seg, lang, { voiceHeard: true, who: `interpretation:${this.roomId}:${lang}` });
      if (!pcm) return;
      const sender = await c.sender;
      this.spoken++;
      void sender.play(pcm);
    } catch (err) {
      this.log.warn({ err: String(err), room: this.roomId, seq: seg.seq, lang }, 'a phrase was not interpreted');
    }
  }
}

/**
 * The phrases of a room's log from `since` on (null: from now), as they come, with the room's
 * livemode: what is said, not the signals (speech activity, partials) nor DTMF. Follows the log
 * bus (waking on its notifications) for as long as `going()` says.
 */
export async function* roomPhrases(s: Services, roomId: string, since: number | null, going: () => boolean): AsyncGenerator<{ seg: Seg; livemode: boolean }> {
  const bus = s.logBus;
  const { rows: [room] } = await s.pool.query<{ livemode: boolean; last: string | null }>(
    `SELECT r.livemode, (SELECT max(seq) FROM room_segments WHERE room_id = r.id) AS last FROM rooms r WHERE r.id = $1`, [roomId]);
  if (!room || !bus) return;
  let after = since ?? Number(room.last ?? 0);
  while (going()) {
    const mark = bus.mark();
    const { rows } = await s.pool.query<Seg>(prepared(
      `SELECT seq, kind, text, src_lang, announced, created_at, participant_id, session_id FROM room_segments
        WHERE room_id = $1 AND seq > $2 ORDER BY seq LIMIT 50`, [roomId, after]));
    for (const seg of rows) {
      after = Number(seg.seq);
      if (!seg.text || seg.kind === 'dtmf' || (LOG_SIGNALS as readonly string[]).includes(seg.kind)) continue;
      yield { seg, livemode: room.livemode };
      if (!going()) return;
    }
    if (rows.length === 50) continue;
    await bus.waitFor(roomId, 30_000, mark);
  }
}

/**
 * A phrase of the room as a listener of `lang` hears it, spoken (8 kHz PCM from its first sound), or
 * null when there is nothing to say: a person's phrase in the listener's own language where their
 * voice itself is heard (`voiceHeard`), one no engine translates (it is read), one no engine speaks.
 * Voiceless kinds (an agent's say, a robot's line, an announcement, the disclosure) are spoken in
 * every language, their own included. Synthesized once per room, phrase, language and voice (spokenOnce).
 */
export async function phraseSpoken(
  s: Services, speech: PageSpeech, roomId: string, livemode: boolean, seg: Seg, lang: string, o: { voiceHeard: boolean; who: string },
): Promise<Int16Array | null> {
  const voiceless = VOICELESS.has(seg.kind);
  if (!voiceless && seg.src_lang === lang && o.voiceHeard) return null;
  const t = seg.src_lang === lang ? { untranslated: false, text: seg.text } : await s.reactions.phraseIn(s, roomId, livemode, seg, lang);
  const [text, spokenIn] = t.untranslated || t.text === null ? [voiceless ? seg.text : null, seg.src_lang] : [t.text, lang];
  if (!text || !speech.speaks(spokenIn)) return null;
  const voice = await phraseVoice(s, seg);
  const spoken = await spokenOnce(s, speech, o.who, { roomId, seq: Number(seg.seq), lang: spokenIn, voice: voice ?? '', text });
  return fromFirstSound(spoken.pcm);
}

/** Below this (16-bit PCM), a sample is silence: a synthesizer's lead-in, not its voice. */
const QUIET = 300;
/** Kept before the first sound (8 kHz samples: 20 ms), so its attack is not cut. */
const LEAD_SAMPLES = 160;

/**
 * The phrase from just before its first sound: a synthesizer starts with silence (Pico about
 * 100 ms), which would only delay the interpretation (BENCH_ONLY=voices times it). All silent: as it is.
 */
export function fromFirstSound(pcm: Int16Array): Int16Array {
  let i = 0;
  while (i < pcm.length && Math.abs(pcm[i]!) < QUIET) i++;
  return i === pcm.length ? pcm : pcm.subarray(Math.max(0, i - LEAD_SAMPLES));
}

/** This process's interpreters, one per room with a listener here. */
export class Interpreters {
  private readonly rooms = new Map<string, RoomInterpreter>();
  private readonly s: Services;
  private readonly media: MediaServers;
  private readonly speech: PageSpeech;
  private readonly leases: ChannelLeases;

  constructor(s: Services, media: MediaServers, speech: PageSpeech) {
    this.s = s;
    this.media = media;
    this.speech = speech;
    this.leases = new ChannelLeases(s.pool);
    this.leases.onLost(() => { for (const r of this.rooms.values()) r.lostLeases(); });
  }

  of(roomId: string, log: Log): RoomInterpreter {
    let r = this.rooms.get(roomId);
    if (!r) {
      const made = new RoomInterpreter(this.s, this.media, this.speech, this.leases, roomId, log);
      // Forgotten once nobody here listens (its follow loop ends by itself then).
      made.onIdle = () => { if (this.rooms.get(roomId) === made) this.rooms.delete(roomId); };
      r = made;
      this.rooms.set(roomId, r);
    }
    return r;
  }
}
