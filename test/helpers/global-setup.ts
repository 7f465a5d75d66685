import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { migrate } from '../../src/db/migrate.ts';
import { startBoss } from '../../src/jobs-registry.ts';
import { findApy, startApy } from '../../src/engines/apertium/apy.ts';
import { LOCAL_ADMIN_URL, adminQuery, findPostgres, templateName, withDatabase } from './pg.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    adminUrl: string;
    template: string;
    /** Apertium's HTTP server (apertium-apy) for the whole run; empty when it is not installed. */
    apertiumUrl: string;
  }
}

/**
 * Finds a PostgreSQL (local, else embedded) and prepares a migrated template
 * database, pg-boss schema included. Each test file clones it (CREATE DATABASE
 * ... TEMPLATE), which takes a fraction of a second, so files run in parallel
 * without sharing any state.
 */
export default async function setup(project: TestProject) {
  const { adminUrl, stop } = await findPostgres(LOCAL_ADMIN_URL, { dir: '.data/test-pg', port: 54339 }, (m) => process.stderr.write(`${m}\n`));
  const template = templateName();
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    // Two test runs at once must not both build the template.
    await c.query(`SELECT pg_advisory_lock(hashtext($1))`, [template]);
    const exists = await c.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [template]);
    if (!exists.rows[0]) {
      const building = `${template}_build`;
      await c.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await c.query(`CREATE DATABASE ${building}`);
      const url = withDatabase(adminUrl, building);
      await migrate(url);
      const boss = await startBoss(url, { workers: false, onError: () => {} });
      await boss.stop({ graceful: false });
      await c.query(`ALTER DATABASE ${building} RENAME TO ${template}`);
    }
    await c.query(`SELECT pg_advisory_unlock(hashtext($1))`, [template]);
  } finally {
    await c.end();
  }
  project.provide('adminUrl', adminUrl);
  project.provide('template', template);
  // One APY for every test that translates for real (test/helpers/apertium.ts fails those tests when it is missing).
  const apy = (await findApy()) ? await startApy() : null;
  if (apy) await warmApy(apy.url);
  project.provide('apertiumUrl', apy?.url ?? '');
  return async () => {
    await apy?.stop();
    await stop();
  };
}

/**
 * APY starts a pair's pipeline (a chain of processes) at the pair's first
 * translation, which takes a second or more on a small machine: longer than
 * the short request limits the failure tests set (400 ms). Every installed
 * pair translates once here, so those tests measure what they name and not
 * whichever file happened to use a pair first.
 */
async function warmApy(url: string): Promise<void> {
  const pairs = (await (await fetch(`${url}/listPairs`)).json()) as { responseData: Array<{ sourceLanguage: string; targetLanguage: string }> };
  await Promise.all(pairs.responseData.map(async (p) => {
    const q = new URLSearchParams({ langpair: `${p.sourceLanguage}|${p.targetLanguage}`, q: 'Good morning.' });
    await fetch(`${url}/translate?${q}`, { signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer()).catch(() => {});
  }));
}

export { adminQuery };
