import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runner } from 'node-pg-migrate';
import { createPool } from '../../src/db/pool.ts';
import { dispatchOutbox } from '../../src/webhooks/delivery.ts';
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
const before = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-migrations-'));

const migrate = (dir: string, direction: 'up' | 'down', count?: number) =>
  runner({ databaseUrl: url, dir, direction, migrationsTable: 'pgmigrations', checkOrder: true, log: () => {}, ...(count ? { count } : {}) });

afterAll(async () => {
  fs.rmSync(before, { recursive: true, force: true });
  await adminQuery(ADMIN_URL, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
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
