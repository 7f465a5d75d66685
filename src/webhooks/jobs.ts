import { deleteWhere, type CapabilityJobs } from '../jobs/capability.ts';
import { WEBHOOK_DELIVER_QUEUE, attemptDeliveries, type DeliveryJob } from './delivery.ts';

export const webhookJobs: CapabilityJobs = {
  queues: [
    {
      name: WEBHOOK_DELIVER_QUEUE,
      // One job per delivery attempt. An attempt takes at most the 10 s
      // response window, so a live worker beats well within heartbeatSeconds; a
      // job whose worker died is retried (retryLimit) by another process.
      // Retries of a failing endpoint are new jobs on the delivery schedule,
      // not pg-boss retries.
      options: { notify: true, expireInSeconds: 120, retryLimit: 5, retryDelay: 5, deleteAfterSeconds: 24 * 3600, heartbeatSeconds: 10 },
      // Attempts of one batch run in parallel; several batches at once, so one
      // slow endpoint (up to the 10 s window) does not hold up the others.
      work: { batchSize: 50, localConcurrency: 8, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 5, burstWhenBatchFull: true },
      handle: async (s, jobs) => {
        await attemptDeliveries(s, jobs.map((j) => j.data as DeliveryJob), 'schedule');
      },
    },
  ],
  // The event log (the outbox) and deliveries are kept 30 days; a row not
  // dispatched yet, or a delivery still pending, is kept whatever its age.
  retention: [
    deleteWhere('events', `DELETE FROM outbox o WHERE created_at < now() - interval '30 days'
      AND NOT EXISTS (SELECT 1 FROM outbox_queue q WHERE q.id = o.id)`),
    deleteWhere('deliveries', `DELETE FROM webhook_deliveries WHERE created_at < now() - interval '30 days' AND status <> 'pending'`),
  ],
};
