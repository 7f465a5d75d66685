import type { Services } from '../services/context.ts';
import { QUEUES } from './boss.ts';
import { endRoom } from '../services/rooms.ts';

/** Handlers of every queue; each sends an event to an actor or tidies tables. */
export async function startWorkers(s: Services, log: { error: (o: object, m: string) => void }): Promise<void> {
  await s.boss.work<{ roomId: string }>(QUEUES.roomExpire, async (jobs) => {
    for (const job of jobs) await endRoom(s, null, job.data.roomId, 'expired');
  });
  await s.boss.work(QUEUES.maintenance, async () => {
    await pruneExpired(s);
  });
  // Hourly; pg-boss keeps one schedule however many processes call this.
  await s.boss.schedule(QUEUES.maintenance, '17 * * * *').catch((err) => log.error({ err }, 'cannot schedule maintenance'));
}

/** Idempotency keys are kept 24 hours; rate-limit windows two days at most. */
export async function pruneExpired(s: Services): Promise<{ idempotencyKeys: number; counters: number }> {
  const a = await s.pool.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
  const b = await s.pool.query(`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'`);
  return { idempotencyKeys: a.rowCount ?? 0, counters: b.rowCount ?? 0 };
}
