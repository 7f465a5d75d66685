import type { PgBoss } from 'pg-boss';
import type { Services } from './services.ts';
import { callJobs } from './calls/jobs.ts';
import { httpJobs } from './http/jobs.ts';
import { mailJobs } from './mail/jobs.ts';
import { meetingJobs } from './rooms/meetings/jobs.ts';
import { roomJobs } from './rooms/jobs.ts';
import { sessionJobs } from './sessions/jobs.ts';
import { voiceJobs } from './voices/jobs.ts';
import { webhookJobs } from './webhooks/jobs.ts';
import { startDispatcher } from './webhooks/dispatcher.ts';
import { startSimulator, type Simulator } from './sim/engine.ts';
import { connectBoss, type Boss } from './jobs/boss.ts';
import type { CapabilityJobs, JobQueue } from './jobs/capability.ts';

// Background work, declared by each capability in its jobs.ts as plain data
// (jobs/capability.ts) and collected here, as src/routes.ts collects the
// routes: its pg-boss queues with their handlers, and its retention (what the
// hourly maintenance job deletes). The boss that creates the queues and the
// workers that work them are started from here.

export type { Boss };

/** Every capability's background work. */
export const JOBS: CapabilityJobs[] = [callJobs, httpJobs, mailJobs, meetingJobs, roomJobs, sessionJobs, voiceJobs, webhookJobs];

/** Runs every capability's retention, hourly (startWorkers). */
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

/** pg-boss started, with every capability's queues created (a process that only sends jobs needs them too). */
export async function startBoss(
  url: string,
  opts: { workers: boolean; onError: (e: unknown) => void; monitorSeconds?: number },
): Promise<Boss> {
  const boss = await connectBoss(url, opts);
  await ensureQueues(boss);
  return boss;
}

type Log = { error: (o: object, m: string) => void; warn?: (o: object, m: string) => void; info?: (o: object, m: string) => void };

export type Workers = { stop: () => Promise<void>; kickDispatcher: () => Promise<void>; simulator: Simulator };

/**
 * Works every capability's queues (JOBS), runs the hourly
 * maintenance (retention), and starts the two loops that pg-boss's polling
 * is too slow for: the outbox dispatcher and the test-mode simulator. The
 * call gateway is not theirs: the platform starts it (platform.ts) and gives
 * it to the services before the workers, so the call queues find it there.
 */
export async function startWorkers(s: Services, databaseUrl: string, log: Log): Promise<Workers> {
  for (const q of allQueues()) await s.boss.work(q.name, q.work ?? {}, (jobs) => q.handle(s, jobs));
  await s.boss.work(MAINTENANCE_QUEUE, async () => {
    await pruneExpired(s);
  });
  // pg-boss keeps one schedule however many processes call this.
  await s.boss.schedule(MAINTENANCE_QUEUE, MAINTENANCE_CRON).catch((err) => log.error({ err }, 'cannot schedule maintenance'));
  for (const q of allQueues()) {
    if (q.cron) await s.boss.schedule(q.name, q.cron).catch((err) => log.error({ err }, `cannot schedule ${q.name}`));
  }
  const dispatcher = startDispatcher(s, databaseUrl, log);
  const simulator = startSimulator(s, log);
  return {
    stop: async () => {
      await simulator.stop();
      await dispatcher.stop();
    },
    kickDispatcher: dispatcher.kick,
    simulator,
  };
}
