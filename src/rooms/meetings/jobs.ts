import type { CapabilityJobs } from '../../jobs/capability.ts';
import { MEETING_TIMER_QUEUE, fireTimer, type TimerJob } from './meetings.ts';

/**
 * Meetings' durable timers (rooms/meetings/meetings.ts armTimers): a meeting's
 * start, its end and its reminders, each a pg-boss job written in the
 * transaction that scheduled (or moved) the meeting. Always delayed, so found
 * by polling, within a second.
 */
export const meetingJobs: CapabilityJobs = {
  queues: [
    {
      name: MEETING_TIMER_QUEUE,
      options: { notify: false, expireInSeconds: 120, retryLimit: 10, retryDelay: 5, retryBackoff: true, deleteAfterSeconds: 7 * 24 * 3600 },
      // One job per batch: each timer commits on its own, so a failure retries that timer alone (never re-sends another's reminder).
      work: { batchSize: 1, pollingIntervalSeconds: 1 },
      handle: async (s, jobs) => {
        for (const j of jobs) await fireTimer(s, j.data as TimerJob);
      },
    },
  ],
};
