import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { ID_PATTERN, newId } from '../ids.ts';
import { takeQuotas, type Quota } from '../http/quotas.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { createPersistedActor, transition, type Transition } from '../actors/store.ts';
import { inTx } from '../jobs/in-tx.ts';
import { queueMail } from '../mail/mail.ts';
import { now, type Caller, type Services } from '../services.ts';
import { assertLanguagesAllowed, assertVoiceAllowed } from '../restrictions.ts';
import { CATALOG_VOICES } from '../catalog/data.ts';
import type { z } from 'zod';
import type { Voice as VoiceSchema } from './schemas.ts';

type Voice = z.infer<typeof VoiceSchema>;
import { codeMail, confirmationMail, consentSentence, requestMail, revokedMail } from './texts.ts';
import { assertCloningAvailable, queueClone, queueProviderDelete } from './cloning.ts';

// Voices (api.md: Voice, the voice state table, the Voices endpoints).
//
// A clone is an actor (machines/voice.ts) with its row in `voices`. It is
// asked for with POST /v1/voices (live keys only when the operator
// configured a cloning engine, else 501: voices/cloning.ts): the person is
// mailed the consent link, a page of ours (voices/consent-page.ts)
// where they prove they read the mail's address (a one-time code), read who
// asks and why, and record the consent sentence. The recording is checked
// (voices/probe.ts) before the voice goes `processing`; for a test key the
// simulator makes it `ready` moments later (VOICE_TIMER_QUEUE), for a live
// key the cloning engine makes it at the provider (voices/cloning.ts). The person is mailed a
// receipt whose link withdraws the consent at any time; the organization
// withdraws it with DELETE /v1/voices/{id}. The link lapses after 7 days (a
// pg-boss timer: `expired`).
//
// Who sees a clone: its organization, in its mode; the key that asked for it
// in every state, the organization's other keys once it is ready (GET
// /v1/voices lists the same). Another organization's voice, or a voice of
// the other mode, does not exist for the caller (404).
//
// Generic voices are the catalog's (no consent needed): an organization adds
// one to its voices, per mode (POST /v1/voices/generic; again returns the same
// voice); its id is the catalog's.
//
// voice_id on agent sessions and calls must name a voice the caller can use
// (usableVoice): a ready clone of its organization or an added generic
// voice. A withdrawn voice stops being usable at once: an open session's say
// checks its voice each time (voiceInUse) and speaks with the default voice
// when it is gone.

/** How long a consent link works. */
export const LINK_TTL_MS = 7 * 24 * 3600_000;
/** A one-time code works this long, for this many tries; a link gets at most MAX_CODES codes, one per CODE_RESEND_MS. */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;
export const MAX_CODES = 5;
export const CODE_RESEND_MS = 30_000;
/** Once the code was right, the page may send the recording for this long. */
export const VERIFIED_TTL_MS = 60 * 60_000;
/** Recordings the page may send for one link (each is decoded). */
export const MAX_RECORDINGS = 10;
/** A recording: at least this long, and with at least this much sound (not silence). */
export const MIN_RECORDING_MS = 3_000;
export const MAX_RECORDING_MS = 120_000;
export const MIN_SOUND_MS = 300;
/** The simulator's cloning needs this much sound in the recording, or the voice fails (insufficient_speech). */
export const MIN_SPEECH_MS = 1_500;
/** The largest recording accepted (two minutes of Opus are well under 2 MiB). */
export const MAX_RECORDING_BYTES = 5 * 1024 * 1024;

export const VOICE_TIMER_QUEUE = 'voice-timer';
export type VoiceTimerJob = { voiceId: string; kind: 'expire' | 'process' };

export type VoiceRow = {
  id: string;
  org_id: string;
  livemode: boolean;
  credential_id: string;
  name: string;
  language: string;
  person_name: string;
  person_email: string;
  status: 'awaiting_consent' | 'processing' | 'ready' | 'failed' | 'revoked' | 'expired';
  failure_code: string | null;
  consent_token: string;
  link_expires_at: Date;
  purpose: string | null;
  created_at: Date;
};

export const VOICE_COLUMNS =
  'id, org_id, livemode, credential_id, name, language, person_name, person_email, status, failure_code, consent_token, link_expires_at, purpose, created_at';

/** An e-mail address as answers show it: `a***@e***.com`. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  const dot = domain.lastIndexOf('.');
  const host = dot > 0 ? domain.slice(0, dot) : domain;
  const tld = dot > 0 ? domain.slice(dot) : '';
  return `${local[0]}***@${host[0] ?? ''}***${tld}`;
}

export function consentUrl(base: string, token: string): string {
  return `${base}/consent/${token}`;
}

export function revokeUrl(base: string, token: string): string {
  return `${base}/consent/revoke/${token}`;
}

export function toVoice(base: string, r: VoiceRow): Voice {
  const awaiting = r.status === 'awaiting_consent';
  return {
    id: r.id,
    name: r.name,
    kind: 'clone',
    active: r.status === 'ready',
    gender: null,
    status: r.status,
    consent_url: awaiting ? consentUrl(base, r.consent_token) : null,
    language: r.language,
    person: { name: r.person_name, email: maskEmail(r.person_email) },
    failure_code: r.failure_code,
    // The consent link's lapse, while it can still be used (and once it lapsed).
    expires_at: awaiting || r.status === 'expired' ? r.link_expires_at.toISOString() : null,
    created_at: r.created_at.toISOString(),
    livemode: r.livemode,
  };
}

/** data.object of voice.* events: the voice without its person (never the e-mail) and without the link. */
export function eventObject(r: VoiceRow) {
  return {
    id: r.id, object: 'voice', name: r.name, kind: 'clone', status: r.status, active: r.status === 'ready', language: r.language,
    failure_code: r.failure_code, created_at: r.created_at.toISOString(), livemode: r.livemode,
  };
}

type Catalog = (typeof CATALOG_VOICES)[number];

function genericVoice(c: Catalog, choice: { created_at: Date; livemode: boolean }, active = true): Voice {
  return {
    id: c.id, name: c.name, kind: 'generic', active, gender: c.gender, language: c.accent,
    created_at: choice.created_at.toISOString(), livemode: choice.livemode,
  };
}

const catalogVoice = (id: string) => CATALOG_VOICES.find((c) => c.id === id);

/** The test helper completes a consent for the API client: never in live mode, where only the person gives it, on the consent page. */
function assertTestKey(cred: Caller): void {
  if (cred.livemode) {
    throw new ApiError('not_available_yet', 'The consent test helper is for test keys only: in live mode the person gives their consent themselves, on the consent page (consent_url)');
  }
}

async function orgNameOf(db: Queryable, orgId: string): Promise<string> {
  const { rows } = await db.query(prepared(`SELECT name FROM organizations WHERE id = $1`, [orgId]));
  return (rows[0]?.name as string | undefined) ?? orgId;
}

/** The voice's timer, a pg-boss job in tx, at `at` on the service clock. */
async function armTimer(s: Services, tx: Client, job: VoiceTimerJob, at: Date): Promise<void> {
  const offset = Date.now() - now(s).getTime();
  await s.boss.send(VOICE_TIMER_QUEUE, job, { ...inTx(tx), startAfter: new Date(at.getTime() + offset) });
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
  const mail = requestMail({ person: row.person_name, org: await orgNameOf(tx, cred.orgId), voice: row.name, purpose: row.purpose, url, expiresAt: row.link_expires_at, language: row.language });
  await queueMail(s, tx, { orgId: cred.orgId, livemode: cred.livemode, to: row.person_email, ...mail });
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

type RevokeBy = 'person' | 'organization';

type Revoked = VoiceRow & { consented_at: Date | null; provider: string | null; provider_voice_id: string | null; provider_deleted_at: Date | null };

/**
 * REVOKE in tx: the voice withdrawn, its recording deleted, its voice at the
 * provider queued for deletion (cloning.ts), the person told when they had consented.
 */
async function revokeLocked(s: Services, tx: Client, id: string, by: RevokeBy): Promise<Transition<Revoked>> {
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
    const mail = revokedMail({ person: t.row.person_name, org: await orgNameOf(tx, t.row.org_id), voice: t.row.name, byPerson: by === 'person', language: t.row.language });
    await queueMail(s, tx, { orgId: t.row.org_id, livemode: t.row.livemode, to: t.row.person_email, ...mail });
  }
  return t;
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
async function consentLocked(s: Services, tx: Client, id: string, proof: ConsentProof): Promise<Transition<VoiceRow>> {
  const at = now(s);
  const revokeToken = randomBytes(24).toString('base64url');
  const t = await transition<VoiceRow>(tx, 'voice', id, { type: 'CONSENT' }, {
    returning: VOICE_COLUMNS,
    objectFor: (row) => eventObject(row),
    set: () => ({
      consented_at: at, consent_method: proof.method, consent_sentence: proof.sentence, consent_ip: proof.ip ?? null,
      consent_user_agent: proof.userAgent ? proof.userAgent.slice(0, 500) : null, revoke_token: revokeToken,
      code_hash: null, verified_hash: null,
    }),
  });
  if (!t.changed) return t;
  // A live voice is made by the cloning engine (cloning.ts); a test voice by the simulator.
  if (t.row.livemode) await queueClone(s, tx, id);
  else await armTimer(s, tx, { voiceId: id, kind: 'process' }, at);
  const mail = confirmationMail({
    person: t.row.person_name, org: await orgNameOf(tx, t.row.org_id), voice: t.row.name, sentence: proof.sentence, at,
    revokeUrl: revokeUrl(s.config.publicBaseUrl, revokeToken), language: t.row.language,
  });
  await queueMail(s, tx, { orgId: t.row.org_id, livemode: t.row.livemode, to: t.row.person_email, ...mail });
  return t;
}

/** The sentence of a voice, for its person, its organization and the day. */
export async function sentenceOf(db: Queryable, r: VoiceRow, at: Date) {
  return consentSentence(r.language, { person: r.person_name, org: await orgNameOf(db, r.org_id), voice: r.name, date: at });
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

/** A voice timer fired (VOICE_TIMER_QUEUE): the link lapsed, or the recording is to be processed. */
export async function fireVoiceTimer(s: Services, job: VoiceTimerJob): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<VoiceRow>(prepared(`SELECT ${VOICE_COLUMNS} FROM voices WHERE id = $1 FOR UPDATE`, [job.voiceId]));
    if (!rows[0]) return;
    const opts = { returning: VOICE_COLUMNS, objectFor: (row: VoiceRow) => eventObject(row) };
    if (job.kind === 'expire') {
      await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'EXPIRE' }, { ...opts, set: () => ({ code_hash: null, verified_hash: null }) });
      return;
    }
    // Live voices are made by the cloning engine (cloning.ts), never by the simulator.
    if (rows[0].status !== 'processing' || rows[0].livemode) return;
    // The simulator's cloning: a recording with too little sound makes no voice.
    const rec = await tx.query<{ sound_ms: number }>(prepared(`SELECT sound_ms FROM voice_recordings WHERE voice_id = $1`, [job.voiceId]));
    const sound = rec.rows[0]?.sound_ms;
    if (sound !== undefined && sound < MIN_SPEECH_MS) {
      await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'FAIL' }, { ...opts, set: () => ({ failure_code: 'insufficient_speech' }) });
      await tx.query(prepared(`DELETE FROM voice_recordings WHERE voice_id = $1`, [job.voiceId]));
      return;
    }
    await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'READY' }, opts);
  });
}

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

/** The voice a session speaks with now: its own while it is still usable, else the default voice (null). */
export async function voiceInUse(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null): Promise<string | null> {
  if (!voiceId) return null;
  return (await whyUnusable(db, owner, voiceId)) === null ? voiceId : null;
}

// ---- The consent page's steps (voices/consent-page.ts) --------------------

/** A consent token as made here (randomBytes(24) in base64url); anything else is looked up nowhere. */
export const TOKEN = /^[A-Za-z0-9_-]{32}$/;

export type ConsentRow = VoiceRow & {
  code_hash: string | null; code_expires_at: Date | null; code_attempts: number; codes_sent: number; code_sent_at: Date | null;
  verified_hash: string | null; verified_until: Date | null; recording_attempts: number; consented_at: Date | null;
};
const CONSENT_COLUMNS = `${VOICE_COLUMNS}, code_hash, code_expires_at, code_attempts, codes_sent, code_sent_at, verified_hash, verified_until, recording_attempts, consented_at`;

/** The voice of a consent link (its page shows it in every state), or null. */
export async function voiceByConsentToken(db: Queryable, token: string, lock = false): Promise<ConsentRow | null> {
  if (!TOKEN.test(token)) return null;
  const { rows } = await db.query<ConsentRow>(prepared(
    `SELECT ${CONSENT_COLUMNS} FROM voices WHERE consent_token = $1 ${lock ? 'FOR UPDATE' : ''}`, [token],
  ));
  return rows[0] ?? null;
}

/** Whether a consent link still works at t (its timer may be a moment behind). */
export function linkOpen(r: VoiceRow, t: Date): boolean {
  return r.status === 'awaiting_consent' && r.link_expires_at.getTime() > t.getTime();
}

function hashSecret(voiceId: string, secret: string): string {
  return createHash('sha256').update(`${voiceId}:${secret}`).digest('base64url');
}

function sameHash(a: string | null, b: string): boolean {
  if (!a) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Why a link that is not open no longer works, as the page says it (409). */
function closed(r: VoiceRow, t: Date): ApiError {
  const why: Record<string, string> = {
    processing: 'This consent was already given; the link cannot be used again.',
    ready: 'This consent was already given; the link cannot be used again.',
    failed: 'This consent was already given; the link cannot be used again.',
    revoked: 'This request was withdrawn; the link no longer works.',
    expired: 'This link has expired; ask for a new one.',
  };
  const msg = r.status === 'awaiting_consent' && r.link_expires_at.getTime() <= t.getTime() ? why.expired! : why[r.status] ?? 'This link no longer works.';
  return new ApiError('conflict', `link: ${msg}`);
}

/** Sends the person a one-time code (the page's first step). */
export async function sendCode(s: Services, token: string, limits?: (personEmail: string) => Quota[]) {
  return withTx(s.pool, async (tx) => {
    const r = await voiceByConsentToken(tx, token, true);
    if (!r) throw notFound('consent link', token);
    const t = now(s);
    if (!linkOpen(r, t)) throw closed(r, t);
    // For good on this link: Retry-After is when the link closes anyway.
    const linkLeft = { 'Retry-After': String(Math.max(1, Math.ceil((r.link_expires_at.getTime() - t.getTime()) / 1000))) };
    if (r.codes_sent >= MAX_CODES) {
      throw new ApiError('rate_limited', `code: ${MAX_CODES} codes were sent for this link already; ask the requester for a new link`, linkLeft);
    }
    const wait = r.code_sent_at ? r.code_sent_at.getTime() + CODE_RESEND_MS - t.getTime() : 0;
    if (wait > 0) throw new ApiError('rate_limited', `code: a code was sent moments ago; wait ${Math.ceil(wait / 1000)} s before asking for another`, { 'Retry-After': String(Math.ceil(wait / 1000)) });
    // The page's request is anonymous: the mail limits of the public pages (per client and recipient).
    if (limits) await takeQuotas(tx, limits(r.person_email), t.getTime());
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    await tx.query(prepared(
      `UPDATE voices SET code_hash = $2, code_expires_at = $3, code_attempts = 0, codes_sent = codes_sent + 1, code_sent_at = $4 WHERE id = $1`,
      [r.id, hashSecret(r.id, code), new Date(t.getTime() + CODE_TTL_MS), t],
    ));
    const mail = codeMail({ code, org: await orgNameOf(tx, r.org_id), minutes: CODE_TTL_MS / 60_000, language: r.language });
    await queueMail(s, tx, { orgId: r.org_id, livemode: r.livemode, to: r.person_email, ...mail });
    return { sent_to: maskEmail(r.person_email), expires_in: CODE_TTL_MS / 1000, codes_left: MAX_CODES - r.codes_sent - 1 };
  });
}

/**
 * Checks the code (the page's second step). Right: a secret for the page to
 * send with the recording, and the sentence to read. Wrong: 400 with the tries
 * left; the last wrong try voids the code.
 */
export async function verifyCode(s: Services, token: string, code: string) {
  const r = await withTx(s.pool, async (tx) => {
    const v = await voiceByConsentToken(tx, token, true);
    if (!v) throw notFound('consent link', token);
    const t = now(s);
    if (!linkOpen(v, t)) throw closed(v, t);
    if (!v.code_hash || !v.code_expires_at) throw invalid('code', 'ask for a code first');
    if (v.code_expires_at.getTime() <= t.getTime()) throw invalid('code', 'this code has expired; ask for a new one');
    if (!sameHash(v.code_hash, hashSecret(v.id, code))) {
      // The wrong try is counted (and committed: the answer is an error, thrown once the transaction is done).
      const attempts = v.code_attempts + 1;
      const left = CODE_MAX_ATTEMPTS - attempts;
      await tx.query(prepared(
        `UPDATE voices SET code_attempts = $2, code_hash = CASE WHEN $3 THEN NULL ELSE code_hash END WHERE id = $1`, [v.id, attempts, left <= 0],
      ));
      return { ok: false as const, left };
    }
    const secret = randomBytes(24).toString('base64url');
    await tx.query(prepared(
      `UPDATE voices SET code_hash = NULL, verified_hash = $2, verified_until = $3 WHERE id = $1`,
      [v.id, hashSecret(v.id, secret), new Date(t.getTime() + VERIFIED_TTL_MS)],
    ));
    const sentence = await sentenceOf(tx, v, t);
    return { ok: true as const, secret, sentence: sentence.text, sentence_lang: sentence.lang };
  });
  if (!r.ok) throw invalid('code', r.left > 0 ? `wrong code; ${r.left} ${r.left === 1 ? 'try' : 'tries'} left` : 'wrong code; too many tries, ask for a new code');
  return { secret: r.secret, sentence: r.sentence, sentence_lang: r.sentence_lang };
}

/** Checks the page's secret on a locked, open link (the recording's step). */
function assertVerified(r: ConsentRow, secret: string, t: Date): void {
  if (!r.verified_hash || !r.verified_until || r.verified_until.getTime() <= t.getTime() || !sameHash(r.verified_hash, hashSecret(r.id, secret))) {
    throw new ApiError('unauthorized', 'code: confirm your e-mail address with a code first (or again: the confirmation lapsed)');
  }
}

/** Counts a recording sent for a link before it is decoded (at most MAX_RECORDINGS); checks the page's secret. */
export async function admitRecording(s: Services, token: string, secret: string): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const r = await voiceByConsentToken(tx, token, true);
    if (!r) throw notFound('consent link', token);
    const t = now(s);
    if (!linkOpen(r, t)) throw closed(r, t);
    assertVerified(r, secret, t);
    if (r.recording_attempts >= MAX_RECORDINGS) {
      throw new ApiError('rate_limited', `recording: ${MAX_RECORDINGS} recordings were sent for this link already`, {
        'Retry-After': String(Math.max(1, Math.ceil((r.link_expires_at.getTime() - t.getTime()) / 1000))),
      });
    }
    await tx.query(prepared(`UPDATE voices SET recording_attempts = recording_attempts + 1 WHERE id = $1`, [r.id]));
  });
}

export type Recording = { contentType: string; audio: Buffer; durationMs: number; soundMs: number };

/** The recording passed its checks: it is kept and the consent completed (`processing`). Once per link. */
export async function consentWithRecording(s: Services, token: string, secret: string, rec: Recording, who: { ip: string | null; userAgent: string | null }) {
  return withTx(s.pool, async (tx) => {
    const r = await voiceByConsentToken(tx, token, true);
    if (!r) throw notFound('consent link', token);
    const t = now(s);
    if (!linkOpen(r, t)) throw closed(r, t);
    assertVerified(r, secret, t);
    // The sentence as the page showed it when the code was confirmed (its day is that day's).
    const sentence = (await sentenceOf(tx, r, new Date(r.verified_until!.getTime() - VERIFIED_TTL_MS))).text;
    await tx.query(prepared(
      `INSERT INTO voice_recordings (voice_id, content_type, audio, duration_ms, sound_ms) VALUES ($1, $2, $3, $4, $5)`,
      [r.id, rec.contentType, rec.audio, rec.durationMs, rec.soundMs],
    ));
    const c = await consentLocked(s, tx, r.id, { method: 'page', sentence, ip: who.ip, userAgent: who.userAgent });
    return { status: c.row.status };
  });
}

/** The voice of a revoke link, or null. */
export async function voiceByRevokeToken(db: Queryable, token: string): Promise<(VoiceRow & { revoked_at: Date | null; revoked_by: string | null }) | null> {
  if (!TOKEN.test(token)) return null;
  const { rows } = await db.query(prepared(`SELECT ${VOICE_COLUMNS}, revoked_at, revoked_by FROM voices WHERE revoke_token = $1`, [token]));
  return (rows[0] as (VoiceRow & { revoked_at: Date | null; revoked_by: string | null }) | undefined) ?? null;
}

/** The person withdraws the consent (the receipt's link, confirmed on its page). Withdrawing again changes nothing. */
export async function revokeByPerson(s: Services, token: string): Promise<VoiceRow | null> {
  return withTx(s.pool, async (tx) => {
    const r = await voiceByRevokeToken(tx, token);
    if (!r) return null;
    const t = await revokeLocked(s, tx, r.id, 'person');
    return t.row;
  });
}
