import net from 'node:net';
import path from 'node:path';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';

// Tests run against a real PostgreSQL: the one on 127.0.0.1:5432 when it
// answers, else an embedded one under .data/test-pg (see global-setup.ts).

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
