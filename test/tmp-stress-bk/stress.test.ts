import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createEventType, createKey, createOrg } from '../../src/cli/admin.ts';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
vi.setConfig({ testTimeout: 600_000, hookTimeout: 90_000 });
let db: TestDb; let pool: Pool; let servers: ServerProcess[] = []; let secret: string; let et: string;
beforeAll(async () => {
  db = await createTestDatabase(); pool = createPool(db.url, 4);
  const org = (await createOrg(pool, { name: 'x', ownerEmail: 'o@x.example' })).id;
  secret = (await createKey(pool, { org, mode: 'live', rpm: 1_000_000 })).secret;
  et = (await createEventType(pool, 'http://x', { org, page: 'p', slug: 's', title: 'T', duration: 30, tz: 'UTC', hours: 'mon-sun 00:00-24:00' })).id;
  servers = await Promise.all([startServerProcess(db.url), startServerProcess(db.url)]);
});
afterAll(async () => { await Promise.all(servers.map((s) => s.kill())); await pool?.end(); await db?.drop(); });
it('stress', async () => {
  const tally: Record<string, number> = {};
  const base = DateTime.utc().startOf('day').plus({ days: 2 });
  for (let round = 0; round < 48; round++) {
    const start = base.plus({ minutes: 30 * round }).toISO({ suppressMilliseconds: true });
    const res = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const r = await fetch(`${servers[i % 2]!.base}/v1/bookings`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ event_type_id: et, start, guest: { name: 'n', email: `g${i}@x.example`, speak: 'en' } }) });
      const b = await r.json() as any; return `${r.status} ${b.code ?? ''}`;
    }));
    for (const k of res) tally[k] = (tally[k] ?? 0) + 1;
  }
  console.log(tally);
  expect(Object.keys(tally).sort()).toEqual(['201 ', '409 slot_taken']);
});
