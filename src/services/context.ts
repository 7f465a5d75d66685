import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Boss } from '../jobs/boss.ts';
import type { Credential } from '../credentials.ts';

/** What every use case needs: configuration, the pool and the job queue. */
export type Services = {
  config: Config;
  pool: Pool;
  boss: Boss;
};

export type Caller = Credential;
