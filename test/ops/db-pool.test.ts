import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { ROOT, serverNode, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { createPool } from '../../src/db/pool.ts';

// TOLK_DB_POOL (README, Environment): the most connections a server
// process's pool opens, so an operator can fit several processes in the
// database's max_connections. A burst of requests waits for a connection
// instead of opening more, and every request is still answered.

vi.setConfig({ testTimeout: 60_000 });

let db: TestDb;
let server: ServerProcess;
let secret: string;
beforeAll(async () => {
  db = await createTestDatabase();
  server = await startServerProcess(db.url, { TOLK_DB_POOL: '3' });
  const pool = createPool(db.url, 1);
  try {
    const org = await createOrg(pool, { name: 'Pool' });
    secret = (await createKey(pool, { org: org.id, mode: 'test' })).secret;
  } finally {
    await pool.end();
  }
});
afterAll(async () => {
  await server?.kill();
  await db?.drop();
});

describe('TOLK_DB_POOL', () => {
  it('a burst of 60 room creations is answered in full through at most 3 connections of the pool', async () => {
    const watcher = new pg.Client({ connectionString: db.url });
    await watcher.connect();
    let most = 0;
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const { rows } = await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'tolk'`,
        );
        most = Math.max(most, rows[0]!.n);
      }
    })();
    try {
      const answers = await Promise.all(Array.from({ length: 60 }, () => fetch(`${server.base}/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: '{}',
      }).then(async (r) => ({ status: r.status, body: await r.text() }))));
      expect(answers.filter((a) => a.status !== 201), JSON.stringify(answers.find((a) => a.status !== 201))).toEqual([]);
      const { rows } = await watcher.query<{ n: number }>(`SELECT count(*)::int AS n FROM rooms`);
      expect(rows[0]!.n).toBe(60);
    } finally {
      watching = false;
      await watch;
      await watcher.end();
    }
    expect(most).toBeGreaterThanOrEqual(1);
    expect(most).toBeLessThanOrEqual(3);
  });

  it('a value below 2 stops the start with one line naming it', async () => {
    const child = spawn(serverNode(), ['src/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'silent', TOLK_DB_POOL: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d) => { stderr += d; });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).not.toBe(0);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^tolk: invalid environment: TOLK_DB_POOL: /);
  });
});
