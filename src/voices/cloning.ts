import type { Client, Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { transition } from '../actors/store.ts';
import { inTx } from '../jobs/in-tx.ts';
import { ApiError } from '../errors.ts';
import { EngineError } from '../engines/errors.ts';
import { cloningEngineOf, clonedVoiceRef, type CloningEngine } from '../engines/elevenlabs/voices.ts';
import type { Caller, Services } from '../services.ts';
import { TRANSITION_OPTS, type VoiceRow } from './rows.ts';

// Live cloning: a live clone is made at the cloning engine, ElevenLabs'
// instant voice cloning (engines/elevenlabs/voices.ts), configured
// exactly when TOLK_SPEECH_ENGINES names `elevenlabs` and ELEVENLABS_API_KEY
// is set; without it live keys answer 501 not_available_yet. Test keys
// never reach the provider: their voices are the simulator's
// (simulated-cloning.ts).
//
// Once the person's consent is complete (their recording passed its checks)
// the voice is `processing` and a pg-boss job (VOICE_CLONE_QUEUE), written
// in the consent's transaction, sends the recording to the provider. Its
// voice id is kept on the voice (provider_voice_id) and the voice goes
// `ready`; the synthesizer speaks it with that id (speechVoice). A provider
// that is down, busy (429) or failing (5xx) is tried again with backoff
// (the job's retries); after the last try, or at once on an answer that
// cannot change (400, 401, 422…), the voice is `failed` with a
// failure_code (provider_unavailable, provider_rejected) and the provider's
// answer in provider_error, and its recording is deleted. A provider voice
// that needs the provider's own verification cannot be spoken: the voice
// fails (provider_verification_required) and the provider's voice is deleted.
//
// Withdrawing the consent (DELETE /v1/voices/{id}, or the person's link)
// revokes the voice at once and queues, in the same transaction, the
// deletion of the provider's voice (VOICE_PROVIDER_DELETE_QUEUE), retried
// with backoff for weeks until the provider confirms it (a 404 counts:
// the provider no longer has it); provider_deleted_at records it. A voice
// revoked while the provider was making it is deleted there as soon as its
// id is known.
//
// A process that dies after the provider made the voice and before the
// voice row recorded it leaves that provider voice behind (the job runs
// again and makes another); the provider's voice carries the Tolk voice id
// in its labels (`tolk_voice`), so the operator can find it.

export const VOICE_CLONE_QUEUE = 'voice-clone';
export const VOICE_PROVIDER_DELETE_QUEUE = 'voice-provider-delete';

export type CloneJob = { voiceId: string };
export type ProviderDeleteJob = { voiceId: string; provider: string; providerVoiceId: string };

/** The clone job's tries: the first and 8 retries, from about 2 s apart to at most 10 minutes (about half an hour in all). */
export const CLONE_RETRY = { retryLimit: 8, retryDelay: 2, retryBackoff: true, retryDelayMax: 600 } as const;
/** The provider deletion's tries: retried with backoff up to an hour apart, for about 40 days. */
export const PROVIDER_DELETE_RETRY = { retryLimit: 1000, retryDelay: 2, retryBackoff: true, retryDelayMax: 3600 } as const;

/** Live cloning needs a cloning engine: 501 not_available_yet, saying what the operator must configure, when there is none. */
export function assertCloningAvailable(s: Services, cred: Caller): void {
  if (!cred.livemode || cloningEngineOf(s.config)) return;
  throw new ApiError(
    'not_available_yet',
    'Voice cloning in live mode needs a cloning engine, and this server has none: its operator must add elevenlabs to TOLK_SPEECH_ENGINES and set ELEVENLABS_API_KEY. Test keys run the consent flow on the simulator.',
  );
}

/** The clone job, in the consent's transaction. */
export async function queueClone(s: Services, tx: Client, voiceId: string): Promise<void> {
  await s.boss.send(VOICE_CLONE_QUEUE, { voiceId } satisfies CloneJob, { ...inTx(tx), ...CLONE_RETRY });
}

/** The provider's voice to be deleted, in the transaction that revoked (or failed) the voice. */
export async function queueProviderDelete(s: Services, tx: Client, job: ProviderDeleteJob): Promise<void> {
  await s.boss.send(VOICE_PROVIDER_DELETE_QUEUE, job, { ...inTx(tx), ...PROVIDER_DELETE_RETRY });
}

type Attempt = { retryCount?: number; retryLimit?: number };

type Cloning = Pick<VoiceRow, 'id' | 'org_id' | 'livemode' | 'name' | 'language' | 'status'> & { audio: Buffer | null; content_type: string | null };

/**
 * The clone job (VOICE_CLONE_QUEUE): the recording sent to the provider and
 * the voice `ready` with the provider's id; or, when the provider cannot
 * make it, `failed`. A failure that may pass is thrown (pg-boss retries the
 * job) unless it is the last try (`attempt`: the job's retryCount and retryLimit).
 */
export async function cloneVoice(s: Services, job: CloneJob, attempt: Attempt = {}, engine: CloningEngine | null = cloningEngineOf(s.config)): Promise<void> {
  const { rows } = await s.pool.query<Cloning>(prepared(
    `SELECT v.id, v.org_id, v.livemode, v.name, v.language, v.status, r.audio, r.content_type
       FROM voices v LEFT JOIN voice_recordings r ON r.voice_id = v.id WHERE v.id = $1`, [job.voiceId],
  ));
  const v = rows[0];
  // Done already (a duplicate or late job), revoked meanwhile, or a test voice (never sent to a provider).
  if (!v || v.status !== 'processing' || !v.livemode) return;
  const last = attempt.retryLimit !== undefined && (attempt.retryCount ?? 0) >= attempt.retryLimit;
  if (!v.audio || !v.content_type) {
    await failVoice(s, v.id, 'provider_rejected', 'the consent recording is missing');
    return;
  }
  if (!engine) {
    // The operator removed the cloning engine after the consent: wait for it until the last try.
    const msg = 'no cloning engine is configured (TOLK_SPEECH_ENGINES with elevenlabs and ELEVENLABS_API_KEY)';
    if (!last) throw new Error(msg);
    await failVoice(s, v.id, 'provider_unavailable', msg);
    return;
  }
  let made;
  try {
    made = await engine.add({
      name: v.name, audio: v.audio, contentType: v.content_type,
      description: `Cloned with the consent of the person whose voice it is (Tolk voice ${v.id})`,
      labels: { language: v.language, tolk_voice: v.id },
    });
  } catch (err) {
    const e = err instanceof EngineError ? err : new EngineError(String((err as Error)?.message ?? err));
    if (!e.permanent && !last) {
      await s.pool.query(prepared(`UPDATE voices SET provider_error = $2 WHERE id = $1`, [v.id, e.message.slice(0, 1000)]));
      throw e;
    }
    await failVoice(s, v.id, e.permanent ? 'provider_rejected' : 'provider_unavailable', e.message);
    return;
  }
  await withTx(s.pool, async (tx) => {
    const { rows: now } = await tx.query<{ status: string }>(prepared(`SELECT status FROM voices WHERE id = $1 FOR UPDATE`, [v.id]));
    const record = { provider: engine.name, provider_voice_id: made.voiceId };
    const drop = () => queueProviderDelete(s, tx, { voiceId: v.id, provider: engine.name, providerVoiceId: made.voiceId });
    if (now[0]?.status !== 'processing') {
      // Revoked while the provider was making it: the provider's voice goes too.
      await tx.query(prepared(`UPDATE voices SET provider = $2, provider_voice_id = $3 WHERE id = $1`, [v.id, record.provider, record.provider_voice_id]));
      await drop();
      return;
    }
    if (made.requiresVerification) {
      await transition<VoiceRow>(tx, 'voice', v.id, { type: 'FAIL' }, {
        ...TRANSITION_OPTS, set: () => ({ ...record, failure_code: 'provider_verification_required', provider_error: 'the provider requires its own verification before the voice can be used' }),
      });
      await tx.query(prepared(`DELETE FROM voice_recordings WHERE voice_id = $1`, [v.id]));
      await drop();
      return;
    }
    await transition<VoiceRow>(tx, 'voice', v.id, { type: 'READY' }, { ...TRANSITION_OPTS, set: () => ({ ...record, provider_error: null }) });
  });
}

/** FAIL with the reason, the provider's answer kept, the recording deleted (the voice will not be made). */
async function failVoice(s: Services, id: string, code: string, detail: string): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<{ status: string }>(prepared(`SELECT status FROM voices WHERE id = $1 FOR UPDATE`, [id]));
    if (rows[0]?.status !== 'processing') return;
    await transition<VoiceRow>(tx, 'voice', id, { type: 'FAIL' }, { ...TRANSITION_OPTS, set: () => ({ failure_code: code, provider_error: detail.slice(0, 1000) }) });
    await tx.query(prepared(`DELETE FROM voice_recordings WHERE voice_id = $1`, [id]));
  });
}

/**
 * The provider deletion job (VOICE_PROVIDER_DELETE_QUEUE): deleted (or
 * already gone: 404) → provider_deleted_at; anything else is thrown and
 * pg-boss tries again. Without a cloning engine configured it waits for one.
 */
export async function deleteProviderVoice(s: Services, job: ProviderDeleteJob, engine: CloningEngine | null = cloningEngineOf(s.config)): Promise<void> {
  if (!engine || engine.name !== job.provider) {
    throw new Error(`the provider voice of ${job.voiceId} is to be deleted at ${job.provider}, which is not configured (TOLK_SPEECH_ENGINES, ELEVENLABS_API_KEY)`);
  }
  await engine.remove(job.providerVoiceId);
  await s.pool.query(prepared(
    `UPDATE voices SET provider_deleted_at = now() WHERE id = $1 AND provider_voice_id = $2 AND provider_deleted_at IS NULL`,
    [job.voiceId, job.providerVoiceId],
  ));
}

/**
 * The voice the synthesizer is asked for when a voice id speaks: a ready live
 * clone made at a provider is `elevenlabs:<provider voice id>` (spoken by
 * ElevenLabs, engines/elevenlabs/voices.ts WithClonedVoices); any
 * other voice, or none, is undefined (the engines' default voice). Pass the
 * voice id voiceInUse answered (usable.ts), so a revoked voice is never spoken.
 */
export async function speechVoice(db: Queryable, owner: { orgId: string; livemode: boolean }, voiceId: string | null | undefined): Promise<string | undefined> {
  if (!voiceId || voiceId.startsWith('generic_')) return undefined;
  const { rows } = await db.query<{ provider: string | null; provider_voice_id: string | null }>(prepared(
    `SELECT provider, provider_voice_id FROM voices WHERE id = $1 AND org_id = $2 AND livemode = $3 AND status = 'ready'`,
    [voiceId, owner.orgId, owner.livemode],
  ));
  const r = rows[0];
  return r?.provider && r.provider_voice_id ? clonedVoiceRef(r.provider, r.provider_voice_id) : undefined;
}
