import { randomBytes } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { orgName } from '../db/organizations.ts';
import { transition, type Transition } from '../actors/store.ts';
import { now, type Services } from '../services.ts';
import { confirmationMail, consentSentence, revokedMail } from './texts.ts';
import { queueClone, queueProviderDelete } from './cloning.ts';
import { armTimer } from './simulated-cloning.ts';
import { eventObject, revokeUrl, TRANSITION_OPTS, VOICE_COLUMNS, type VoiceRow } from './rows.ts';

// The two transitions a voice's person and organization cause, each in the
// caller's transaction with what follows from it: CONSENT (the cloning
// queued, the receipt mailed) and REVOKE (the recording deleted, the
// provider's voice queued for deletion, the person told).

/** The sentence of a voice, for its person, its organization and the day. */
export async function sentenceOf(db: Queryable, r: VoiceRow, at: Date) {
  return consentSentence(r.language, { person: r.person_name, org: await orgName(db, r.org_id), voice: r.name, date: at });
}

export type ConsentProof = {
  method: 'page' | 'test_helper';
  sentence: string;
  ip?: string | null;
  userAgent?: string | null;
};

/**
 * CONSENT in tx for a voice awaiting it (locked by the caller): `processing`
 * (voice.consent_completed), the processing job, and the person's receipt with
 * the link that withdraws the consent. Returns the transition (changed false
 * when the voice was not awaiting consent).
 */
export async function consentLocked(s: Services, tx: Client, id: string, proof: ConsentProof): Promise<Transition<VoiceRow>> {
  const at = now(s);
  const revokeToken = randomBytes(24).toString('base64url');
  const t = await transition<VoiceRow>(tx, 'voice', id, { type: 'CONSENT' }, {
    ...TRANSITION_OPTS,
    set: () => ({
      consented_at: at, consent_method: proof.method, consent_sentence: proof.sentence, consent_ip: proof.ip ?? null,
      consent_user_agent: proof.userAgent ? proof.userAgent.slice(0, 500) : null, revoke_token: revokeToken,
      code_hash: null, verified_hash: null,
    }),
  });
  if (!t.changed) return t;
  // A live voice is made by the cloning engine (cloning.ts); a test voice by the simulator (simulated-cloning.ts).
  if (t.row.livemode) await queueClone(s, tx, id);
  else await armTimer(s, tx, { voiceId: id, kind: 'process' }, at);
  const mail = confirmationMail({
    person: t.row.person_name, org: await orgName(tx, t.row.org_id), voice: t.row.name, sentence: proof.sentence, at,
    revokeUrl: revokeUrl(s.config.publicBaseUrl, revokeToken), language: t.row.language,
  });
  await s.reactions.queueMail(s, tx, { orgId: t.row.org_id, livemode: t.row.livemode, to: t.row.person_email, ...mail });
  return t;
}

export type RevokeBy = 'person' | 'organization';

type Revoked = VoiceRow & { consented_at: Date | null; provider: string | null; provider_voice_id: string | null; provider_deleted_at: Date | null };

/**
 * REVOKE in tx: the voice withdrawn, its recording deleted, its voice at the
 * provider queued for deletion (cloning.ts), the person told when they had consented.
 */
export async function revokeLocked(s: Services, tx: Client, id: string, by: RevokeBy): Promise<Transition<Revoked>> {
  const t = await transition<Revoked>(tx, 'voice', id, { type: 'REVOKE' }, {
    returning: `${VOICE_COLUMNS}, consented_at, provider, provider_voice_id, provider_deleted_at`,
    objectFor: (row) => eventObject(row),
    set: () => ({ revoked_at: now(s), revoked_by: by, code_hash: null, verified_hash: null }),
  });
  if (!t.changed) return t;
  await tx.query(prepared(`DELETE FROM voice_recordings WHERE voice_id = $1`, [id]));
  if (t.row.provider && t.row.provider_voice_id && !t.row.provider_deleted_at) {
    await queueProviderDelete(s, tx, { voiceId: id, provider: t.row.provider, providerVoiceId: t.row.provider_voice_id });
  }
  if (t.row.consented_at) {
    const mail = revokedMail({ person: t.row.person_name, org: await orgName(tx, t.row.org_id), voice: t.row.name, byPerson: by === 'person', language: t.row.language });
    await s.reactions.queueMail(s, tx, { orgId: t.row.org_id, livemode: t.row.livemode, to: t.row.person_email, ...mail });
  }
  return t;
}
