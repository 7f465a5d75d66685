import { randomBytes } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { orgName } from '../db/organizations.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { ApiError, notFound } from '../errors.ts';
import { createPersistedActor } from '../actors/store.ts';
import { now, type Caller, type Services } from '../services.ts';
import { assertLanguagesAllowed, assertVoiceAllowed } from '../restrictions.ts';
import { requestMail } from './texts.ts';
import { assertCloningAvailable } from './cloning.ts';
import { armTimer } from './simulated-cloning.ts';
import { consentLocked, revokeLocked, sentenceOf } from './transitions.ts';
import { catalogVoice, consentUrl, eventObject, genericVoice, toVoice, VOICE_COLUMNS, type Voice, type VoiceRow } from './rows.ts';

// Voices (api.md: Voice, the voice state table, the Voices endpoints).
//
// A clone is an actor (machines/voice.ts) with its row in `voices`
// (rows.ts). It is asked for with POST /v1/voices (live keys only when the
// operator configured a cloning engine, else 501: cloning.ts): the person is
// mailed the consent link, a page of ours (pages/, its steps in
// consent.ts) where they prove they read the mail's address (a one-time
// code), read who asks and why, and record the consent sentence. The
// recording is checked (probe.ts) before the voice goes `processing`; for a
// test key the simulator makes it `ready` moments later
// (simulated-cloning.ts), for a live key the cloning engine makes it at the
// provider (cloning.ts). The person is mailed a receipt whose link withdraws
// the consent at any time; the organization withdraws it with DELETE
// /v1/voices/{id} (transitions.ts). The link lapses after 7 days (a pg-boss
// timer: `expired`).
//
// Who sees a clone: its organization, in its mode; the key that asked for it
// in every state, the organization's other keys once it is ready (GET
// /v1/voices lists the same). Another organization's voice, or a voice of
// the other mode, does not exist for the caller (404).
//
// Generic voices are the catalog's (no consent needed): an organization adds
// one to its voices, per mode (POST /v1/voices/generic; again returns the same
// voice); its id is the catalog's. Which voices sessions and calls may speak
// with: usable.ts.

/** How long a consent link works. */
export const LINK_TTL_MS = 7 * 24 * 3600_000;

/** The test helper completes a consent for the API client: never in live mode, where only the person gives it, on the consent page. */
function assertTestKey(cred: Caller): void {
  if (cred.livemode) {
    throw new ApiError('not_available_yet', 'The consent test helper is for test keys only: in live mode the person gives their consent themselves, on the consent page (consent_url)');
  }
}

export type CloneInput = { name: string; language: string; person: { name: string; email: string }; purpose?: string };

/** POST /v1/voices: the voice, awaiting the person's consent; the consent link mailed to them. */
export async function requestVoice(s: Services, tx: Client, cred: Caller, input: CloneInput): Promise<Voice> {
  assertLanguagesAllowed(cred, 'language', [input.language]);
  assertCloningAvailable(s, cred);
  const id = newId('voice');
  const created = now(s);
  const row: VoiceRow = {
    id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, name: input.name, language: input.language,
    person_name: input.person.name, person_email: input.person.email, status: 'awaiting_consent', failure_code: null,
    consent_token: randomBytes(24).toString('base64url'), link_expires_at: new Date(created.getTime() + LINK_TTL_MS),
    purpose: input.purpose ?? null, created_at: created,
  };
  const { status: _status, ...columns } = row;
  await createPersistedActor(tx, {
    id, machine: 'voice', owner: { orgId: cred.orgId, livemode: cred.livemode }, event: { type: 'REQUEST' },
    objectFor: () => eventObject(row), row: columns,
  });
  await armTimer(s, tx, { voiceId: id, kind: 'expire' }, row.link_expires_at);
  const url = consentUrl(s.config.publicBaseUrl, row.consent_token);
  const mail = requestMail({ person: row.person_name, org: await orgName(tx, cred.orgId), voice: row.name, purpose: row.purpose, url, expiresAt: row.link_expires_at, language: row.language });
  await s.reactions.queueMail(s, tx, { orgId: cred.orgId, livemode: cred.livemode, to: row.person_email, ...mail });
  return toVoice(s.config.publicBaseUrl, row);
}

/** A clone the caller can see (see the top of this file), or null. */
async function visibleClone(db: Queryable, cred: Caller, id: string, lock = false): Promise<VoiceRow | null> {
  const { rows } = await db.query<VoiceRow>(prepared(
    `SELECT ${VOICE_COLUMNS} FROM voices WHERE id = $1 AND org_id = $2 AND livemode = $3 ${lock ? 'FOR UPDATE' : ''}`,
    [id, cred.orgId, cred.livemode],
  ));
  const r = rows[0];
  if (!r || (r.credential_id !== cred.id && r.status !== 'ready')) return null;
  return r;
}

async function chosenGeneric(db: Queryable, cred: Caller, id: string): Promise<Voice | null> {
  const c = catalogVoice(id);
  if (!c) return null;
  const { rows } = await db.query<{ created_at: Date }>(prepared(
    `SELECT created_at FROM voice_choices WHERE org_id = $1 AND livemode = $2 AND voice_id = $3`, [cred.orgId, cred.livemode, id],
  ));
  return rows[0] ? genericVoice(c, { created_at: rows[0].created_at, livemode: cred.livemode }) : null;
}

/** GET /v1/voices/{id}. */
export async function getVoice(s: Services, cred: Caller, id: string): Promise<Voice> {
  if (!ID_PATTERN.test(id)) throw notFound('voice', id);
  if (id.startsWith('generic_')) {
    const v = await chosenGeneric(s.pool, cred, id);
    if (!v) throw notFound('voice', id);
    return v;
  }
  const r = await visibleClone(s.pool, cred, id);
  if (!r) throw notFound('voice', id);
  return toVoice(s.config.publicBaseUrl, r);
}

/**
 * GET /v1/voices: the organization's ready clones, the caller's own clones in
 * every state, and the generic voices the organization added, in the order
 * they were made or added.
 */
export async function listVoices(s: Services, cred: Caller): Promise<{ data: Voice[] }> {
  const [clones, chosen] = await Promise.all([
    s.pool.query<VoiceRow>(prepared(
      `SELECT ${VOICE_COLUMNS} FROM voices WHERE org_id = $1 AND livemode = $2 AND (status = 'ready' OR credential_id = $3) ORDER BY created_at, id`,
      [cred.orgId, cred.livemode, cred.id],
    )),
    s.pool.query<{ voice_id: string; created_at: Date }>(prepared(
      `SELECT voice_id, created_at FROM voice_choices WHERE org_id = $1 AND livemode = $2 ORDER BY created_at, voice_id`,
      [cred.orgId, cred.livemode],
    )),
  ]);
  const base = s.config.publicBaseUrl;
  const all: Array<{ at: number; v: Voice }> = clones.rows.map((r) => ({ at: r.created_at.getTime(), v: toVoice(base, r) }));
  for (const c of chosen.rows) {
    const cat = catalogVoice(c.voice_id);
    if (cat) all.push({ at: c.created_at.getTime(), v: genericVoice(cat, { created_at: c.created_at, livemode: cred.livemode }) });
  }
  return { data: all.sort((a, b) => a.at - b.at).map((x) => x.v) };
}

/** POST /v1/voices/generic: adds a catalog voice to the organization's voices; adding it again returns the same voice. */
export async function addGenericVoice(s: Services, cred: Caller, voiceId: string): Promise<Voice> {
  assertVoiceAllowed(cred, 'voice_id', voiceId);
  const c = catalogVoice(voiceId);
  if (!c) throw new ApiError('not_found', `voice_id: no voice '${voiceId}' in the catalog (GET /v1/voices/catalog lists them)`);
  const { rows } = await s.pool.query<{ created_at: Date }>(prepared(
    `WITH ins AS (
       INSERT INTO voice_choices (org_id, livemode, voice_id, credential_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING created_at)
     SELECT created_at FROM ins
     UNION ALL
     SELECT created_at FROM voice_choices WHERE org_id = $1 AND livemode = $2 AND voice_id = $3
     LIMIT 1`,
    [cred.orgId, cred.livemode, voiceId, cred.id],
  ));
  // Two first adds racing: the loser's snapshot sees neither its own row nor the winner's; the winner's row exists now.
  const at = rows[0]?.created_at ?? (await chosenGeneric(s.pool, cred, voiceId))?.created_at;
  return genericVoice(c, { created_at: at ? new Date(at) : now(s), livemode: cred.livemode });
}

/**
 * DELETE /v1/voices/{id}: withdraws a clone (REVOKE: `revoked`, voice.revoked;
 * its recording deleted; a clone already failed, expired or revoked is
 * returned unchanged), or removes a generic voice from the organization's
 * voices (returned with active false).
 */
export async function deleteVoice(s: Services, cred: Caller, id: string): Promise<Voice> {
  if (!ID_PATTERN.test(id)) throw notFound('voice', id);
  assertVoiceAllowed(cred, 'id', id);
  if (id.startsWith('generic_')) {
    const c = catalogVoice(id);
    const { rows } = await s.pool.query<{ created_at: Date }>(prepared(
      `DELETE FROM voice_choices WHERE org_id = $1 AND livemode = $2 AND voice_id = $3 RETURNING created_at`, [cred.orgId, cred.livemode, id],
    ));
    if (!c || !rows[0]) throw notFound('voice', id);
    return genericVoice(c, { created_at: rows[0].created_at, livemode: cred.livemode }, false);
  }
  return withTx(s.pool, async (tx) => {
    if (!(await visibleClone(tx, cred, id, true))) throw notFound('voice', id);
    const t = await revokeLocked(s, tx, id, 'organization');
    return toVoice(s.config.publicBaseUrl, t.row);
  });
}

/**
 * POST /v1/test-helpers/voices/{id}/complete-consent (operator.md): completes
 * the consent as if the person had recorded it; 200 with the voice, now
 * `processing` (`ready` within 2 s). Test keys only; a voice that is not
 * awaiting consent answers 409.
 */
export async function completeConsent(s: Services, cred: Caller, id: string): Promise<Voice> {
  assertTestKey(cred);
  if (!ID_PATTERN.test(id) || id.startsWith('generic_')) throw notFound('voice', id);
  return withTx(s.pool, async (tx) => {
    const r = await visibleClone(tx, cred, id, true);
    if (!r) throw notFound('voice', id);
    const sentence = (await sentenceOf(tx, r, now(s))).text;
    const t = await consentLocked(s, tx, id, { method: 'test_helper', sentence });
    if (!t.changed) throw new ApiError('conflict', `Voice '${id}' is ${t.row.status}; only a voice awaiting consent can have it completed`);
    return toVoice(s.config.publicBaseUrl, t.row);
  });
}
