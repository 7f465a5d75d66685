import type { PgBoss } from 'pg-boss';
import type { Services } from '../services.ts';
import { callJobs } from '../calls/jobs.ts';
import { httpJobs } from '../http/jobs.ts';
import { mailJobs } from '../mail/jobs.ts';
import { meetingJobs } from '../meetings/jobs.ts';
import { roomJobs } from '../rooms/jobs.ts';
import { sessionJobs } from '../sessions/jobs.ts';
import { voiceJobs } from '../voices/jobs.ts';
import { webhookJobs } from '../webhooks/jobs.ts';
import type { CapabilityJobs, JobQueue } from './capability.ts';

// Background work, declared by each capability in its jobs.ts as plain data
// (jobs/capability.ts) and collected here, as src/routes.ts collects the
// routes: its pg-boss queues with their handlers, and its retention (what the
// hourly maintenance job deletes).

/** Every capability's background work. */
export const JOBS: CapabilityJobs[] = [callJobs, httpJobs, mailJobs, meetingJobs, roomJobs, sessionJobs, voiceJobs, webhookJobs];

/** Runs every capability's retention, hourly (jobs/workers.ts). */
export const MAINTENANCE_QUEUE = 'maintenance';
export const MAINTENANCE_CRON = '17 * * * *';

export function allQueues(): JobQueue[] {
  return JOBS.flatMap((c) => c.queues ?? []);
}

/** Creates every queue, and brings the options of existing ones up to date. */
export async function ensureQueues(boss: PgBoss): Promise<void> {
  await boss.createQueue(MAINTENANCE_QUEUE);
  for (const q of allQueues()) {
    await boss.createQueue(q.name, q.options);
    // createQueue leaves an existing queue as it was.
    if (q.options) {
      // heartbeatSeconds, policy and partition are fixed when a queue is created.
      const { heartbeatSeconds: _h, policy: _p, partition: _pt, deadLetter: _d, retryDelayMax: _r, ...updatable } = q.options;
      if (Object.keys(updatable).length) await boss.updateQueue(q.name, updatable);
    }
  }
}

/** Deletes what every capability keeps no longer; returns the rows removed, by retention name. */
export async function pruneExpired(s: Pick<Services, 'pool'>): Promise<Record<string, number>> {
  const removed: Record<string, number> = {};
  for (const r of JOBS.flatMap((c) => c.retention ?? [])) removed[r.name] = await r.prune(s.pool);
  return removed;
}
