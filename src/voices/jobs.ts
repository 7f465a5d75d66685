import type { CapabilityJobs } from '../jobs/capability.ts';
import { VOICE_TIMER_QUEUE, fireVoiceTimer, type VoiceTimerJob } from './simulated-cloning.ts';
import {
  CLONE_RETRY, cloneVoice, deleteProviderVoice, PROVIDER_DELETE_RETRY, VOICE_CLONE_QUEUE, VOICE_PROVIDER_DELETE_QUEUE,
  type CloneJob, type ProviderDeleteJob,
} from './cloning.ts';

/**
 * Voices' durable work (voices/simulated-cloning.ts, voices/cloning.ts): a consent
 * link's lapse, and the processing of a consented test voice (the
 * simulator's cloning, due at once: `ready` within the 2 s operator.md gives
 * test mode); a consented live voice made at the cloning engine, and a
 * withdrawn voice deleted there. Each job carries its own retries (cloning.ts);
 * the queues' are the same, for jobs sent without them.
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
    {
      name: VOICE_CLONE_QUEUE,
      // An attempt uploads the recording (the request gives up after 60 s).
      options: { notify: true, expireInSeconds: 120, ...CLONE_RETRY, deleteAfterSeconds: 7 * 24 * 3600 },
      work: { batchSize: 1, localConcurrency: 2, includeMetadata: true, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      handle: async (s, jobs) => {
        for (const j of jobs) await cloneVoice(s, j.data as CloneJob, j);
      },
    },
    {
      name: VOICE_PROVIDER_DELETE_QUEUE,
      options: { notify: true, expireInSeconds: 120, ...PROVIDER_DELETE_RETRY, deleteAfterSeconds: 7 * 24 * 3600 },
      work: { batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: 0.5 },
      handle: async (s, jobs) => {
        for (const j of jobs) await deleteProviderVoice(s, j.data as ProviderDeleteJob);
      },
    },
  ],
};
