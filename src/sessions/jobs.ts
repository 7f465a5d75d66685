import { deleteWhere, type CapabilityJobs } from '../jobs/registry.ts';

/** What rooms said (their logs) is kept a day after the room ended: the transcripts of its sessions keep the conversation. */
export const sessionJobs: CapabilityJobs = {
  retention: [
    deleteWhere(
      'roomSegments',
      `DELETE FROM room_segments g USING rooms r
        WHERE g.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
    ),
    deleteWhere(
      'roomLogs',
      `DELETE FROM room_logs l USING rooms r
        WHERE l.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
    ),
  ],
};
