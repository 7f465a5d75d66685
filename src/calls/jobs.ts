import { withTx, type Client } from '../db/pool.ts';
import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';
import { inTx } from '../jobs/in-tx.ts';
import type { Services } from '../services.ts';
import { endCall } from './events.ts';

export const DIAL_QUEUE = 'call-dial';
export const MAX_DURATION_QUEUE = 'call-max-duration';

/**
 * What a placed call's transaction writes so that it is dialed: nothing when
 * this process has a gateway (it dials the call once committed, and the
 * gateways' sweep is the fallback); otherwise a dial job any gateway takes.
 * (A job per call cost the database more than the rest of the placing.)
 */
export async function writeDialJob(s: Services, tx: Client, callId: string): Promise<void> {
  if (s.gateway) return;
  await s.boss.send(DIAL_QUEUE, { callId }, inTx(tx));
}

/** The per-call limit's timer, written in the answer's transaction. */
export async function writeMaxDurationJob(s: Services, tx: Client, callId: string, seconds: number): Promise<void> {
  await s.boss.send(MAX_DURATION_QUEUE, { callId }, { ...inTx(tx), startAfter: Math.max(1, Math.ceil(seconds)) });
}

/**
 * Calls' durable work: the dial job (of a call placed through a process that
 * runs no gateway), the per-call limit's timer, and the retention of what
 * was said on calls' lines (their transcripts keep it).
 */
export const callJobs: CapabilityJobs = {
  queues: [
    {
      name: DIAL_QUEUE,
      // Sent without delay (notify wakes a worker at once).
      options: { notify: true, expireInSeconds: 60, retryLimit: 3, retryDelay: 2, deleteAfterSeconds: 3600 },
      // Worked in batches, one claim statement each.
      work: { batchSize: 200, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 1 },
      handle: async (s, jobs) => {
        // Every worker process runs a gateway (jobs-registry.ts startWorkers); without one the job is retried elsewhere.
        if (!s.gateway) throw new Error('no call gateway in this process');
        await s.gateway.dial(...jobs.map((j) => j.data.callId as string));
      },
    },
    {
      name: MAX_DURATION_QUEUE,
      // Always delayed (the limit's length): found by polling, within half a second.
      options: { notify: false, expireInSeconds: 60, retryLimit: 5, retryDelay: 1, deleteAfterSeconds: 3600 },
      work: { batchSize: 20, pollingIntervalSeconds: 0.5 },
      handle: async (s, jobs) => {
        // Accepted only while answered: a call that ended meanwhile is left as it is.
        for (const j of jobs) await withTx(s.pool, (tx) => endCall(s, tx, j.data.callId, { type: 'MAX_DURATION' }));
      },
    },
  ],
  retention: [
    deleteWhere(
      'callSegments',
      `DELETE FROM room_segments g USING calls c
        WHERE g.room_id = c.id AND c.ended_at < now() - interval '1 day'`,
    ),
    deleteWhere(
      'callTranslations',
      `DELETE FROM room_translations t USING calls c
        WHERE t.room_id = c.id AND c.ended_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM transcript_segments s WHERE s.log_id = t.room_id AND s.seq = t.seq)`,
    ),
    deleteWhere(
      'callLogs',
      `DELETE FROM room_logs l USING calls c
        WHERE l.room_id = c.id AND c.ended_at < now() - interval '1 day'`,
    ),
    deleteWhere(
      'gateways',
      `DELETE FROM gateways g WHERE g.heartbeat_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM calls c WHERE c.gateway_id = g.id AND c.status IN ('queued', 'ringing', 'answered'))`,
    ),
  ],
};
