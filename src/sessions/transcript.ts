import type { Sql, Writes } from '../db/writes.ts';
import { OUTBOX_CHANNEL } from '../db/after-commit.ts';
import { newId } from '../ids.ts';
import type { EventTypeName } from '../../machines/event-types.ts';
import { LOG_SIGNALS } from '../services.ts';

const TRANSCRIPT_READY: EventTypeName = 'transcript.ready';
/** A log's entries that are not what was said: a callee's digits, and the signals (signals.ts). */
const NOT_SAID = ['dtmf', ...LOG_SIGNALS];

// A session's own transcript is written by the statement that ends it (leave.ts
// planSessionEnd); the transcripts capability reads it back, as it does the
// room's transcript it writes when a room ends (transcripts/transcripts.ts).

/** What a transcript is written from: the ended session. */
export type EndedSession = {
  id: string; org_id: string; livemode: boolean; credential_id: string; room_id: string | null; log_id: string; hear_lang: string;
  started_at: Date; ended_at: Date | null;
  /** The numbers of the room's log it was present for: (from_seq, to_seq]; to_seq may be computed by the statement. */
  from_seq: number; to_seq: number | Sql;
};

/**
 * The session's conversation becomes a transcript: what was said in the room
 * while it was there (its window of the room's log), its own lines included, in the speakers'
 * languages (GET /v1/transcripts/{id}?lang= translates). transcript.ready
 * carries ids and counts only, never text. Parts of the statement that ends
 * the session: the segments, the transcript, and its event in the outbox.
 */
export function planTranscript(w: Writes, session: EndedSession): void {
  const id = w.p(newId('tr'), '::text');
  const org = w.p(session.org_id, '::text');
  const livemode = w.p(session.livemode, '::boolean');
  const room = w.p(session.room_id, '::text');
  const sessionId = w.p(session.id, '::text');
  const seg = w.name('seg');
  const tr = w.name('tr');
  w.with(seg, `INSERT INTO transcript_segments (transcript_id, n, speaker, src_lang, text, at, log_id, seq, kind, announced)
     SELECT ${id}, row_number() OVER (ORDER BY seq), speaker, src_lang, text, created_at, room_id, seq, kind, announced
       FROM room_segments WHERE room_id = ${w.p(session.log_id)} AND seq > ${w.p(session.from_seq)} AND seq <= ${w.value(session.to_seq)} AND kind <> ALL(${w.p(NOT_SAID, '::text[]')})
     RETURNING 1`);
  w.with(tr, `INSERT INTO transcripts (id, org_id, livemode, credential_id, session_id, room_id, lang, started_at, ended_at, segments)
     SELECT ${id}, ${org}, ${livemode}, ${w.p(session.credential_id)}, ${sessionId}, ${room}, ${w.p(session.hear_lang)},
            ${w.p(session.started_at)}, ${w.p(session.ended_at)}, count(*)::int FROM ${seg}
     RETURNING segments`);
  w.notify(OUTBOX_CHANNEL);
  w.with(w.name('ready'), `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
     SELECT ${w.p(newId('evt'))}, ${org}, ${livemode}, ${w.p(TRANSCRIPT_READY, '::text')}, ${id},
            jsonb_build_object('object', jsonb_build_object(
              'id', ${id}, 'object', 'transcript', 'room_id', ${room}, 'session_id', ${sessionId}, 'segment_count', ${tr}.segments))
       FROM ${tr}`);
}

