import { prepared } from '../db/pool.ts';
import { LOG_SIGNALS, type Services } from '../services.ts';
import { ChannelSender } from '../media/channel-sender.ts';
import type { MediaServers } from '../media/servers.ts';
import { spokenOnce, type PageSpeech } from './read-aloud.ts';

// A room's interpretation channels (rooms/voices.ts): for each language its
// listeners hear, a Streaming mountpoint of the room's Janus that speaks the
// room's phrases in that language, as they come:
//
// - a person's phrase said in another language, translated (the room's
//   translations, sessions/translations.ts) and spoken by the synthesizer (an
//   agent's in its session's ready cloned voice); a person's phrase in the
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
// log is followed (the LogBus) from the moment the first channel opens.

type Seg = { seq: number; kind: string; text: string | null; src_lang: string; announced: string | null; created_at: Date; participant_id: string; session_id: string | null };

/** Kinds with no voice of their own: spoken in every language. */
const VOICELESS = new Set(['agent', 'robot', 'announcement', 'disclosure']);

class RoomInterpreter {
  private readonly channels = new Map<string, { refs: number; sender: Promise<ChannelSender>; id: Promise<string>; chain: Promise<void> }>();
  private following = false;
  private readonly s: Services;
  private readonly media: MediaServers;
  private readonly speech: PageSpeech;
  private readonly roomId: string;
  private readonly log: { warn: (o: object, m: string) => void };
  /** Phrases spoken per language on this process (tests, bench). */
  spoken = 0;

  constructor(s: Services, media: MediaServers, speech: PageSpeech, roomId: string, log: { warn: (o: object, m: string) => void }) {
    this.s = s;
    this.media = media;
    this.speech = speech;
    this.roomId = roomId;
    this.log = log;
  }

  /** A listener of `lang`: the channel's mountpoint id, and the release of it. */
  async listen(lang: string): Promise<{ id: string; release: () => void }> {
    let c = this.channels.get(lang);
    if (!c) {
      const ch = this.media.channel(this.roomId, lang);
      c = { refs: 0, sender: ch.then((m) => new ChannelSender(m.host, m.port, 8000)), id: ch.then((m) => m.id), chain: Promise.resolve() };
      this.channels.set(lang, c);
      ch.catch(() => { if (this.channels.get(lang) === c) this.channels.delete(lang); });
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
        void c.sender.then((snd) => snd.close(), () => {});
      },
    };
  }

  private async follow(): Promise<void> {
    this.following = true;
    const bus = this.s.logBus;
    try {
      const { rows: [room] } = await this.s.pool.query<{ livemode: boolean; last: string | null }>(
        `SELECT r.livemode, (SELECT max(seq) FROM room_segments WHERE room_id = r.id) AS last FROM rooms r WHERE r.id = $1`, [this.roomId]);
      if (!room || !bus) return;
      let since = Number(room.last ?? 0);
      while (this.channels.size > 0) {
        const mark = bus.mark();
        const { rows } = await this.s.pool.query<Seg>(prepared(
          `SELECT seq, kind, text, src_lang, announced, created_at, participant_id, session_id FROM room_segments
            WHERE room_id = $1 AND seq > $2 ORDER BY seq LIMIT 50`, [this.roomId, since]));
        for (const seg of rows) {
          since = Number(seg.seq);
          if (!seg.text || seg.kind === 'dtmf' || (LOG_SIGNALS as readonly string[]).includes(seg.kind)) continue;
          // In order, per language: each phrase synthesized after the one before, and queued behind it.
          for (const [lang, c] of this.channels) c.chain = c.chain.then(() => this.interpret(seg, lang, room.livemode));
        }
        if (rows.length === 50) continue;
        await bus.waitFor(this.roomId, 30_000, mark);
      }
    } catch (err) {
      this.log.warn({ err: String(err), room: this.roomId }, 'the room\'s interpretation stopped following it');
    } finally {
      this.following = false;
    }
  }

  /** One phrase into one language's channel (queued after what it is saying). */
  private async interpret(seg: Seg, lang: string, livemode: boolean): Promise<void> {
    const voiceless = VOICELESS.has(seg.kind);
    if (!voiceless && seg.src_lang === lang) return;
    const c = this.channels.get(lang);
    if (!c) return;
    try {
      const t = await this.s.reactions.phraseIn(this.s, this.roomId, livemode, seg, lang);
      const [text, spokenIn] = t.untranslated || t.text === null ? [voiceless ? seg.text : null, seg.src_lang] : [t.text, lang];
      if (!text || !this.speech.speaks(spokenIn)) return;
      const voice = seg.session_id ? await this.s.reactions.sessionVoice(this.s.pool, seg.session_id) : undefined;
      const spoken = await spokenOnce(this.s, this.speech, `interpretation:${this.roomId}:${lang}`, { roomId: this.roomId, seq: Number(seg.seq), lang: spokenIn, voice: voice ?? '', text });
      const sender = await c.sender;
      this.spoken++;
      void sender.play(spoken.pcm);
    } catch (err) {
      this.log.warn({ err: String(err), room: this.roomId, seq: seg.seq, lang }, 'a phrase was not interpreted');
    }
  }
}

/** This process's interpreters, one per room with a listener here. */
export class Interpreters {
  private readonly rooms = new Map<string, RoomInterpreter>();
  private readonly s: Services;
  private readonly media: MediaServers;
  private readonly speech: PageSpeech;

  constructor(s: Services, media: MediaServers, speech: PageSpeech) {
    this.s = s;
    this.media = media;
    this.speech = speech;
  }

  of(roomId: string, log: { warn: (o: object, m: string) => void }): RoomInterpreter {
    let r = this.rooms.get(roomId);
    if (!r) {
      r = new RoomInterpreter(this.s, this.media, this.speech, roomId, log);
      this.rooms.set(roomId, r);
    }
    return r;
  }
}
