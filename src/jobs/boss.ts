import { PgBoss } from 'pg-boss';
import type { Client } from '../db/pool.ts';

// Durable timers and background work. XState does not re-arm `after` timers
// when a persisted snapshot is restored, so every timer is a pg-boss job that
// sends an event to the actor when it fires.

export const QUEUES = {
  roomExpire: 'room-expire',
  maintenance: 'maintenance',
} as const;

export type Boss = PgBoss;

export async function startBoss(url: string, opts: { workers: boolean; onError: (e: unknown) => void }): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: 'pgboss',
    max: 4,
    supervise: opts.workers,
    schedule: opts.workers,
  });
  boss.on('error', opts.onError);
  await boss.start();
  for (const q of Object.values(QUEUES)) await boss.createQueue(q);
  return boss;
}

/** pg-boss options that write the job in the caller's transaction. */
export function inTx(tx: Client) {
  return { db: { executeSql: (text: string, values?: unknown[]) => tx.query(text, values as unknown[]) } };
}
