import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from './app.ts';
import type { Config } from '../../src/config.ts';
import { startSipp, type Sipp } from './sipp.ts';
import { sippScenario } from './sip-rig.ts';

/**
 * What every file of calls placed to a real SIP peer shares: a database of
 * its own with one test key, a clock on a Wednesday at 17:00 UTC (US calling
 * hours open) at real speed, and what each test leaves to undo (SIPp, apps),
 * undone after it in reverse order. The rig: SIPp on a scenario of
 * gateway/sipp/ (`sipp`), and an app whose test calls go to a SIP peer
 * (`app`), both undone after the test.
 */
export function callSuite() {
  const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
  const suite = {
    clock: () => new Date(Date.now() + offset),
    cleanups: [] as Array<() => Promise<void>>,
    db: null as unknown as TestDb,
    key: '',
    /** SIPp as the callee on the scenario `name`. */
    async sipp(name: string, extraArgs?: string[]): Promise<Sipp> {
      const s = await startSipp({ scenario: sippScenario(name), extraArgs });
      suite.cleanups.push(() => s.stop());
      return s;
    },
    /** An app on the suite's database and clock, workers on, whose test calls go to `peer` (`host:port`). */
    async app(peer: string, config: Partial<Config> = {}): Promise<TestApp> {
      const t = await startTestApp({ db: suite.db, workers: true, clock: suite.clock, config: { simSipPeer: `sip:${peer}`, ...config } });
      suite.cleanups.push(() => t.close());
      return t;
    },
    /** POST /v1/calls to +1 415 555 0142 (answered), for support with prior consent, as the suite's key. */
    async place(t: TestApp, body: Record<string, unknown> = {}): Promise<any> {
      const res = await t.request('POST', '/v1/calls', {
        key: suite.key, headers: { 'idempotency-key': crypto.randomUUID() },
        body: { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' }, ...body },
      });
      if (res.status !== 201) throw new Error(`POST /v1/calls answered ${res.status}: ${await res.text()}`);
      return res.json();
    },
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
