import type { CapabilityJobs } from '../jobs/registry.ts';
import { ROOM_EXPIRE_QUEUE, endRoom } from './rooms.ts';

/** An instant room's durable expiry timer: one job per room, written in the room's creating transaction. */
export const roomJobs: CapabilityJobs = {
  queues: [
    {
      name: ROOM_EXPIRE_QUEUE,
      handle: async (s, jobs) => {
        for (const job of jobs) await endRoom(s, null, job.data.roomId, 'expired');
      },
    },
  ],
};
