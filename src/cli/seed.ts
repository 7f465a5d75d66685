import fs from 'node:fs';
import path from 'node:path';
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

/** The file under the data folder where the first start keeps the seeded keys. */
const FIRST_KEYS_FILE = 'first-keys.json';

/**
 * The first start's keys, kept for the operator in `<dataDir>/first-keys.json`
 * (mode 0600) instead of printed whole: a start banner ends up in terminals'
 * scrollback, CI output and log collectors, and a live key there is spendable
 * by whoever reads it. Written to a temporary file and renamed over any older
 * one (a database seeded again makes the old keys worthless), so the file
 * never exists with wider permissions or half written. Returns its path and,
 * when it could not be written (a read-only folder), why.
 */
export function keepFirstKeys(dataDir: string, seeded: Seeded): { path: string; error: string | null } {
  const file = path.join(dataDir, FIRST_KEYS_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(tmp, `${JSON.stringify({ ...seeded, created_at: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    fs.renameSync(tmp, file);
    return { path: file, error: null };
  } catch (err) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // Nothing was written there (no folder, a file in its way).
    }
    return { path: file, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}
