import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import { addNumber, createEventType, createKey, createOrg } from './admin.ts';

export type Seeded = { org_id: string; test_key: string; live_key: string; event_type_id: string };

/** A demo organization with test and live keys holding every permission, a number and an event type. */
export async function seed(pool: Pool, config: Config): Promise<Seeded> {
  const org = await createOrg(pool, { name: 'Demo organization', ownerEmail: 'owner@demo.example' });
  const test = await createKey(pool, { org: org.id, mode: 'test', name: 'Demo test key' });
  const live = await createKey(pool, { org: org.id, mode: 'live', name: 'Demo live key' });
  await addNumber(pool, { org: org.id, e164: '+14155550100', label: 'Demo line', default: true });
  const suffix = org.id.slice(-6).toLowerCase();
  const et = await createEventType(pool, config.publicBaseUrl, {
    org: org.id,
    page: `demo-${suffix}`,
    slug: 'intro',
    title: 'Intro call',
    duration: 30,
    tz: 'UTC',
  });
  return { org_id: org.id, test_key: test.secret, live_key: live.secret, event_type_id: et.id };
}

/** On the first start with an empty database, seed once (an advisory lock keeps two processes from both seeding). */
export async function seedIfEmpty(pool: Pool, config: Config): Promise<Seeded | null> {
  const c = await pool.connect();
  try {
    await c.query(`SELECT pg_advisory_lock(4242)`);
    const { rows } = await c.query(`SELECT EXISTS (SELECT 1 FROM organizations) AS any`);
    if (rows[0].any) return null;
    return await seed(pool, config);
  } finally {
    await c.query(`SELECT pg_advisory_unlock(4242)`).catch(() => {});
    c.release();
  }
}
