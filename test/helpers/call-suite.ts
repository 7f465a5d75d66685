import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestDatabase, startTestApp, type TestDb } from './app.ts';

/**
 * What every file of calls placed to a real SIP peer shares: a database of
 * its own with one test key, a clock on a Wednesday at 17:00 UTC (US calling
 * hours open) at real speed, and what each test leaves to undo (SIPp, apps),
 * undone after it in reverse order.
 */
export function callSuite() {
  const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
  const suite = {
    clock: () => new Date(Date.now() + offset),
    cleanups: [] as Array<() => Promise<void>>,
    db: null as unknown as TestDb,
    key: '',
  };
  beforeAll(async () => {
    suite.db = await createTestDatabase();
    const t = await startTestApp({ db: suite.db });
    suite.key = (await t.key({ rpm: 100_000 })).secret;
    await t.close();
  });
  afterEach(async () => {
    for (const c of suite.cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await suite.db?.drop();
  });
  return suite;
}
