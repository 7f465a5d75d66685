import type { Queryable } from '../db/pool.ts';

/** The join-link key (join links, phone PINs) is created by the first migration and shared by every process. */
export async function linkSigningKey(db: Queryable): Promise<string> {
  const { rows } = await db.query(`SELECT value FROM settings WHERE name = 'link_signing_key'`);
  return rows[0].value;
}
