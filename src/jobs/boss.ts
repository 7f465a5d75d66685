import { PgBoss } from 'pg-boss';

// Durable timers and background work. XState does not re-arm `after` timers
// when a persisted snapshot is restored, so every timer is a pg-boss job that
// sends an event to the actor when it fires. The queues are declared by each
// capability (its jobs.ts) and collected in src/jobs-registry.ts, whose
// startBoss creates them on the boss connected here.

export type Boss = PgBoss;

/** pg-boss, started, with no queue of its own (src/jobs-registry.ts startBoss adds every capability's). */
export async function connectBoss(
  url: string,
  opts: { workers: boolean; onError: (e: unknown) => void; monitorSeconds?: number },
): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: 4,
    supervise: opts.workers,
    schedule: opts.workers,
    // A job sent to a queue with notify wakes the workers of every process at
    // once (LISTEN/NOTIFY) instead of at their next poll.
    useListenNotify: opts.workers,
    // How often a supervising process looks for jobs whose heartbeat lapsed
    // (their worker was killed) and hands them to another worker.
    monitorIntervalSeconds: opts.monitorSeconds ?? 30,
    superviseIntervalSeconds: opts.monitorSeconds ?? 30,
  });
  boss.on('error', opts.onError);
  await boss.start();
  return boss;
}
