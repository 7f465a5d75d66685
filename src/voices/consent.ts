import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { orgName } from '../db/organizations.ts';
import { takeQuotas, type Quota } from '../http/quotas.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { now, type Services } from '../services.ts';
import { codeMail } from './texts.ts';
import { maskEmail, VOICE_COLUMNS, type VoiceRow } from './rows.ts';
import { consentLocked, revokeLocked, sentenceOf } from './transitions.ts';

// The consent page's steps (voices/pages/): a one-time code to the
// request's address, the code checked (a secret for the page and the
// sentence to read), the recording admitted, then kept with the consent;
// and the receipt's link that withdraws it.

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
/** The largest recording accepted (two minutes of Opus are well under 2 MiB). */
export const MAX_RECORDING_BYTES = 5 * 1024 * 1024;

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

/** The link's voice, locked, while the link works (404 for no such link, 409 once it closed), and the time of the step. */
async function openLink(s: Services, tx: Client, token: string): Promise<{ r: ConsentRow; t: Date }> {
  const r = await voiceByConsentToken(tx, token, true);
  if (!r) throw notFound('consent link', token);
  const t = now(s);
  if (!linkOpen(r, t)) throw closed(r, t);
  return { r, t };
}

/** An open link whose code was confirmed with the page's secret, not long ago (the recording's steps; 401 otherwise). */
async function verifiedLink(s: Services, tx: Client, token: string, secret: string): Promise<{ r: ConsentRow; t: Date }> {
  const { r, t } = await openLink(s, tx, token);
  if (!r.verified_hash || !r.verified_until || r.verified_until.getTime() <= t.getTime() || !sameHash(r.verified_hash, hashSecret(r.id, secret))) {
    throw new ApiError('unauthorized', 'code: confirm your e-mail address with a code first (or again: the confirmation lapsed)');
  }
  return { r, t };
}

/** Sends the person a one-time code (the page's first step). */
export async function sendCode(s: Services, token: string, limits?: (personEmail: string) => Quota[]) {
  return withTx(s.pool, async (tx) => {
    const { r, t } = await openLink(s, tx, token);
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
    const mail = codeMail({ code, org: await orgName(tx, r.org_id), minutes: CODE_TTL_MS / 60_000, language: r.language });
    await s.reactions.queueMail(s, tx, { orgId: r.org_id, livemode: r.livemode, to: r.person_email, ...mail });
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
    const { r: v, t } = await openLink(s, tx, token);
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

/** Counts a recording sent for a verified link before it is decoded (at most MAX_RECORDINGS). */
export async function admitRecording(s: Services, token: string, secret: string): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { r, t } = await verifiedLink(s, tx, token, secret);
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
    const { r } = await verifiedLink(s, tx, token, secret);
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

type RevokeRow = VoiceRow & { revoked_at: Date | null; revoked_by: string | null };

/** The voice of a revoke link, or null. */
export async function voiceByRevokeToken(db: Queryable, token: string): Promise<RevokeRow | null> {
  if (!TOKEN.test(token)) return null;
  const { rows } = await db.query<RevokeRow>(prepared(`SELECT ${VOICE_COLUMNS}, revoked_at, revoked_by FROM voices WHERE revoke_token = $1`, [token]));
  return rows[0] ?? null;
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
