import net from 'node:net';
import path from 'node:path';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../../src/db/embedded.ts';

// Tests run against a real PostgreSQL: the one on 127.0.0.1:5432 when it
// answers, else an embedded one under .data/test-pg (see global-setup.ts).
// The benchmark (bench/run.ts) finds its PostgreSQL and makes its databases
// with the same helpers.

export const LOCAL_ADMIN_URL = process.env.TOLK_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => { s.destroy(); resolve(false); });
  });
}

export function withDatabase(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  return u.toString();
}

/** Name of the template database: changes whenever a migration changes. */
export function templateName(): string {
  const dir = path.resolve('src/db/migrations');
  const h = createHash('sha256');
  for (const f of fs.readdirSync(dir).sort()) h.update(f).update(fs.readFileSync(path.join(dir, f)));
  return `tolk_tpl_${h.digest('hex').slice(0, 12)}`;
}

export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export type FoundPostgres = {
  /** Admin URL (database `postgres`) of the server found or started. */
  adminUrl: string;
  kind: 'local' | 'embedded';
  /** Stops the embedded server this started; nothing for a local one. */
  stop: () => Promise<void>;
};

/**
 * The PostgreSQL at `adminUrl` when it answers, else the embedded one kept
 * under `embedded.dir` (started, or reused, on `embedded.port`).
 */
export async function findPostgres(adminUrl: string, embedded: { dir: string; port: number }, log: (m: string) => void): Promise<FoundPostgres> {
  const local = new URL(adminUrl);
  if (await reachable(local.hostname, Number(local.port || 5432))) return { adminUrl, kind: 'local', stop: async () => {} };
  log(`no PostgreSQL on ${local.host}; starting the embedded one under ${embedded.dir}`);
  const started = await ensureEmbeddedPostgres(embedded.dir, embedded.port, log);
  return { adminUrl: withDatabase(started.url, 'postgres'), kind: 'embedded', stop: started.stop };
}
