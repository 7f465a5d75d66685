import type { Services } from '../services/context.ts';
import { QUEUES } from './boss.ts';
import { endRoom } from '../services/rooms.ts';
import { attemptDeliveries, type DeliveryJob } from '../webhooks/delivery.ts';
import { startDispatcher } from '../webhooks/dispatcher.ts';
import { startSimulator, type Simulator } from '../sim/engine.ts';

export type Workers = { stop: () => Promise<void>; kickDispatcher: () => Promise<void>; simulator: Simulator };

/** Handlers of every queue; each sends an event to an actor, delivers webhooks or tidies tables. */
export async function startWorkers(s: Services, databaseUrl: string, log: { error: (o: object, m: string) => void }): Promise<Workers> {
  await s.boss.work<{ roomId: string }>(QUEUES.roomExpire, async (jobs) => {
    for (const job of jobs) await endRoom(s, null, job.data.roomId, 'expired');
  });
  // Attempts of one batch run in parallel; several batches at once, so one
  // slow endpoint (up to the 10 s window) does not hold up the others.
  await s.boss.work<DeliveryJob>(
    QUEUES.webhookDeliver,
    { batchSize: 50, localConcurrency: 8, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 5, burstWhenBatchFull: true },
    async (jobs) => {
      await attemptDeliveries(s, jobs.map((j) => j.data), 'schedule');
    },
  );
  await s.boss.work(QUEUES.maintenance, async () => {
    await pruneExpired(s);
  });
  // Hourly; pg-boss keeps one schedule however many processes call this.
  await s.boss.schedule(QUEUES.maintenance, '17 * * * *').catch((err) => log.error({ err }, 'cannot schedule maintenance'));
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

/**
 * Idempotency keys are kept 24 hours; rate-limit windows two days at most;
 * the event log (the outbox) and webhook deliveries 30 days; what sessions
 * heard, a day after they ended (their transcripts keep the conversation).
 */
export async function pruneExpired(s: Services): Promise<{ idempotencyKeys: number; counters: number; events: number; deliveries: number }> {
  const a = await s.pool.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
  const b = await s.pool.query(`DELETE FROM rate_limit_counters WHERE window_start < now() - interval '2 days'`);
  // The outbox is the event log; a row not dispatched yet is kept whatever its age.
  const c = await s.pool.query(`DELETE FROM outbox WHERE created_at < now() - interval '30 days' AND processed_at IS NOT NULL`);
  const d = await s.pool.query(`DELETE FROM webhook_deliveries WHERE created_at < now() - interval '30 days' AND status <> 'pending'`);
  await s.pool.query(
    `DELETE FROM session_events e USING agent_sessions s
      WHERE e.session_id = s.id AND s.status = 'ended' AND s.ended_at < now() - interval '1 day'`,
  );
  await s.pool.query(
    `DELETE FROM room_segments g USING rooms r
      WHERE g.room_id = r.id AND r.status = 'ended' AND r.ended_at < now() - interval '1 day'`,
  );
  return { idempotencyKeys: a.rowCount ?? 0, counters: b.rowCount ?? 0, events: c.rowCount ?? 0, deliveries: d.rowCount ?? 0 };
}
