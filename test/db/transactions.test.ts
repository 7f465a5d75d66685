import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { commitWith, createPool, withTx } from '../../src/db/pool.ts';
import { runOnce } from '../../src/http/idempotency.ts';

// A transaction may end with commitWith (its last statement and COMMIT sent
// together); the idempotent save does so outside withTx. Whatever ran on a
// pooled connection before, the next transaction on it commits its writes:
// another connection sees them as soon as withTx returns.

let db: TestDb;
let pool: pg.Pool;
let other: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  // One connection: every transaction below runs on the same one.
  pool = createPool(db.url, 1);
  other = new pg.Client(db.url);
  await other.connect();
  await other.query(`CREATE TABLE tx_probe (n int PRIMARY KEY)`);
});
afterAll(async () => {
  await other?.end();
  await pool?.end();
  await db?.drop();
});

async function seen(n: number): Promise<boolean> {
  const { rows } = await other.query(`SELECT 1 FROM tx_probe WHERE n = $1`, [n]);
  return rows.length === 1;
}

describe('transactions on a pooled connection', () => {
  it('a write after an idempotent save on the same connection is committed when withTx returns', async () => {
    const out = await runOnce(pool, 'key_probe', { key: 'k1', hash: 'h1' }, async (tx) => {
      await tx.query(`INSERT INTO tx_probe (n) VALUES (1)`);
      return { status: 201, body: { n: 1 } };
    });
    expect(out).toMatchObject({ status: 201, replayed: false });
    expect(await seen(1)).toBe(true);

    await withTx(pool, async (tx) => {
      await tx.query(`INSERT INTO tx_probe (n) VALUES (2)`);
    });
    expect(await seen(2)).toBe(true);
    const { rows } = await other.query(`SELECT count(*)::int AS open FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`);
    expect(rows[0].open).toBe(0);
  });

  it('a transaction that committed with commitWith and then threw leaves the next one whole', async () => {
    await expect(withTx(pool, async (tx) => {
      await commitWith(tx, { text: `INSERT INTO tx_probe (n) VALUES (3)` });
      throw new Error('after the commit');
    })).rejects.toThrow('after the commit');
    expect(await seen(3)).toBe(true);

    await withTx(pool, async (tx) => {
      await tx.query(`INSERT INTO tx_probe (n) VALUES (4)`);
    });
    expect(await seen(4)).toBe(true);
  });

  it('a failed transaction writes nothing', async () => {
    await expect(withTx(pool, async (tx) => {
      await tx.query(`INSERT INTO tx_probe (n) VALUES (5)`);
      await tx.query(`INSERT INTO tx_probe (n) VALUES (5)`);
    })).rejects.toThrow(/duplicate key/);
    expect(await seen(5)).toBe(false);
  });
});
