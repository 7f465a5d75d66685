import type { Services } from '../services.ts';
import { MAINTENANCE_CRON, MAINTENANCE_QUEUE, allQueues, pruneExpired } from './registry.ts';
import { startDispatcher } from '../webhooks/dispatcher.ts';
import { startSimulator, type Simulator } from '../sim/engine.ts';

export { pruneExpired };

type Log = { error: (o: object, m: string) => void; warn?: (o: object, m: string) => void; info?: (o: object, m: string) => void };

export type Workers = { stop: () => Promise<void>; kickDispatcher: () => Promise<void>; simulator: Simulator };

/**
 * Works every capability's queues (jobs/registry.ts), runs the hourly
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
