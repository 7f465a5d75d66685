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
  const here = (p: string) => {
    const rel = path.relative(process.cwd(), p);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
  };
  // A cluster kept outside the folder (root, private folder) says where it is and why.
  const where = db.elsewhere
    ? `${db.dir} (${here(db.elsewhere.link)} links there: the postgres user it runs as cannot enter ${db.elsewhere.unreachable})`
    : here(db.dir);
  return {
    url: db.url,
    description: `embedded PostgreSQL in ${where} on 127.0.0.1:${db.port} (${how})`,
    stop: db.stop,
  };
}
