import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { prepared } from '../db/pool.ts';
import { LOG_SIGNALS, speechOf, type LogBus, type Services } from '../services.ts';
import { closeStreams, HEARTBEAT_MS, roomPeople, touchParticipants } from './participants.ts';

// The room page's live feed (Server-Sent Events, GET /r/{id}/stream): what
// the room says, each phrase in the page's language with its original (the
// person's own as they said it), who is in the room, and the room's end;
// and, as it happens, who starts and stops talking (speech.started/stopped)
// and what another person is saying so far (segment.partial, sent as it was
// heard, untranslated, replaced on the page by the phrase of its segment_id;
// a say's progress is the sessions' only). It
// is fed by the same room log the agent sessions read (sessions/publish.ts)
// and woken by the same notifications (Services.logBus), so a phrase said on
// any server process reaches every page on every process.
//
// One feed per room per process, however many pages of the room this
// process serves: on each wake-up it reads the new phrases once (one query
// for the phrases, the people and the room's status), translates each once
// per language its pages hear, and writes the same bytes to every page of a
// language. A page keeps its own position (the last phrase it was sent), so
// one that (re)connects with an older position (EventSource's Last-Event-ID)
// is sent what it missed by the same read. Nothing here is kept only in
// memory that the database does not hold: a process that dies drops its
// connections, the browsers reconnect elsewhere and resume from their
// position.

/** Phrases read per wake-up (a page far behind catches up over several). */
const BATCH = 200;
/** A feed re-reads the room at least this often without a notification (the room's end by a sweep, a lost notification). */
const IDLE_MS = 20_000;
/** A page catching up is not sent who was talking nor what they had said so far longer ago than this: it was settled since. */
const LIVE_SIGNAL_MS = 30_000;
/** The log's kinds a page is sent as they happen (the rest of LOG_SIGNALS, a say's progress, is not the page's). */
const LIVE_KINDS: ReadonlySet<string> = new Set(['segment.partial', 'speech.started', 'speech.stopped']);
const NOT_SENT = LOG_SIGNALS.filter((k) => !LIVE_KINDS.has(k));
/** How often a feed holding a phrase for its translation looks again without a notification. */
const HELD_RECHECK_MS = 2000;

type Conn = {
  res: ServerResponse;
  livemode: boolean;
  /** Its row in room_streams (participants.ts openStream). */
  streamId: string;
  participantId: string;
  hearLang: string;
  /** The last phrase this page was sent. */
  after: number;
  /** Whether it was sent the whole list of who is here (then only who comes and goes). */
  listed: boolean;
  open: boolean;
};

type Entry = {
  seq: number; kind: string; speaker: string | null; participant_id: string; src_lang: string; text: string | null;
  announced: string | null; created_at: Date; segment_id: string | null;
};

function frame(event: string, data: unknown, id?: number): string {
  return `${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

class Feed {
  readonly conns = new Set<Conn>();
  /** Who was here at the last read (id -> the participant as sent), null before the first. */
  private people: Map<string, string> | null = null;
  private running = false;
  /** Ends the current wait early (a page joined and must be sent the room at once). */
  private kicker: EventEmitter | null = null;
  private readonly hub: RoomHub;
  private readonly roomId: string;

  constructor(hub: RoomHub, roomId: string) {
    this.hub = hub;
    this.roomId = roomId;
  }

  /** A page was added during the last read: read again before waiting. */
  private fresh = false;

  add(c: Conn): void {
    this.conns.add(c);
    this.fresh = true;
    if (!this.running) void this.run();
    else this.kicker?.emit('close');
  }

  remove(c: Conn): void {
    c.open = false;
    this.conns.delete(c);
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.conns.size > 0) {
        const mark = this.hub.bus.mark();
        let more = false;
        try {
          more = await this.read();
        } catch (err) {
          this.hub.log?.error({ err, room: this.roomId }, 'room feed read failed');
          await new Promise((r) => setTimeout(r, 1000));
          continue;
        }
        if (this.conns.size === 0) break;
        if (!more && !this.fresh) {
          const kicker = (this.kicker = new EventEmitter());
          // Held at a phrase another process is translating: look again soon (its process may have died).
          await this.hub.bus.waitFor(this.roomId, this.heldSince !== null ? HELD_RECHECK_MS : IDLE_MS, mark, kicker);
          this.kicker = null;
        }
        this.fresh = false;
      }
    } finally {
      this.running = false;
      if (this.conns.size === 0) this.hub.drop(this.roomId, this);
      else void this.run();
    }
  }

  /** One read of the room; true when there is more to read at once. */
  private async read(): Promise<boolean> {
    let after = Infinity;
    for (const c of this.conns) after = Math.min(after, c.after);
    const s = this.hub.s;
    const [room, log, people] = await Promise.all([
      s.pool.query<{ status: string }>(prepared(`SELECT status FROM rooms WHERE id = $1`, [this.roomId])),
      s.pool.query<Entry>(prepared(
        // Phrases, partials and speech activity: a say's progress is the sessions' event, not the page's.
        `SELECT seq, kind, speaker, participant_id, src_lang, text, announced, created_at, segment_id FROM room_segments
          WHERE room_id = $1 AND seq > $2 AND kind <> ALL($4::text[]) ORDER BY seq LIMIT $3`,
        [this.roomId, after, BATCH, NOT_SENT],
      )),
      roomPeople(s.pool, this.roomId),
    ]);
    const entries = log.rows.map((e) => ({ ...e, seq: Number(e.seq) }));
    // Each phrase in each language heard here, translated once whoever reads it (the sessions' translations, through the reactions).
    const langs = [...new Set([...this.conns].map((c) => c.hearLang))];
    const livemode = [...this.conns][0]?.livemode ?? false;
    const rendered = await s.reactions.phrasesInEach(s, this.roomId, livemode, entries.filter((e) => !LIVE_KINDS.has(e.kind)), langs);
    const stale = Date.now() - LIVE_SIGNAL_MS;
    let held = false;
    const frames = new Map<string, string>();
    /**
     * The phrase's frame for a page of lang; null while its translation is still being made elsewhere.
     * The speaker's own phrase is sent as it was recognized (or typed), in the language they speak,
     * never translated into the one they hear: translated back it would hide what the recognizer
     * misheard (a person reading "Vai de frente dez metros" for their own "go forward ten meters").
     */
    const frameOf = (e: Entry, lang: string, own: boolean): string | null => {
      if (LIVE_KINDS.has(e.kind)) return liveFrame(e, own);
      const key = `${e.seq}\n${lang}\n${own ? 1 : 0}`;
      let f = frames.get(key);
      if (f === undefined) {
        const inLang = own ? { text: e.text, untranslated: false } : rendered.get(e.seq, lang);
        if (inLang === undefined) return null;
        f = frame('phrase', {
          seq: e.seq, kind: e.kind, speaker: e.speaker, participant_id: e.participant_id, ai: e.kind === 'agent', own,
          src_lang: e.src_lang, text: inLang.text, original: e.text, lang: own ? e.src_lang : lang, untranslated: inLang.untranslated, segment_id: e.segment_id,
          duration_ms: Math.round(speechOf(s).spokenSeconds(e.text ?? '') * 1000), created_at: new Date(e.created_at).toISOString(),
        }, e.seq);
        frames.set(key, f);
      }
      return f;
    };
    /**
     * A partial or speech activity: the same bytes for every page, '' for none. A person's own partial
     * is on their page already (the microphone's socket says it), and what is long past is settled.
     */
    const liveFrame = (e: Entry, own: boolean): string => {
      if ((own && e.kind === 'segment.partial') || new Date(e.created_at).getTime() < stale) return '';
      const key = `${e.seq}`;
      let f = frames.get(key);
      if (f === undefined) {
        f = e.kind === 'segment.partial'
          ? frame('partial', { seq: e.seq, segment_id: e.segment_id, speaker: e.speaker, participant_id: e.participant_id, src_lang: e.src_lang, text: e.text }, e.seq)
          : frame('speech', { seq: e.seq, state: e.kind === 'speech.started' ? 'started' : 'stopped', speaker: e.speaker, participant_id: e.participant_id }, e.seq);
        frames.set(key, f);
      }
      return f;
    };
    // Who is here: the whole list for a page that has none yet (one frame for all of them), then
    // only who came and went (a room of a thousand people does not send a thousand-name list to a
    // thousand pages each time one of them arrives). Pages tell themselves apart by their own id.
    const present = new Map(people.map((p) => [p.id, JSON.stringify(p)]));
    let changes = '';
    if (this.people !== null) {
      for (const [id, json] of present) if (this.people.get(id) !== json) changes += `event: joined\ndata: {"participant":${json}}\n\n`;
      for (const id of this.people.keys()) if (!present.has(id)) changes += frame('left', { id });
    }
    this.people = present;
    let list: string | null = null;
    const status = room.rows[0]?.status ?? 'ended';
    for (const c of [...this.conns]) {
      // Ended by an earlier read (gone, ended), its 'close' not seen yet: nothing more is written to it.
      if (!c.open) continue;
      let out = '';
      for (const e of entries) {
        if (e.seq <= c.after) continue;
        // Held (with what follows it) until its translation is stored: that wakes this feed again.
        const f = frameOf(e, c.hearLang, e.participant_id === c.participantId);
        if (f === null) { held = true; break; }
        out += f;
        c.after = e.seq;
      }
      if (!c.listed) {
        out += (list ??= frame('participants', { participants: people }));
        c.listed = true;
      } else {
        out += changes;
      }
      if (status !== 'live') {
        out += frame('ended', { status: status === 'canceled' ? 'canceled' : 'ended' });
        this.hub.close(c, out);
      } else if (!present.has(c.participantId)) {
        out += frame('gone', { reason: 'left' });
        this.hub.close(c, out);
      } else if (out) {
        c.res.write(out);
      }
    }
    // A page held at a phrase being translated elsewhere: its translation's notification wakes the
    // feed; the time limit has passed by the next idle read at the latest (the phrase then goes untranslated).
    if (held) this.heldSince ??= Date.now();
    else this.heldSince = null;
    return entries.length === BATCH;
  }

  /** Since when a page has been held at a phrase being translated elsewhere (null: none is). */
  heldSince: number | null = null;
}

/** This process's room feeds and the pages connected to them. */
export class RoomHub {
  readonly s: Services;
  readonly bus: LogBus;
  readonly log?: { error: (o: object, m: string) => void };
  private readonly feeds = new Map<string, Feed>();
  private readonly timer: NodeJS.Timeout;

  constructor(s: Services, bus: LogBus, log?: { error: (o: object, m: string) => void }) {
    this.s = s;
    this.bus = bus;
    this.log = log;
    // Every HEARTBEAT_MS: a comment to every page (proxies keep the stream open) and the pages' participants marked present.
    this.timer = setInterval(() => void this.heartbeat(), HEARTBEAT_MS);
    this.timer.unref();
  }

  /** Pages connected to this process (for the benchmark). */
  get size(): number {
    let n = 0;
    for (const f of this.feeds.values()) n += f.conns.size;
    return n;
  }

  /** A page connects: its stream starts after `after` (its last phrase). */
  attach(roomId: string, res: ServerResponse, participant: { id: string; hear_lang: string; livemode: boolean }, after: number, streamId: string): void {
    const c: Conn = { res, livemode: participant.livemode, streamId, participantId: participant.id, hearLang: participant.hear_lang, after, listed: false, open: true };
    let feed = this.feeds.get(roomId);
    if (!feed) this.feeds.set(roomId, (feed = new Feed(this, roomId)));
    const f = feed;
    // A socket error (the browser gone mid-write) ends the stream like a close; never an unhandled 'error'.
    res.on('error', () => f.remove(c));
    res.on('close', () => {
      f.remove(c);
      // No longer one of the participant's open streams.
      closeStreams(this.s.pool, [c.streamId]).catch((err) => this.log?.error({ err }, 'room stream close failed'));
      // The browser went away (its half of the connection ended): end ours too, or the socket stays open.
      if (!res.writableEnded) res.destroy();
    });
    f.add(c);
  }

  /** Ends a page's stream with its last events; `hangUp`: the connection too (the server is stopping). */
  close(c: Conn, last: string, hangUp = false): void {
    if (!c.open) return;
    c.open = false;
    c.res.end(last, () => { if (hangUp) c.res.socket?.destroy(); });
  }

  drop(roomId: string, feed: Feed): void {
    if (this.feeds.get(roomId) === feed) this.feeds.delete(roomId);
  }

  private async heartbeat(): Promise<void> {
    const ids: string[] = [];
    const streams: string[] = [];
    for (const f of this.feeds.values()) {
      for (const c of f.conns) {
        if (!c.open) continue;
        ids.push(c.participantId);
        streams.push(c.streamId);
        c.res.write(': ping\n\n');
      }
    }
    try {
      await touchParticipants(this.s.pool, ids, streams);
    } catch (err) {
      this.log?.error({ err }, 'room presence heartbeat failed');
    }
  }

  /** The server stops: every stream ends and its connection closes (the browsers reconnect to another process). */
  async closeAll(): Promise<void> {
    clearInterval(this.timer);
    const streams: string[] = [];
    for (const f of this.feeds.values()) {
      for (const c of [...f.conns]) {
        streams.push(c.streamId);
        this.close(c, '', true);
      }
    }
    await closeStreams(this.s.pool, streams).catch((err) => this.log?.error({ err }, 'room streams close failed'));
  }
}
