import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { invalid } from '../errors.ts';
import type { Caller } from '../services.ts';
import { assertVoiceAllowed } from '../restrictions.ts';
import { catalogVoice } from './rows.ts';
import { ID_PATTERN, personTag } from '../ids.ts';

// voice_id on agent sessions and calls must name a voice the caller can use
// (usableVoice): a ready clone of its organization or an added generic
// voice. A withdrawn voice stops being usable at once: an open session's say
// checks its voice each time (voiceInUse) and speaks with the default voice
// when it is gone.

/**
 * voice_id of an agent session or a call: the key's restriction (403
 * voice_not_allowed), then a voice the caller can use: a ready clone of its
 * organization or a generic voice it added (400 naming the field otherwise).
 * An empty or absent voice_id is the default voice (null).
 */
export async function usableVoice(db: Queryable, cred: Caller, field: string, voiceId: string | undefined | null): Promise<string | null> {
  if (!voiceId) return null;
  assertVoiceAllowed(cred, field, voiceId);
  const problem = await whyUnusable(db, { orgId: cred.orgId, livemode: cred.livemode }, voiceId);
  if (problem) throw invalid(field, problem);
  return voiceId;
}

/** The voice a session speaks with now: its own while it is still usable, else the default voice (null). */
export async function voiceInUse(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null): Promise<string | null> {
  if (!voiceId) return null;
  return (await whyUnusable(db, owner, voiceId)) === null ? voiceId : null;
}

/**
 * A person's own ready clone in the organization: the newest whose person's e-mail `who` names
 * (personTag of it, join-links.ts: the e-mail itself never rides in a link), else null.
 */
export async function personVoice(db: Queryable, owner: { orgId: string; livemode: boolean }, who: string): Promise<string | null> {
  const { rows } = await db.query<{ id: string; person_email: string }>(prepared(
    `SELECT id, person_email FROM voices WHERE org_id = $1 AND livemode = $2 AND status = 'ready' ORDER BY created_at DESC`, [owner.orgId, owner.livemode],
  ));
  return rows.find((r) => personTag(r.person_email) === who)?.id ?? null;
}

/** Why a voice cannot be used by an organization in a mode, or null when it can. */
async function whyUnusable(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string): Promise<string | null> {
  if (!ID_PATTERN.test(voiceId)) return `no voice '${voiceId}'`;
  if (voiceId.startsWith('generic_')) {
    if (!catalogVoice(voiceId)) return `no voice '${voiceId}' in the catalog (GET /v1/voices/catalog)`;
    const { rows } = await db.query(prepared(
      `SELECT 1 FROM voice_choices WHERE org_id = $1 AND livemode = $2 AND voice_id = $3`, [owner.orgId, owner.livemode, voiceId],
    ));
    return rows[0] ? null : `generic voice '${voiceId}' is not among your voices; add it first (POST /v1/voices/generic)`;
  }
  const { rows } = await db.query<{ status: string }>(prepared(
    `SELECT status FROM voices WHERE id = $1 AND org_id = $2 AND livemode = $3`, [voiceId, owner.orgId, owner.livemode],
  ));
  if (!rows[0]) return `no voice '${voiceId}' (GET /v1/voices lists yours)`;
  if (rows[0].status === 'ready') return null;
  return rows[0].status === 'revoked' ? `voice '${voiceId}' was revoked and can no longer be used` : `voice '${voiceId}' is ${rows[0].status}, not ready`;
}
