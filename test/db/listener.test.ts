import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { PgListener } from '../../src/db/listener.ts';

// Every PgListener of a process on one database shares one LISTENing
// connection: PostgreSQL wakes each listening backend on every NOTIFY
// committed in the database, whatever the channel, so one connection per
// channel costs the database a wake-up per channel per notification.

let db: TestDb;
let admin: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  admin = new pg.Client(db.url);
  admin.on('error', () => {});
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
  await db?.drop();
});

/** The backends of this database that listen on something, and on what. */
async function listeners(): Promise<Array<{ pid: number; query: string }>> {
  const { rows } = await admin.query<{ pid: number; query: string }>(
    `SELECT pid, query FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
  );
  return rows;
}

function recorder(url: string, channel: string) {
  const heard: string[] = [];
  const ups: number[] = [];
  const downs: number[] = [];
  const l = new PgListener(url, channel, {
    onNotify: (p) => heard.push(p),
    onUp: () => ups.push(Date.now()),
    onDown: () => downs.push(Date.now()),
  });
  return { l, heard, ups, downs };
}

describe('PgListener', () => {
  it('three channels of one process listen on one connection; each hears its own channel only', async () => {
    const a = recorder(db.url, 'tolk_test_a');
    const b = recorder(db.url, 'tolk_test_b');
    const b2 = recorder(db.url, 'tolk_test_b');
    await Promise.all([a.l.start(), b.l.start(), b2.l.start()]);
    try {
      expect([a.l.up, b.l.up, b2.l.up]).toEqual([true, true, true]);
      expect([a.ups.length, b.ups.length, b2.ups.length]).toEqual([1, 1, 1]);
      const ls = await listeners();
      expect(ls).toHaveLength(1);

      await admin.query(`SELECT pg_notify('tolk_test_a', 'one'), pg_notify('tolk_test_b', 'two'), pg_notify('tolk_test_c', 'three')`);
      await until('both channels heard', async () => a.heard.length === 1 && b.heard.length === 1 && b2.heard.length === 1, 5_000);
      expect(a.heard).toEqual(['one']);
      expect(b.heard).toEqual(['two']);
      expect(b2.heard).toEqual(['two']);

      // One of two on a channel leaves: the other still hears it; the closed one hears nothing more.
      await b2.l.close();
      expect(b2.l.up).toBe(false);
      await admin.query(`SELECT pg_notify('tolk_test_b', 'four')`);
      await until('b hears again', async () => b.heard.length === 2, 5_000);
      expect(b2.heard).toEqual(['two']);
      expect(await listeners()).toHaveLength(1);
    } finally {
      await a.l.close();
      await b.l.close();
    }
    // The last one gone, the connection is closed.
    await until('no listening backend', async () => (await listeners()).length === 0, 5_000);
  });

  it('the connection lost: every listener is told (onDown), and once it is back, told again (onUp) and hears again', async () => {
    const a = recorder(db.url, 'tolk_test_a');
    const b = recorder(db.url, 'tolk_test_b');
    await a.l.start();
    await b.l.start();
    try {
      const [first] = await listeners();
      await admin.query('SELECT pg_terminate_backend($1)', [first!.pid]);
      await until('both told it is down', async () => a.downs.length === 1 && b.downs.length === 1, 5_000);
      expect([a.l.up, b.l.up]).toEqual([false, false]);
      await until('both up again', async () => a.ups.length === 2 && b.ups.length === 2, 5_000);
      expect([a.l.up, b.l.up]).toEqual([true, true]);
      const again = await listeners();
      expect(again).toHaveLength(1);
      expect(again[0]!.pid).not.toBe(first!.pid);
      await admin.query(`SELECT pg_notify('tolk_test_a', 'after'), pg_notify('tolk_test_b', 'after')`);
      await until('both hear after the reconnect', async () => a.heard.length === 1 && b.heard.length === 1, 5_000);
    } finally {
      await a.l.close();
      await b.l.close();
    }
  });

  it('a listener started while the database is unreachable is not up, and closing it ends its retries', async () => {
    const a = recorder('postgres://postgres@127.0.0.1:1/none', 'tolk_test_a');
    await a.l.start();
    expect(a.l.up).toBe(false);
    await a.l.close();
  });

  it('refuses a channel name it would have to quote', () => {
    expect(() => new PgListener(db.url, 'Tolk-Events', { onNotify: () => {} })).toThrow(/not a channel name/);
  });
});
