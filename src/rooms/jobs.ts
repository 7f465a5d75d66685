import type { CapabilityJobs } from '../jobs/capability.ts';
import { ROOM_EXPIRY_CRON, ROOM_EXPIRY_QUEUE, expireRooms } from './rooms.ts';
import { LEAVE_CHECK_QUEUE, PRESENCE_SWEEP_CRON, PRESENCE_SWEEP_QUEUE, checkLeave, sweepAbsent, type LeaveCheckJob } from './participants.ts';

/**
 * Instant rooms expire by one periodic sweep (every minute, over the index of
 * open rooms by expires_at) rather than one timer job per room: a room ends at
 * most about a minute after its expires_at, exactly once whichever process runs
 * the sweep.
 */
export const roomJobs: CapabilityJobs = {
  queues: [
    {
      name: ROOM_EXPIRY_QUEUE,
      cron: ROOM_EXPIRY_CRON,
      // One sweep at a time is enough; a second one queued meanwhile would find nothing.
      options: { policy: 'singleton' },
      handle: async (s) => {
        await expireRooms(s);
      },
    },
    {
      // People whose room page went quiet (closed without saying goodbye, lost its connection) leave.
      name: PRESENCE_SWEEP_QUEUE,
      cron: PRESENCE_SWEEP_CRON,
      options: { policy: 'singleton' },
      handle: async (s) => {
        await sweepAbsent(s);
      },
    },
    {
      // A page that unloaded (closed, or reloading) and did not come back: its person leaves.
      name: LEAVE_CHECK_QUEUE,
      options: { retryLimit: 5, retryDelay: 1, deleteAfterSeconds: 3600 },
      work: { batchSize: 20, pollingIntervalSeconds: 1 },
      handle: async (s, jobs) => {
        for (const j of jobs) await checkLeave(s, j.data as LeaveCheckJob);
      },
    },
  ],
};
