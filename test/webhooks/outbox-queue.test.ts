import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runner } from 'node-pg-migrate';
import { createPool } from '../../src/db/pool.ts';
import { DISPATCH_SQL, dispatchOutbox } from '../../src/webhooks/delivery.ts';
import type { Services } from '../../src/services.ts';
import { adminQuery, withDatabase } from '../helpers/pg.ts';

// The outbox's queue of events not dispatched yet (migration outbox_queue):
// an event written before the upgrade and not dispatched then is still
// dispatched after it; one dispatched before is not dispatched again. An
// actor's history, keyed since by the actor and its version, keeps its rows.

const QUEUE_MIGRATION = '1734200000000_outbox_queue.sql';
const MIGRATIONS = path.resolve('src/db/migrations');
// The run's PostgreSQL (global-setup.ts): the embedded one on a machine without one at the default address.
const ADMIN_URL = inject('adminUrl');
const name = `tolk_oq_${crypto.randomBytes(4).toString('hex')}`;
const url = withDatabase(ADMIN_URL, name);
const longName = `${name}_log`;
const before = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-migrations-'));

const migrate = (dir: string, direction: 'up' | 'down', count?: number) =>
  runner({ databaseUrl: url, dir, direction, migrationsTable: 'pgmigrations', checkOrder: true, log: () => {}, ...(count ? { count } : {}) });

afterAll(async () => {
  fs.rmSync(before, { recursive: true, force: true });
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${longName} WITH (FORCE)`);
});

describe('outbox queue migration', () => {
  it('queues the events not dispatched before the upgrade, and the dispatcher takes them', async () => {
    // A retry starts from a new database.
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await adminQuery(ADMIN_URL, `CREATE DATABASE ${name}`);
    fs.rmSync(before, { recursive: true, force: true });
    fs.mkdirSync(before);
    for (const f of fs.readdirSync(MIGRATIONS)) if (f < QUEUE_MIGRATION) fs.copyFileSync(path.join(MIGRATIONS, f), path.join(before, f));
    await migrate(before, 'up');
    const pool = createPool(url, 2);
    try {
      const insert = `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data, processed_at)
        VALUES ($1, 'org_x', false, 'room.started', 'room_x', '{"object":{"id":"room_x"}}', $2)`;
      await pool.query(insert, ['evt_done', new Date()]);
      await pool.query(insert, ['evt_owed', null]);
      await pool.query(`INSERT INTO actors (id, org_id, livemode, machine, state, snapshot, version) VALUES ('room_x', 'org_x', false, 'room', 'open', '{}', 2)`);
      await pool.query(`INSERT INTO actor_history (actor_id, version, event, from_state, to_state) VALUES
        ('room_x', 1, '{"type":"CREATE"}', 'idle', 'open'), ('room_x', 2, '{"type":"JOIN"}', 'open', 'open')`);

      await migrate(MIGRATIONS, 'up');
      const queued = async () =>
        (await pool.query(`SELECT o.event_id FROM outbox_queue q JOIN outbox o ON o.id = q.id ORDER BY q.id`)).rows.map((r) => r.event_id);
      expect(await queued()).toEqual(['evt_owed']);
      const history = await pool.query(`SELECT version, event->>'type' AS type FROM actor_history WHERE actor_id = 'room_x' ORDER BY version`);
      expect(history.rows).toEqual([{ version: 1, type: 'CREATE' }, { version: 2, type: 'JOIN' }]);
      // A version is still recorded once.
      await expect(pool.query(`INSERT INTO actor_history (actor_id, version, event, to_state) VALUES ('room_x', 2, '{}', 'open')`)).rejects.toThrow(/duplicate key/);
      // A new event is queued by the statement that writes it; one written as processed is not.
      await pool.query(insert, ['evt_new', null]);
      await pool.query(insert, ['evt_imported', new Date()]);
      expect(await queued()).toEqual(['evt_owed', 'evt_new']);

      // No endpoint listens: the dispatcher takes both and queues no delivery.
      expect(await dispatchOutbox({ pool } as unknown as Services, 10)).toBe(2);
      expect(await queued()).toEqual([]);
      expect((await pool.query(`SELECT count(*)::int AS n FROM outbox`)).rows[0].n).toBe(4);

      // Down again: what the queue no longer holds reads as processed.
      await pool.query(insert, ['evt_owed_again', null]);
      // Every migration from the queue's on, however many came after it.
      await migrate(MIGRATIONS, 'down', fs.readdirSync(MIGRATIONS).filter((f) => f >= QUEUE_MIGRATION).length);
      const { rows } = await pool.query(`SELECT event_id FROM outbox WHERE processed_at IS NULL`);
      expect(rows.map((r) => r.event_id)).toEqual(['evt_owed_again']);
    } finally {
      await pool.end();
    }
  });
});

describe('dispatching from a long event log', () => {
  it('reads the queued events, not the events dispatched before them', async () => {
    await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${longName} WITH (FORCE)`);
    await adminQuery(ADMIN_URL, `CREATE DATABASE ${longName}`);
    const longUrl = withDatabase(ADMIN_URL, longName);
    await runner({ databaseUrl: longUrl, dir: MIGRATIONS, direction: 'up', migrationsTable: 'pgmigrations', checkOrder: true, log: () => {} });
    const pool = createPool(longUrl, 2);
    try {
      const events = (n: number, from: number) => pool.query(
        `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
         SELECT 'evt_' || (i + $2::int), 'org_x', false, 'call.ringing', 'call_x', '{"object":{"id":"call_x"}}' FROM generate_series(1, $1::int) i`,
        [n, from],
      );
      // A busy hour: a queue thousands deep when the statistics were taken, all dispatched since.
      await events(5000, 0);
      await pool.query('ANALYZE outbox; ANALYZE outbox_queue');
      expect(await dispatchOutbox({ pool } as unknown as Services, 5000)).toBe(5000);
      await events(20000, 5000);
      await pool.query('DELETE FROM outbox_queue');
      await events(10, 25000);

      // The plan the dispatcher's prepared statement settles on (a generic one), run as it runs.
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await c.query(`SET LOCAL plan_cache_mode = force_generic_plan`);
        await c.query(`PREPARE dispatch(int) AS ${DISPATCH_SQL}`);
        const { rows } = await c.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE dispatch(500)`);
        type Node = { 'Relation Name'?: string; 'Actual Rows': number; 'Actual Loops': number; Plans?: Node[] };
        const read = (n: Node): number =>
          (n['Relation Name'] === 'outbox' ? n['Actual Rows'] * n['Actual Loops'] : 0) + (n.Plans ?? []).reduce((a, p) => a + read(p), 0);
        const plan = rows[0]['QUERY PLAN'][0].Plan as Node;
        // Ten queued events are ten rows of the log, whatever lies before them.
        expect(read(plan)).toBe(10);
        expect(plan['Actual Rows']).toBe(10);
      } finally {
        await c.query('ROLLBACK');
        c.release();
      }
      expect(await dispatchOutbox({ pool } as unknown as Services, 500)).toBe(10);
    } finally {
      await pool.end();
    }
  });
});
