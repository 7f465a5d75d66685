import type { Config } from '../config.ts';
import { ensureEmbeddedPostgres } from './embedded.ts';

export type Database = { url: string; stop: () => Promise<void> };

/** DATABASE_URL when set; otherwise the embedded PostgreSQL under the data dir. */
export async function resolveDatabase(config: Config, log: (m: string) => void): Promise<Database> {
  if (config.databaseUrl) return { url: config.databaseUrl, stop: async () => {} };
  return ensureEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
}
