import { deleteWhere, type CapabilityJobs } from '../jobs/registry.ts';

/** What sessions heard, and what rooms said, is kept a day after the session or room ended: their transcripts keep the conversation. */
export const sessionJobs: CapabilityJobs = {
  retention: [
    deleteWhere(
      'sessionEvents',
      `DELETE FROM session_events e USING agent_sessions s
        WHERE e.session_id = s.id AND s.status = 'ended' AND s.ended_at < now() - interval '1 day'`,
    ),
    deleteWhere(
      'roomSegments',
      `DELETE FROM room_segments g USING rooms r
        WHERE g.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
    ),
  ],
};
