import pino from 'pino';
import type { Config } from './config.ts';
import { resolveDatabase } from './db/connect.ts';
import { migrate } from './db/migrate.ts';
import { createPool, type Pool } from './db/pool.ts';
import { startBoss, type Boss } from './jobs/boss.ts';
import { startWorkers } from './jobs/workers.ts';

export type Platform = {
  config: Config;
  databaseUrl: string;
  pool: Pool;
  boss: Boss;
  log: pino.Logger;
  close: () => Promise<void>;
};

/** Database (embedded when DATABASE_URL is unset), migrations, pool, job queue and workers. */
export async function startPlatform(config: Config, opts: { migrate?: boolean } = {}): Promise<Platform> {
  const log = pino({ level: config.logLevel }, pino.destination(2));
  const db = await resolveDatabase(config, (m) => log.info(m));
  if (opts.migrate !== false) await migrate(db.url);
  const pool = createPool(db.url);
  const boss = await startBoss(db.url, {
    workers: config.workers,
    monitorSeconds: config.jobMonitorSeconds,
    onError: (err) => log.error({ err }, 'pg-boss'),
  });
  const workers = config.workers ? await startWorkers({ config, pool, boss }, db.url, log) : null;
  return {
    config,
    databaseUrl: db.url,
    pool,
    boss,
    log,
    close: async () => {
      await workers?.stop().catch(() => {});
      await boss.stop({ graceful: true, timeout: 5000 }).catch(() => {});
      await pool.end().catch(() => {});
      await db.stop().catch(() => {});
    },
  };
}
