import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, startTestApp, type TestApp } from '../helpers/app.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { ROOT, freePort, serverNode } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';

// Idempotency-Key (api.md sections 7 and 8) over real HTTP: required on creates,
// at most 255 characters, a replay answers the original response, another body
// is a mismatch, kept 24 hours per credential, and neither a failed request nor
// a process killed mid-way leaves the key stuck or a half-made object behind.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const newKey = () => crypto.randomUUID();

async function roomCount(pool: { query: pg.Pool['query'] }, orgId: string): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM rooms WHERE org_id = $1`, [orgId]);
  return rows[0].n;
}

describe('Idempotency-Key', () => {
  it('is required on POST /v1/rooms and at most 255 characters', async () => {
    const { secret, orgId } = await t.key();
    const missing = await t.request('POST', '/v1/rooms', { key: secret, body: { title: 'x' } });
    expect(missing.status).toBe(400);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await missing.json()).code).toBe('idempotency_key_required');

    const empty = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': '' }, body: { title: 'x' } });
    expect(empty.status).toBe(400);
    expect((await empty.json()).code).toBe('idempotency_key_required');

    const long = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': 'k'.repeat(256) }, body: { title: 'x' } });
    expect(long.status).toBe(400);
    const problem = await long.json();
    expect(problem.code).toBe('invalid_request');
    expect(problem.message.startsWith('Idempotency-Key')).toBe(true);

    // Exactly 255 characters is accepted.
    const max = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': 'k'.repeat(255) }, body: { title: 'x' } });
    expect(max.status).toBe(201);
    expect(await roomCount(t.pool, orgId)).toBe(1);
  });

  it('replays the original response for the same key and body, key order aside', async () => {
    const { secret, orgId } = await t.key();
    const k = newKey();
    const body = { title: 'Standup', visibility: 'public', langs: ['en', 'pt-BR'] };
    const first = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstText = await first.text();
    const room = JSON.parse(firstText);
    expect(room.id).toMatch(/^room_/);

    const again = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.text()).toBe(firstText);

    // The same fields in another order are the same request.
    const reordered = { langs: ['en', 'pt-BR'], visibility: 'public', title: 'Standup' };
    const third = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: reordered });
    expect(third.status).toBe(201);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(await third.text()).toBe(firstText);

    const { rows } = await t.pool.query(`SELECT id FROM rooms WHERE org_id = $1`, [orgId]);
    expect(rows).toEqual([{ id: room.id }]);
  });

  it('refuses the same key with another body and keeps keys per credential', async () => {
    const a = await t.key();
    const k = newKey();
    const first = await t.request('POST', '/v1/rooms', { key: a.secret, headers: { 'idempotency-key': k }, body: { title: 'One' } });
    expect(first.status).toBe(201);
    const room = await first.json();

    const other = await t.request('POST', '/v1/rooms', { key: a.secret, headers: { 'idempotency-key': k }, body: { title: 'Two' } });
    expect(other.status).toBe(409);
    expect((await other.json()).code).toBe('idempotency_mismatch');
    expect(await roomCount(t.pool, a.orgId)).toBe(1);

    // Another credential of the same organization, and another organization's: each its own room.
    const sameOrg = await t.key({ org: a.orgId });
    const b = await t.key();
    for (const cred of [sameOrg, b]) {
      const res = await t.request('POST', '/v1/rooms', { key: cred.secret, headers: { 'idempotency-key': k }, body: { title: 'One' } });
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      const own = await res.json();
      expect(own.id).not.toBe(room.id);
    }
    expect(await roomCount(t.pool, a.orgId)).toBe(2);
    expect(await roomCount(t.pool, b.orgId)).toBe(1);
  });

  it('creates exactly one room from 50 parallel identical requests', async () => {
    const { secret, orgId } = await t.key();
    const k = newKey();
    const body = { title: 'Race' };
    const responses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body });
        return { status: res.status, body: await res.json() };
      }),
    );
    const { rows } = await t.pool.query(`SELECT id FROM rooms WHERE org_id = $1`, [orgId]);
    expect(rows).toHaveLength(1);
    const id = rows[0].id;
    let created = 0;
    for (const r of responses) {
      if (r.status === 201) {
        created++;
        expect(r.body.id).toBe(id);
      } else {
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 409, code: 'idempotency_in_progress' });
      }
    }
    expect(created).toBeGreaterThanOrEqual(1);
  });

  it('keeps a key 24 hours', async () => {
    const { secret, orgId, keyId } = await t.key();
    const k = newKey();
    const first = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: { title: 'Old' } });
    expect(first.status).toBe(201);
    const old = await first.json();
    const aged = await t.pool.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE credential_id = $1 AND key = $2`,
      [keyId, k],
    );
    expect(aged.rowCount).toBe(1);

    const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: { title: 'New' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    const fresh = await res.json();
    expect(fresh.id).not.toBe(old.id);
    expect(fresh.title).toBe('New');
    expect(await roomCount(t.pool, orgId)).toBe(2);

    // The key now answers the new response.
    const replay = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: { title: 'New' } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await replay.json()).id).toBe(fresh.id);
  });

  it('does not burn the key on a failed request', async () => {
    const { secret, orgId, keyId } = await t.key();
    const k = newKey();
    const bad = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: { title: 'x'.repeat(121) } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).code).toBe('invalid_request');
    const saved = await t.pool.query(`SELECT 1 FROM idempotency_keys WHERE credential_id = $1 AND key = $2`, [keyId, k]);
    expect(saved.rowCount).toBe(0);

    const good = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': k }, body: { title: 'Fine' } });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
    expect((await good.json()).title).toBe('Fine');
    expect(await roomCount(t.pool, orgId)).toBe(1);
  });
});

describe('Idempotency-Key and a server process killed mid-way', () => {
  it('leaves no half-made room and no stuck key; a retry with the same key creates the room', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url, 3);
    const locker = new pg.Client({ connectionString: db.url });
    let child: ChildProcess | undefined;
    let t2: TestApp | undefined;
    let stderr = '';
    let locked = false;
    try {
      // Before the child starts: the server seeds a demo organization only into an empty database.
      const org = await createOrg(pool, { name: 'Killed mid-way' });
      const key = await createKey(pool, { org: org.id, mode: 'test' });

      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      child = spawn(serverNode(), ['src/server.ts'], {
        cwd: ROOT,
        // The engines and the media server are not what this is about: off, as startServerProcess has them.
        env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base, LOG_LEVEL: 'warn', TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', TOLK_MEDIA_SERVER: 'off' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      child.stderr!.on('data', (d) => { stderr += d; });
      const exited = new Promise<void>((resolve) => child!.once('exit', () => resolve()));
      await until('the child server to answer', async () => {
        if (child!.exitCode !== null) return 'exited';
        const res = await fetch(`${base}/v1/openapi.json`);
        await res.arrayBuffer();
        return res.ok && 'up';
      }, 60_000).then(
        (state) => { if (state === 'exited') throw new Error(`child server exited (${child!.exitCode})`); },
      ).catch((err) => { throw new Error(`${err.message}; child stderr: ${stderr}`); });

      // Hold the rooms table so the child's create blocks inside its transaction.
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE');
      locked = true;

      const k = newKey();
      const body = { title: 'Survivor', langs: ['en'] };
      const inFlight = fetch(`${base}/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'idempotency-key': k, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(
        (res) => ({ status: res.status }),
        (err: Error) => ({ error: err }),
      );

      const waiter = await until('a backend waiting on the rooms lock', async () => {
        const { rows } = await pool.query(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE '%rooms%' AND pid <> $2`,
          [db.name, (locker as unknown as { processID: number }).processID],
        );
        return rows[0]?.pid as number | undefined;
      });

      // The blocked create holds the key's advisory lock inside its open transaction:
      // a duplicate sent meanwhile is told the first one is still running.
      const advisory = await pool.query(`SELECT 1 FROM pg_locks WHERE pid = $1 AND locktype = 'advisory' AND granted`, [waiter]);
      expect(advisory.rowCount).toBe(1);
      const dup = await fetch(`${base}/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.secret}`, 'idempotency-key': k, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(dup.status).toBe(409);
      expect(((await dup.json()) as { code: string }).code).toBe('idempotency_in_progress');

      child.kill('SIGKILL');
      await exited;
      await locker.query('ROLLBACK');
      locked = false;
      // The request the child was serving never got an answer.
      const outcome = await inFlight;
      expect('error' in outcome).toBe(true);

      // The orphaned backend runs on once the lock is free, then finds its client gone and rolls back.
      await until('the killed server\'s backend to end', async () => {
        const { rows } = await pool.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1`, [waiter]);
        return rows.length === 0;
      });

      for (const table of ['rooms', 'actors', 'outbox']) {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1`, [org.id]);
        expect({ table, n: rows[0].n }).toEqual({ table, n: 0 });
      }
      const keys = await pool.query(`SELECT count(*)::int AS n FROM idempotency_keys WHERE credential_id = $1`, [key.id]);
      expect(keys.rows[0].n).toBe(0);

      // A new server on the same database: the retry with the same key is not stuck in progress.
      t2 = await startTestApp({ db });
      const retry = await t2.request('POST', '/v1/rooms', { key: key.secret, headers: { 'idempotency-key': k }, body });
      const retried = await retry.json();
      expect({ status: retry.status, code: retried.code }).toEqual({ status: 201, code: undefined });
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(retried).toMatchObject({ title: 'Survivor', langs: ['en'] });
      const { rows } = await pool.query(`SELECT id FROM rooms WHERE org_id = $1`, [org.id]);
      expect(rows).toEqual([{ id: retried.id }]);

      const replay = await t2.request('POST', '/v1/rooms', { key: key.secret, headers: { 'idempotency-key': k }, body });
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await replay.json()).id).toBe(retried.id);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      if (locked) await locker.query('ROLLBACK').catch(() => {});
      await locker.end().catch(() => {});
      await t2?.close().catch(() => {});
      await pool.end().catch(() => {});
      await db.drop();
    }
  }, 120_000);
});
