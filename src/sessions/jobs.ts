import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';
import { finishRoomSay, SAY_FINISHED_QUEUE, type SayFinishedJob } from './signals.ts';

/**
 * Sessions' durable work: the end of a room's say (its say.finished), and the
 * retention of what rooms said (their logs), kept a day after the room ended:
 * the transcripts of its sessions keep the conversation.
 */
export const sessionJobs: CapabilityJobs = {
  queues: [
    {
      // A room's say ends by the speaking-rate estimate (signals.ts timeRoomSay).
      name: SAY_FINISHED_QUEUE,
      // Always delayed (the say's length): found by polling, within half a second.
      options: { notify: false, expireInSeconds: 60, retryLimit: 3, retryDelay: 1, deleteAfterSeconds: 3600 },
      work: { batchSize: 50, pollingIntervalSeconds: 0.5 },
      handle: async (s, jobs) => {
        for (const j of jobs) await finishRoomSay(s, j.data as SayFinishedJob);
      },
    },
  ],
  retention: [
    deleteWhere(
      'roomSegments',
      `DELETE FROM room_segments g USING rooms r
        WHERE g.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
    ),
    // Translations go with their phrases, but for those a transcript still reads (transcripts are kept longer).
    deleteWhere(
      'roomTranslations',
      `DELETE FROM room_translations t USING rooms r
        WHERE t.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'
          AND NOT EXISTS (SELECT 1 FROM transcript_segments s WHERE s.log_id = t.room_id AND s.seq = t.seq)`,
    ),
    deleteWhere(
      'roomLogs',
      `DELETE FROM room_logs l USING rooms r
        WHERE l.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
    ),
  ],
};
