import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runner } from 'node-pg-migrate';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * Applies pending migrations. node-pg-migrate holds an advisory lock while it
 * runs, so several processes starting at once migrate exactly once.
 */
export async function migrate(databaseUrl: string): Promise<void> {
  await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    checkOrder: true,
    // Wait for a migration running in another process instead of failing
    // (node-pg-migrate's default is 'fail').
    advisoryLockMode: 'wait',
    log: () => {},
  });
}
