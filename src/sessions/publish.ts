import type { Client } from '../db/pool.ts';
import { Writes } from '../db/writes.ts';
import { LOG_CHANNEL, speechOf, type LogSignal, type Services } from '../services.ts';
import { PRICING } from '../billing/pricing.ts';

// What a room hears is written once, in the room's log (room_segments),
// numbered per room, in the speaker's language. Sessions read their events
// from it (reader.ts): the entries after the room's number when they joined,
// up to its number when they ended, less their own phrases, translated into
// their hear_lang as they are read, and metered then. So publishing a phrase
// costs the same few statements whether the room has one listener or ten
// thousand: number it, store it, NOTIFY LOG_CHANNEL with the room id so
// waiting listeners in every process wake up.

export type Segment = {
  roomId: string;
  /** `disclosure`: a call's AI disclosure (its wording is made per language, like an announcement's). */
  kind: 'robot' | 'agent' | 'announcement' | 'disclosure' | 'person' | 'dtmf' | LogSignal;
  speaker: string | null;
  participantId: string;
  /** Null only for a say's progress and speech activity (signals.ts), which have no language. */
  srcLang: string | null;
  /** Null: speech heard on a call's line that no recognizer could read (audioMs says how long it was). */
  text: string | null;
  /** Of speech heard on a call's line: milliseconds of audio (meta.audio_ms). */
  audioMs?: number | null;
  /** The speaking session (kind agent: it does not hear its own phrase) or the announced one. */
  sessionId?: string | null;
  utteranceId?: string | null;
  /** For an announcement: the name of the agent announced; each language gets its own wording. */
  announced?: string | null;
  /** A phrase heard while it is said: the id its partials and its final share (meta.segment_id). */
  segmentId?: string | null;
  /** A say's progress: how much of it was spoken (meta.spoken_ms). */
  spokenMs?: number | null;
  /**
   * Whether listening to it is billed (default true). A call's line is not:
   * the call's answered minutes pay for the conversation.
   */
  metered?: boolean;
};

/**
 * Appends the phrase to the room's log in tx, with the room's next number,
 * and wakes the room's listeners on commit (NOTIFY is sent at commit), in
 * one statement. Returns the number.
 *
 * The number is taken by updating the room's row of room_logs, whose lock is
 * held until tx ends: the next phrase of the room waits for this one to
 * commit, so numbers become visible in order (a reader that sees n sees
 * everything below n). Take it last among the row locks of tx (after
 * sim_rooms and sessions): every writer of a room locks in that order.
 */
export async function publishSegment(s: Services, tx: Client, seg: Segment): Promise<number> {
  const w = new Writes();
  const seq = planSegment(w, s, seg);
  return Number((await w.run(tx))[seq]);
}

/** publishSegment's statement as a part of w; returns the output that holds the phrase's number. */
export function planSegment(w: Writes, s: Services, seg: Segment): string {
  const listenSeconds = seg.metered === false || seg.text === null ? 0 : speechOf(s).spokenSeconds(seg.text) * PRICING.listenTextFactor;
  const room = w.p(seg.roomId, '::text');
  const n = w.name('n');
  const g = w.name('g');
  w.with(n, `INSERT INTO room_logs AS l (room_id, seq) VALUES (${room}, 1)
     ON CONFLICT (room_id) DO UPDATE SET seq = l.seq + 1
     RETURNING seq`);
  w.with(g, `INSERT INTO room_segments (room_id, seq, kind, speaker, participant_id, src_lang, text, session_id, utterance_id, listen_seconds, announced, audio_ms,
       segment_id, spoken_ms)
     SELECT ${room}, ${n}.seq, ${[seg.kind, seg.speaker, seg.participantId, seg.srcLang, seg.text, seg.sessionId ?? null, seg.utteranceId ?? null,
       listenSeconds, seg.announced ?? null, seg.audioMs ?? null, seg.segmentId ?? null, seg.spokenMs ?? null].map((v) => w.p(v)).join(', ')} FROM ${n}
     RETURNING seq`);
  w.out(`(SELECT pg_notify(${w.p(LOG_CHANNEL)}, ${room}) FROM ${g})`, 'notify');
  return w.out(`(SELECT seq FROM ${g})`, 'seq');
}

/** The room's last number (0 before its first phrase): a session joining now hears what comes after it. */
export async function roomHead(tx: Client, roomId: string): Promise<number> {
  const { rows } = await tx.query<{ seq: string }>(`SELECT seq FROM room_logs WHERE room_id = $1`, [roomId]);
  return rows[0] ? Number(rows[0].seq) : 0;
}
