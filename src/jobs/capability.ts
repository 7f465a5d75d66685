import type { Queue, WorkOptions } from 'pg-boss';
import type { Queryable } from '../db/pool.ts';
import type { Services } from '../services.ts';

// What a capability's jobs.ts declares, as plain data: its pg-boss queues with
// their handlers, and its retention. src/jobs-registry.ts collects them.

export type JobQueue = {
  name: string;
  /** Options of the queue; applied to an existing queue as well. */
  options?: Omit<Queue, 'name'>;
  /** How this process works the queue (batch size, concurrency, polling). */
  work?: WorkOptions;
  /** Sent on this cron schedule (pg-boss keeps one schedule however many processes set it). */
  cron?: string;
  /**
   * Handles a batch of jobs; a throw fails the batch and pg-boss retries it.
   * retryCount is the attempt's (0 for the first); retryLimit is there when
   * `work` has includeMetadata.
   */
  handle: (s: Services, jobs: Array<{ data: any; retryCount?: number; retryLimit?: number }>) => Promise<void>;
};

export type Retention = {
  /** Reported by pruneExpired. */
  name: string;
  /** One DELETE; returns the rows it removed. */
  prune: (db: Queryable) => Promise<number>;
};

export type CapabilityJobs = { queues?: JobQueue[]; retention?: Retention[] };

/** A Retention that runs one DELETE statement. */
export function deleteWhere(name: string, sql: string): Retention {
  return { name, prune: async (db) => (await db.query(sql)).rowCount ?? 0 };
}
