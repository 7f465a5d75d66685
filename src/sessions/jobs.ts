import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';

/** What rooms said (their logs) is kept a day after the room ended: the transcripts of its sessions keep the conversation. */
export const sessionJobs: CapabilityJobs = {
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
