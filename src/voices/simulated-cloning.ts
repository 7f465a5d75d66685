import type { Client } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { transition } from '../actors/store.ts';
import { inTx } from '../jobs/in-tx.ts';
import { now, type Services } from '../services.ts';
import { TRANSITION_OPTS, VOICE_COLUMNS, type VoiceRow } from './rows.ts';

// A voice's timer (VOICE_TIMER_QUEUE): the consent link's lapse, and the
// simulator's cloning of a consented test voice (`ready` moments later, or
// `failed` when its recording has too little speech). Live voices are made
// by the cloning engine (cloning.ts), never here.

/** The simulator's cloning needs this much sound in the recording, or the voice fails (insufficient_speech). */
export const MIN_SPEECH_MS = 1_500;

export const VOICE_TIMER_QUEUE = 'voice-timer';
export type VoiceTimerJob = { voiceId: string; kind: 'expire' | 'process' };

/** The voice's timer, a pg-boss job in tx, at `at` on the service clock. */
export async function armTimer(s: Services, tx: Client, job: VoiceTimerJob, at: Date): Promise<void> {
  const offset = Date.now() - now(s).getTime();
  await s.boss.send(VOICE_TIMER_QUEUE, job, { ...inTx(tx), startAfter: new Date(at.getTime() + offset) });
}

/** A voice timer fired: the link lapsed, or the recording is to be processed. */
export async function fireVoiceTimer(s: Services, job: VoiceTimerJob): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<VoiceRow>(prepared(`SELECT ${VOICE_COLUMNS} FROM voices WHERE id = $1 FOR UPDATE`, [job.voiceId]));
    if (!rows[0]) return;
    if (job.kind === 'expire') {
      await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'EXPIRE' }, { ...TRANSITION_OPTS, set: () => ({ code_hash: null, verified_hash: null }) });
      return;
    }
    if (rows[0].status !== 'processing' || rows[0].livemode) return;
    // A recording with too little sound makes no voice.
    const rec = await tx.query<{ sound_ms: number }>(prepared(`SELECT sound_ms FROM voice_recordings WHERE voice_id = $1`, [job.voiceId]));
    const sound = rec.rows[0]?.sound_ms;
    if (sound !== undefined && sound < MIN_SPEECH_MS) {
      await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'FAIL' }, { ...TRANSITION_OPTS, set: () => ({ failure_code: 'insufficient_speech' }) });
      await tx.query(prepared(`DELETE FROM voice_recordings WHERE voice_id = $1`, [job.voiceId]));
      return;
    }
    await transition<VoiceRow>(tx, 'voice', job.voiceId, { type: 'READY' }, TRANSITION_OPTS);
  });
}
