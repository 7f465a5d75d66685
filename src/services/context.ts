import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { Boss } from '../jobs/boss.ts';
import type { Credential } from '../credentials.ts';
import type { Lookup } from '../webhooks/outbound.ts';
import type { Translator } from '../sim/translator.ts';

/** What every use case needs: configuration, the pool and the job queue. */
export type Services = {
  config: Config;
  pool: Pool;
  boss: Boss;
  /** The time as the service sees it; tests replace it to walk retry schedules without waiting. */
  clock?: () => Date;
  /** DNS for outgoing webhook requests; tests replace it to play hostile resolvers. */
  dnsLookup?: Lookup;
  /** Machine translation; the simulator's unless replaced (src/sim/translator.ts). */
  translator?: Translator;
};

export type Caller = Credential;
