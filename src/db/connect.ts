import path from 'node:path';
import type { Config } from '../config.ts';
import { redactUrl } from '../startup.ts';
import { ensureEmbeddedPostgres } from './embedded.ts';

export type Database = {
  url: string;
  /** One line saying which database this is, for the start banner. */
  description: string;
  stop: () => Promise<void>;
};

/** DATABASE_URL when set; otherwise the embedded PostgreSQL of the data folder. */
export async function resolveDatabase(config: Config, log: (m: string) => void): Promise<Database> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, description: `${redactUrl(config.databaseUrl)} (DATABASE_URL)`, stop: async () => {} };
  }
  const db = await ensureEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
  const how = db.started ? 'started' : 'already running';
  return {
    url: db.url,
    description: `embedded PostgreSQL in ${path.relative(process.cwd(), db.dir) || db.dir} on 127.0.0.1:${db.port} (${how})`,
    stop: db.stop,
  };
}
