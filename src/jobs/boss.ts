import { createHash } from 'node:crypto';
import { PgBoss } from 'pg-boss';
import type { Client } from '../db/pool.ts';

// Durable timers and background work. XState does not re-arm `after` timers
// when a persisted snapshot is restored, so every timer is a pg-boss job that
// sends an event to the actor when it fires.

export const QUEUES = {
  roomExpire: 'room-expire',
  maintenance: 'maintenance',
  webhookDeliver: 'webhook-deliver',
} as const;

export type Boss = PgBoss;

export async function startBoss(
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
  await boss.createQueue(QUEUES.roomExpire);
  await boss.createQueue(QUEUES.maintenance);
  // One job per delivery attempt. An attempt takes at most the 10 s response
  // window, so a live worker beats well within heartbeatSeconds; a job whose
  // worker died is retried (retryLimit) by another process. Retries of a
  // failing endpoint are new jobs on the delivery schedule, not pg-boss retries.
  const deliver = { notify: true, expireInSeconds: 120, retryLimit: 5, retryDelay: 5, deleteAfterSeconds: 24 * 3600 };
  await boss.createQueue(QUEUES.webhookDeliver, { ...deliver, heartbeatSeconds: 10 });
  // createQueue leaves an existing queue as it was; bring its options up to date.
  await boss.updateQueue(QUEUES.webhookDeliver, deliver);
  return boss;
}

// pg-boss's job insert is a large statement that PostgreSQL would otherwise
// parse and plan on every send (the costliest statement of POST /v1/rooms;
// see bench/). Through inTx it runs as a named prepared statement, kept per
// connection and named by a hash of its text, so two texts never share a name;
// PostgreSQL re-plans it by itself when the tables change. pg-boss's texts
// vary only by queue, but to be safe only the first MAX_PREPARED distinct
// texts are prepared (each one costs a little memory on every connection);
// any others run unnamed as before.
const MAX_PREPARED = 64;
const statementNames = new Map<string, string>();

function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_PREPARED) {
    name = `pgboss_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** pg-boss options that write the job in the caller's transaction. */
export function inTx(tx: Client) {
  return {
    db: {
      executeSql: (text: string, values?: unknown[]) => {
        const name = values && values.length > 0 ? statementName(text) : undefined;
        return name ? tx.query({ name, text, values }) : tx.query(text, values as unknown[]);
      },
    },
  };
}
