import type { CapabilityJobs } from '../jobs/registry.ts';
import { VOICE_TIMER_QUEUE, fireVoiceTimer, type VoiceTimerJob } from './voices.ts';

/**
 * Voices' durable timers (voices/voices.ts): a consent link's lapse, and the
 * processing of a consented voice (the simulator's cloning, due at once:
 * `ready` within the 2 s operator.md gives test mode).
 */
export const voiceJobs: CapabilityJobs = {
  queues: [
    {
      name: VOICE_TIMER_QUEUE,
      options: { retryLimit: 10, retryDelay: 2, retryBackoff: true, deleteAfterSeconds: 7 * 24 * 3600 },
      work: { batchSize: 1, pollingIntervalSeconds: 0.5 },
      handle: async (s, jobs) => {
        for (const j of jobs) await fireVoiceTimer(s, j.data as VoiceTimerJob);
      },
    },
  ],
};
