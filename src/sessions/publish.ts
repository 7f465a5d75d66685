import type { Client } from '../db/pool.ts';
import { now, speechOf, translatorOf, type Services } from '../services.ts';
import { PRICING } from '../billing/pricing.ts';
import { recordUsage } from '../billing/ledger.ts';
import { SESSION_CHANNEL } from './bus.ts';

// What a room hears is a room segment in the speaker's language; publishing
// one gives every open session of the room a session event, numbered per
// session under that session's row lock (so numbers become visible in order
// and a cursor never skips or repeats one), translated into its hear_lang,
// and NOTIFYs SESSION_CHANNEL (with the room id) so waiting listeners in any
// process wake up.

export type Segment = {
  roomId: string;
  kind: 'robot' | 'agent' | 'announcement';
  speaker: string | null;
  participantId: string;
  srcLang: string;
  text: string;
  sessionId?: string | null;
  utteranceId?: string | null;
  /** Sessions that do not hear it (the agent's own say). */
  exclude?: string[];
  /** Text per hear_lang when the phrase has its own wording (announcements); else translated. */
  textIn?: (lang: string) => string;
};

/**
 * Writes a room segment and one session event for each open session in the
 * room, in tx. Returns the sessions reached.
 *
 * Listening is metered here, as the phrase reaches each session: every
 * listener pays listen_text_factor of the phrase's spoken seconds (added to
 * its billed_seconds by the same statement that numbers its event, and one
 * usage ledger row per key). Reading then only checks the key's limits
 * (reader.ts), so thousands of listeners waking at once cost one query, not
 * one transaction each.
 */
export async function publishSegment(s: Services, tx: Client, seg: Segment): Promise<string[]> {
  const { rows: segRows } = await tx.query<{ id: number }>(
    `INSERT INTO room_segments (room_id, kind, speaker, participant_id, src_lang, text, session_id, utterance_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
    [seg.roomId, seg.kind, seg.speaker, seg.participantId, seg.srcLang, seg.text, seg.sessionId ?? null, seg.utteranceId ?? null],
  );
  const segmentId = segRows[0]!.id;
  const listenSeconds = speechOf(s).spokenSeconds(seg.text) * PRICING.listenTextFactor;
  // One statement locks the listeners in id order (two publishers in one room
  // never deadlock), takes the next event number of each and bills them.
  const { rows: listeners } = await tx.query<{ id: string; hear_lang: string; last_seq: number; credential_id: string; org_id: string; livemode: boolean }>(
    `UPDATE agent_sessions s SET last_seq = s.last_seq + 1, billed_seconds = s.billed_seconds + $3
       FROM (SELECT id FROM agent_sessions
              WHERE room_id = $1 AND status <> 'ended' AND NOT (id = ANY($2::text[]))
              ORDER BY id FOR UPDATE) l
      WHERE s.id = l.id
      RETURNING s.id, s.hear_lang, s.last_seq, s.credential_id, s.org_id, s.livemode`,
    [seg.roomId, seg.exclude ?? [], listenSeconds],
  );
  if (listeners.length === 0) return [];
  const tr = translatorOf(s);
  const byLang = new Map<string, string>();
  const inLang = (lang: string) => {
    let text = byLang.get(lang);
    if (text === undefined) byLang.set(lang, (text = seg.textIn ? seg.textIn(lang) : tr.translate(seg.text, seg.srcLang, lang)));
    return text;
  };
  await tx.query(
    `INSERT INTO session_events (session_id, seq, type, segment_id, speaker, src_lang, text, text_in_hear_lang, meta)
     SELECT e.session_id, e.seq, 'segment.final', $3, $4, $5, $6, e.text_in, jsonb_build_object('seq', e.seq, 'participant_id', $7::text, 'lang', e.lang)
       FROM unnest($1::text[], $2::bigint[], $8::text[], $9::text[]) AS e(session_id, seq, text_in, lang)`,
    [
      listeners.map((l) => l.id), listeners.map((l) => l.last_seq), segmentId, seg.speaker, seg.srcLang, seg.text,
      seg.participantId, listeners.map((l) => inLang(l.hear_lang)), listeners.map((l) => l.hear_lang),
    ],
  );
  if (listenSeconds > 0) {
    // One ledger row per key for the phrase its sessions heard.
    const perKey = new Map<string, { orgId: string; livemode: boolean; n: number }>();
    for (const l of listeners) {
      const k = perKey.get(l.credential_id) ?? { orgId: l.org_id, livemode: l.livemode, n: 0 };
      k.n++;
      perKey.set(l.credential_id, k);
    }
    await recordUsage(
      tx,
      [...perKey].map(([credentialId, k]) => ({
        orgId: k.orgId, credentialId, livemode: k.livemode, kind: 'listen', seconds: k.n * listenSeconds, ref: `seg_${segmentId}`,
      })),
      now(s),
    );
  }
  await notifyRoom(tx, seg.roomId);
  return listeners.map((l) => l.id);
}

/**
 * One notification per room, whatever the number of listeners: it wakes every
 * listener of the room in every process, and each reads its own events (the
 * ones with nothing new wait again). Sent on commit, folded per transaction.
 */
export async function notifyRoom(tx: Client, roomId: string): Promise<void> {
  await tx.query(`SELECT pg_notify($1, $2)`, [SESSION_CHANNEL, roomId]);
}
