import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPool } from '../src/db/pool.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from './helpers/app.ts';
import { adminQuery, withDatabase } from './helpers/pg.ts';
import { until } from './helpers/wait.ts';
import { freePort } from './helpers/process.ts';
import { PERMISSIONS } from '../src/permissions.ts';
import { loadActor } from '../src/actors/store.ts';

// The operator CLI of operator.md, run as operators run it: a separate process
// (`node bin/tolk.js ...`) on the same PostgreSQL as a running server. Every
// command must print exactly one JSON object on stdout and nothing else there.

// Each command is a process of its own (about a second: node start, migration
// check); some tests run a dozen.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PUBLIC_BASE_URL = 'http://localhost:8080';

type Run = { code: number | null; stdout: string; stderr: string; json: any };

function run(cmd: string, args: string[], databaseUrl: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', PUBLIC_BASE_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        // Exactly one JSON object on stdout, on one line, and nothing else.
        const what = `stdout of \`${cmd} ${args.join(' ')}\` (stderr: ${stderr})`;
        expect(stdout.endsWith('\n'), `${what} ends with a newline: ${JSON.stringify(stdout)}`).toBe(true);
        expect(stdout.slice(0, -1).includes('\n'), `${what} is one line: ${stdout}`).toBe(false);
        const json = JSON.parse(stdout);
        expect(typeof json === 'object' && json !== null && !Array.isArray(json), `${what} is a JSON object: ${stdout}`).toBe(true);
        resolve({ code, stdout, stderr, json });
      } catch (err) {
        reject(err);
      }
    });
  });
}

let db: TestDb;
const tolkOn = (url: string, ...args: string[]) => run('node', ['bin/tolk.js', ...args], url);
const tolk = (...args: string[]) => tolkOn(db.url, ...args);

/** Runs a command that must succeed and returns its JSON. */
async function ok(...args: string[]): Promise<any> {
  const r = await tolk(...args);
  expect(r.code, `tolk ${args.join(' ')} exit code (stdout ${r.stdout}, stderr ${r.stderr})`).toBe(0);
  expect(r.json).not.toHaveProperty('error');
  return r.json;
}

/** Runs a command that must fail: non-zero exit and stdout exactly {"error": "..."}. */
async function fails(...args: string[]): Promise<string> {
  const r = await tolk(...args);
  expect(r.code, `tolk ${args.join(' ')} must fail (stdout ${r.stdout})`).not.toBe(0);
  expect(r.code).not.toBeNull();
  expect(Object.keys(r.json)).toEqual(['error']);
  expect(typeof r.json.error).toBe('string');
  expect(r.json.error.length).toBeGreaterThan(0);
  return r.json.error;
}

/** Several failing commands, run at once (each is its own process). */
async function failsAll(cases: Array<[string[], RegExp]>): Promise<void> {
  const errors = await Promise.all(cases.map(([args]) => fails(...args)));
  errors.forEach((e, i) => expect(e, cases[i]![0].join(' ')).toMatch(cases[i]![1]));
}

let q: pg.Pool;
beforeAll(async () => {
  db = await createTestDatabase();
  q = createPool(db.url, 2);
});
afterAll(async () => {
  await q?.end();
  await db?.drop();
});

/** An empty database (not cloned from the migrated template). */
async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const adminUrl = inject('adminUrl');
  const name = `tolk_t_empty_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  return { url: withDatabase(adminUrl, name), drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function tableExists(url: string, table: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT to_regclass($1) IS NOT NULL AS ok`, [table]);
    return rows[0].ok;
  } finally {
    await c.end();
  }
}

describe('tolk migrate', () => {
  it('migrates an empty database and prints {"migrated":true}; again is a no-op', async () => {
    const empty = await emptyDatabase();
    try {
      expect(await tableExists(empty.url, 'public.actors')).toBe(false);
      const first = await tolkOn(empty.url, 'migrate');
      expect(first.code).toBe(0);
      expect(first.json).toEqual({ migrated: true });
      expect(await tableExists(empty.url, 'public.actors')).toBe(true);
      expect(await tableExists(empty.url, 'public.organizations')).toBe(true);
      const again = await tolkOn(empty.url, 'migrate');
      expect(again.code).toBe(0);
      expect(again.json).toEqual({ migrated: true });
    } finally {
      await empty.drop();
    }
  });

  it('several processes migrating one empty database at once all succeed, and migrate once', async () => {
    const empty = await emptyDatabase();
    try {
      const runs = await Promise.all(Array.from({ length: 4 }, () => tolkOn(empty.url, 'migrate')));
      for (const r of runs) {
        expect(r.code, r.stdout).toBe(0);
        expect(r.json).toEqual({ migrated: true });
      }
      const c = new pg.Client({ connectionString: empty.url });
      await c.connect();
      try {
        const { rows } = await c.query(`SELECT name, count(*)::int AS n FROM pgmigrations GROUP BY name`);
        expect(rows.length).toBeGreaterThan(0);
        for (const r of rows) expect(r.n).toBe(1);
      } finally {
        await c.end();
      }
    } finally {
      await empty.drop();
    }
  });

  it('`npx tolk migrate` resolves the package\'s own bin from the project directory', async () => {
    const empty = await emptyDatabase();
    try {
      const r = await run('npx', ['--no-install', 'tolk', 'migrate'], empty.url);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json).toEqual({ migrated: true });
      expect(await tableExists(empty.url, 'public.actors')).toBe(true);
    } finally {
      await empty.drop();
    }
  }, 120_000);
});

describe('tolk org', () => {
  it('creates with the documented defaults (paid, active, 600 minutes) and sets each field', async () => {
    const created = await ok('org', 'create', '--name', 'Acme');
    expect(Object.keys(created)).toEqual(['id']);
    expect(created.id).toMatch(/^org_[A-Za-z0-9]+$/);
    const row = (await q.query(`SELECT * FROM organizations WHERE id = $1`, [created.id])).rows[0];
    expect(row).toMatchObject({ name: 'Acme', plan: 'paid', status: 'active' });
    expect(Number(row.balance_seconds)).toBe(600 * 60);

    // `org set` with no change prints the organization as it is.
    const shown = await ok('org', 'set', created.id);
    expect(shown).toEqual({ id: created.id, name: 'Acme', plan: 'paid', status: 'active', minutes: 600, created_at: row.created_at.toISOString() });

    const changed = await ok('org', 'set', created.id, '--plan', 'free', '--status', 'suspended', '--minutes', '12.5');
    expect(changed).toMatchObject({ id: created.id, plan: 'free', status: 'suspended', minutes: 12.5 });
    const after = (await q.query(`SELECT * FROM organizations WHERE id = $1`, [created.id])).rows[0];
    expect(after).toMatchObject({ plan: 'free', status: 'suspended' });
    expect(Number(after.balance_seconds)).toBe(750);
    // Only the given fields change.
    expect(await ok('org', 'set', created.id, '--status', 'blocked')).toMatchObject({ plan: 'free', status: 'blocked', minutes: 12.5 });
  });

  it('commands run at once from several processes all succeed', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `Parallel ${i}`);
    const created = await Promise.all(names.map((n) => ok('org', 'create', '--name', n)));
    expect(new Set(created.map((c) => c.id)).size).toBe(names.length);
    const { rows } = await q.query(`SELECT name FROM organizations WHERE id = ANY($1) ORDER BY name`, [created.map((c) => c.id)]);
    expect(rows.map((r) => r.name)).toEqual(names);
  });

  it('creates with explicit plan, status and minutes', async () => {
    const { id } = await ok('org', 'create', '--name', 'Free co', '--plan', 'free', '--status', 'blocked', '--minutes', '0');
    expect(await ok('org', 'set', id)).toMatchObject({ id, name: 'Free co', plan: 'free', status: 'blocked', minutes: 0 });
  });

  it('refuses bad input with one JSON error and changes nothing', async () => {
    const before = (await q.query(`SELECT count(*)::int AS n FROM organizations`)).rows[0].n;
    await failsAll([
      [['org', 'create'], /--name/],
      [['org', 'create', '--name', 'X', '--plan', 'gold'], /--plan/],
      [['org', 'create', '--name', 'X', '--status', 'gone'], /--status/],
      [['org', 'create', '--name', 'X', '--minutes', 'lots'], /--minutes/],
      [['org', 'create', '--name', 'X', '--minutes', '-5'], /--minutes/],
    ]);
    expect((await q.query(`SELECT count(*)::int AS n FROM organizations`)).rows[0].n).toBe(before);
    expect(await fails('org', 'set', 'org_doesnotexist', '--plan', 'free')).toMatch(/org_doesnotexist/);
    const { id } = await ok('org', 'create', '--name', 'Y');
    expect(await fails('org', 'set', id, '--status', 'asleep')).toMatch(/--status/);
    expect(await ok('org', 'set', id)).toMatchObject({ status: 'active' });
  });
});

describe('tolk key', () => {
  let orgId: string;
  beforeAll(async () => { orgId = (await ok('org', 'create', '--name', 'Keys org')).id; });

  it('creates test and live keys with all permissions by default', async () => {
    const test = await ok('key', 'create', '--org', orgId, '--mode', 'test');
    expect(Object.keys(test).sort()).toEqual(['id', 'secret']);
    expect(test.id).toMatch(/^key_[A-Za-z0-9]+$/);
    expect(test.secret).toMatch(/^sk_test_[A-Za-z0-9]+$/);
    const live = await ok('key', 'create', '--org', orgId, '--mode', 'live');
    expect(live.secret).toMatch(/^sk_live_[A-Za-z0-9]+$/);
    const rows = (await q.query(`SELECT * FROM api_keys WHERE id = ANY($1) ORDER BY mode DESC`, [[test.id, live.id]])).rows;
    expect(rows.map((r) => r.mode)).toEqual(['test', 'live']);
    for (const r of rows) {
      expect([...r.permissions].sort()).toEqual([...PERMISSIONS].sort());
      expect(r).toMatchObject({ org_id: orgId, ip_allow: null, langs: null, voices: null, numbers: null, destinations: null,
        spend_day_minutes: null, spend_month_minutes: null, per_call_minutes: null, requests_per_minute: 60, expires_at: null,
        revoked_at: null, needs_review: false });
      // The secret itself is never stored.
      expect(JSON.stringify(r)).not.toContain(r.mode === 'test' ? test.secret : live.secret);
    }
    expect(await ok('key', 'create', '--org', orgId, '--mode', 'test', '--permissions', 'all')).toHaveProperty('secret');
  });

  it('stores every flag, and `key revoke` prints the key (without secret) with all of them', async () => {
    const created = await ok(
      'key', 'create', '--org', orgId, '--mode', 'live', '--name', 'Ops key',
      '--permissions', 'rooms:read,rooms:write,calls:dial',
      '--ip-allow', '10.0.0.0/8,192.168.1.7,2001:db8::/32',
      '--langs', 'en,es,pt-BR',
      '--voices', 'voice_a,voice_b',
      '--numbers', 'num_a',
      '--destinations', 'us,GB',
      '--spend-day', '10',
      '--spend-month', '100.5',
      '--per-call', '3',
      '--rpm', '120',
      '--expires-at', '2030-01-02T03:04:05Z',
    );
    const row = (await q.query(`SELECT * FROM api_keys WHERE id = $1`, [created.id])).rows[0];
    const expected = {
      id: created.id,
      org_id: orgId,
      mode: 'live',
      name: 'Ops key',
      secret_last4: created.secret.slice(-4),
      permissions: ['rooms:read', 'rooms:write', 'calls:dial'],
      ip_allow: ['10.0.0.0/8', '192.168.1.7', '2001:db8::/32'],
      langs: ['en', 'es', 'pt-BR'],
      voices: ['voice_a', 'voice_b'],
      numbers: ['num_a'],
      destinations: ['US', 'GB'],
      spend_day_minutes: 10,
      spend_month_minutes: 100.5,
      per_call_minutes: 3,
      requests_per_minute: 120,
      needs_review: false,
    };
    expect(row).toMatchObject({ ...expected, revoked_at: null });
    expect(row.expires_at.toISOString()).toBe('2030-01-02T03:04:05.000Z');

    const revoked = await ok('key', 'revoke', created.id);
    expect(revoked).toMatchObject({ ...expected, expires_at: '2030-01-02T03:04:05.000Z' });
    expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(revoked.created_at).toBe(row.created_at.toISOString());
    expect(revoked).not.toHaveProperty('secret');
    expect(revoked).not.toHaveProperty('secret_hash');
    expect(JSON.stringify(revoked)).not.toContain(created.secret);
    // Revoking again keeps the first revocation time.
    expect((await ok('key', 'revoke', created.id)).revoked_at).toBe(revoked.revoked_at);
  });

  it('`key needs-review` prints the key marked for review', async () => {
    const { id, secret } = await ok('key', 'create', '--org', orgId, '--mode', 'test');
    const shown = await ok('key', 'needs-review', id);
    expect(shown).toMatchObject({ id, org_id: orgId, mode: 'test', needs_review: true, revoked_at: null });
    expect(JSON.stringify(shown)).not.toContain(secret);
    expect((await q.query(`SELECT needs_review FROM api_keys WHERE id = $1`, [id])).rows[0].needs_review).toBe(true);
  });

  it('refuses unknown org, bad mode, bad permission, bad limits and missing options, creating nothing', async () => {
    const count = async () => (await q.query(`SELECT count(*)::int AS n FROM api_keys`)).rows[0].n as number;
    const before = await count();
    await failsAll([
      [['key', 'create', '--org', 'org_nope', '--mode', 'test'], /org_nope/],
      [['key', 'create', '--org', orgId, '--mode', 'prod'], /--mode/],
      [['key', 'create', '--org', orgId], /--mode/],
      [['key', 'create', '--mode', 'test'], /--org/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--permissions', 'rooms:read,teleport'], /teleport/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--ip-allow', '10.0.0.0/99'], /--ip-allow/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '0'], /--rpm/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--rpm', 'many'], /--rpm/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '1000000001'], /--rpm/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--spend-day', '-1'], /--spend-day/],
      [['key', 'create', '--org', orgId, '--mode', 'test', '--expires-at', 'someday'], /--expires-at/],
    ]);
    expect(await count()).toBe(before);
    await failsAll([
      [['key', 'revoke', 'key_nope'], /key_nope/],
      [['key', 'needs-review', 'key_nope'], /key_nope/],
      [['key', 'revoke'], /id/],
    ]);
  });
});

describe('tolk number add and event-type create', () => {
  let orgId: string;
  beforeAll(async () => { orgId = (await ok('org', 'create', '--name', 'Numbers org')).id; });

  it('adds numbers; --default moves the default', async () => {
    const first = await ok('number', 'add', '--org', orgId, '--e164', '+14155550111', '--label', 'Main', '--default');
    expect(Object.keys(first)).toEqual(['id']);
    expect(first.id).toMatch(/^num_[A-Za-z0-9]+$/);
    const second = await ok('number', 'add', '--org', orgId, '--e164', '+442071838750');
    const third = await ok('number', 'add', '--org', orgId, '--e164', '+4930123456', '--default');
    const rows = (await q.query(`SELECT id, e164, label, is_default FROM phone_numbers WHERE org_id = $1 ORDER BY created_at, id`, [orgId])).rows;
    expect(rows).toEqual(expect.arrayContaining([
      { id: first.id, e164: '+14155550111', label: 'Main', is_default: false },
      { id: second.id, e164: '+442071838750', label: null, is_default: false },
      { id: third.id, e164: '+4930123456', label: null, is_default: true },
    ]));
    expect(rows).toHaveLength(3);
    await failsAll([
      [['number', 'add', '--org', orgId, '--e164', '4155550111'], /--e164/],
      [['number', 'add', '--org', 'org_nope', '--e164', '+14155550111'], /org_nope/],
      [['number', 'add', '--org', orgId], /--e164/],
    ]);
  });

  it('creates an event type and prints its booking url on PUBLIC_BASE_URL', async () => {
    const et = await ok('event-type', 'create', '--org', orgId, '--page', 'acme', '--slug', 'intro', '--title', 'Intro call',
      '--duration', '45', '--tz', 'Europe/Lisbon', '--hours', 'mon-thu 08:00-12:00, fri 09:00-11:00');
    expect(Object.keys(et).sort()).toEqual(['id', 'url']);
    expect(et.id).toMatch(/^et_[A-Za-z0-9]+$/);
    expect(et.url).toBe(`${PUBLIC_BASE_URL}/book/acme/intro`);
    const row = (await q.query(`SELECT * FROM event_types WHERE id = $1`, [et.id])).rows[0];
    expect(row).toMatchObject({ org_id: orgId, page: 'acme', slug: 'intro', title: 'Intro call', duration_min: 45, tz: 'Europe/Lisbon',
      hours: 'mon-thu 08:00-12:00, fri 09:00-11:00', active: true });
    const plain = await ok('event-type', 'create', '--org', orgId, '--page', 'acme', '--slug', 'demo', '--title', 'Demo');
    expect((await q.query(`SELECT duration_min, tz, hours FROM event_types WHERE id = $1`, [plain.id])).rows[0])
      .toEqual({ duration_min: 30, tz: 'UTC', hours: 'mon-fri 09:00-17:00' });

    await failsAll([
      [['event-type', 'create', '--org', orgId, '--page', 'acme', '--slug', 'intro', '--title', 'Again'], /intro/],
      [['event-type', 'create', '--org', 'org_nope', '--page', 'x', '--slug', 'y', '--title', 'T'], /org_nope/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y', '--title', 'T', '--tz', 'Mars/Olympus'], /--tz/],
      [['event-type', 'create', '--org', orgId, '--page', 'Not A Slug', '--slug', 'y', '--title', 'T'], /--page/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y'], /--title/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y', '--title', 'T', '--hours', 'mon-fri 17:00-09:00'], /--hours.*17:00-09:00/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y', '--title', 'T', '--hours', 'mon-fri 09:00-12:00, wed 11:00-14:00'], /--hours.*overlap/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y', '--title', 'T', '--hours', 'someday 09:00-12:00'], /--hours/],
      [['event-type', 'create', '--org', orgId, '--page', 'x', '--slug', 'y', '--title', 'T', '--lang', 'English'], /--lang/],
    ]);
    // Several ranges a day, written back in one spelling; the host's language.
    const split = await ok('event-type', 'create', '--org', orgId, '--page', 'acme', '--slug', 'split', '--title', 'Split',
      '--hours', 'Mon-Fri 9:00-12:00,mon-fri 13:00-17:00', '--lang', 'pt-BR');
    expect((await q.query(`SELECT hours, lang FROM event_types WHERE id = $1`, [split.id])).rows[0])
      .toEqual({ hours: 'mon-fri 09:00-12:00, mon-fri 13:00-17:00', lang: 'pt-BR' });
  });
});

describe('tolk mail list', () => {
  it('prints {"data": []} on an empty outbox, then rows newest first with the documented fields, filtered by --to', async () => {
    expect(await ok('mail', 'list')).toEqual({ data: [] });
    await q.query(
      `INSERT INTO mail_outbox (to_addr, subject, text, ics, created_at) VALUES
        ('ana@example.com', 'First', 'hello 1', NULL, '2026-01-01T10:00:00Z'),
        ('bo@example.com', 'Second', 'hello 2', 'BEGIN:VCALENDAR', '2026-01-02T10:00:00Z'),
        ('Ana@Example.com', 'Third', 'hello 3', NULL, '2026-01-03T10:00:00Z')`,
    );
    const all = await ok('mail', 'list');
    expect(all).toEqual({
      data: [
        // The id (tolk mail show), operator.md's fields, then the delivery status and mode (kept: never left the outbox).
        { id: expect.stringMatching(/^\d+$/), to: 'Ana@Example.com', subject: 'Third', text: 'hello 3', ics: null, created_at: '2026-01-03T10:00:00.000Z', status: 'kept', livemode: false },
        { id: expect.stringMatching(/^\d+$/), to: 'bo@example.com', subject: 'Second', text: 'hello 2', ics: 'BEGIN:VCALENDAR', created_at: '2026-01-02T10:00:00.000Z', status: 'kept', livemode: false },
        { id: expect.stringMatching(/^\d+$/), to: 'ana@example.com', subject: 'First', text: 'hello 1', ics: null, created_at: '2026-01-01T10:00:00.000Z', status: 'kept', livemode: false },
      ],
    });
    const ana = await ok('mail', 'list', '--to', 'ana@example.com');
    expect(ana.data.map((m: { subject: string }) => m.subject)).toEqual(['Third', 'First']);
    expect(await ok('mail', 'list', '--to', 'nobody@example.com')).toEqual({ data: [] });
    expect(await fails('mail', 'list', '--to')).toMatch(/--to/);
  });
});

describe('tolk with a running server on the same database', () => {
  let t: TestApp;
  beforeAll(async () => { t = await startTestApp({ db }); });
  afterAll(async () => { await t?.close(); });

  const get = (secret: string, path = '/v1/rooms') => t.request('GET', path, { key: secret });

  it('seed prints an organization whose keys, number and event type work', async () => {
    const seeded = await ok('seed');
    expect(Object.keys(seeded).sort()).toEqual(['event_type_id', 'live_key', 'org_id', 'test_key']);
    expect(seeded.org_id).toMatch(/^org_/);
    expect(seeded.test_key).toMatch(/^sk_test_/);
    expect(seeded.live_key).toMatch(/^sk_live_/);
    expect(seeded.event_type_id).toMatch(/^et_/);
    for (const [key, livemode] of [[seeded.test_key, false], [seeded.live_key, true]] as const) {
      const me = await get(key, '/v1/me');
      expect(me.status).toBe(200);
      const body = await me.json();
      expect(body.organization.id).toBe(seeded.org_id);
      expect(body.permissions).toEqual([...PERMISSIONS].sort());
      expect(body.credential.mode).toBe(livemode ? 'live' : 'test');
    }
    const nums = (await q.query(`SELECT is_default FROM phone_numbers WHERE org_id = $1`, [seeded.org_id])).rows;
    expect(nums).toEqual([{ is_default: true }]);
    const et = (await q.query(`SELECT org_id FROM event_types WHERE id = $1`, [seeded.event_type_id])).rows[0];
    expect(et.org_id).toBe(seeded.org_id);
    // Seeding twice makes a second, separate demo organization.
    const again = await ok('seed');
    expect(again.org_id).not.toBe(seeded.org_id);
  });

  it('a key created by the CLI is served with its restrictions', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Restricted');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test', '--name', 'Narrow', '--permissions', 'rooms:read',
      '--spend-day', '5', '--rpm', '300');
    const me = await (await get(key.secret, '/v1/me')).json();
    expect(me).toMatchObject({
      credential: { id: key.id, name: 'Narrow', mode: 'test', needs_review: false },
      organization: { id: orgId, name: 'Restricted' },
      permissions: ['rooms:read'],
      limits: { spend_day_minutes: 5, requests_per_minute: 300 },
    });
    const write = await t.request('POST', '/v1/rooms', { key: key.secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: {} });
    expect(write.status).toBe(403);
    expect((await write.json()).code).toBe('insufficient_scope');
  });

  it('`tolk key revoke` in another process: the server refuses the key at once (401)', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Revoke org');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '600');
    // Served twice, so the credential sits in the server's cache.
    expect((await get(key.secret)).status).toBe(200);
    expect((await get(key.secret)).status).toBe(200);
    await ok('key', 'revoke', key.id);
    // Normally the very first request after the CLI exits is refused; the NOTIFY
    // is asynchronous, so allow it up to 2 s to arrive.
    const res = await until('the revoked key to be refused', async () => {
      const r = await get(key.secret);
      return r.status === 200 ? undefined : r;
    }, { timeoutMs: 2000, retryErrors: false });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe('unauthorized');
    // And it stays refused.
    expect((await get(key.secret)).status).toBe(401);
  });

  it('the invalidation comes from the CLI\'s NOTIFY: a change made behind the server\'s back stays cached until one arrives', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Cache org');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '600');
    expect((await get(key.secret)).status).toBe(200);
    // Control: revoke in SQL without NOTIFY; the cached credential is still served.
    await q.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [key.id]);
    expect((await get(key.secret)).status).toBe(200);
    // Any CLI change (here, to another organization) notifies every server to drop its cache.
    const { id: other } = await ok('org', 'create', '--name', 'Other');
    await ok('org', 'set', other, '--minutes', '1');
    const res = await until('the cache to be dropped', async () => {
      const r = await get(key.secret);
      return r.status === 200 ? undefined : r;
    }, { timeoutMs: 2000, retryErrors: false });
    expect(res.status).toBe(401);
  });

  it('`tolk org set --status blocked` → 403 org_blocked; suspended → org_suspended; active again → 200', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Block org');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '600');
    expect((await get(key.secret)).status).toBe(200);
    const refusedWith = async (code: string) => {
      const r = await until(`403 ${code}`, async () => {
        const res = await get(key.secret);
        if (res.status !== 403) return undefined;
        const body = await res.json();
        return body.code === code ? body : undefined;
      }, { timeoutMs: 2000, retryErrors: false });
      expect(r.code).toBe(code);
    };
    expect(await ok('org', 'set', orgId, '--status', 'blocked')).toMatchObject({ status: 'blocked' });
    await refusedWith('org_blocked');
    await ok('org', 'set', orgId, '--status', 'suspended');
    await refusedWith('org_suspended');
    await ok('org', 'set', orgId, '--plan', 'free', '--status', 'active');
    await refusedWith('paid_plan_required');
    await ok('org', 'set', orgId, '--plan', 'paid');
    expect((await until('the key to work again', async () => {
      const r = await get(key.secret);
      return r.status === 200 ? r : undefined;
    }, { timeoutMs: 2000, retryErrors: false })).status).toBe(200);
  });

  it('`tolk org set --minutes` shows in /v1/balance, and `tolk key needs-review` makes the key read-only', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Balance org');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test', '--rpm', '600');
    expect((await (await get(key.secret, '/v1/balance')).json()).minutes_left).toBe(600);
    await ok('org', 'set', orgId, '--minutes', '42');
    expect((await (await get(key.secret, '/v1/balance')).json()).minutes_left).toBe(42);

    const create = () => t.request('POST', '/v1/rooms', { key: key.secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: {} });
    expect((await create()).status).toBe(201);
    await ok('key', 'needs-review', key.id);
    const refused = await until('writes to be refused', async () => {
      const r = await create();
      return r.status === 201 ? undefined : r;
    }, { timeoutMs: 2000, retryErrors: false });
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('needs_review');
    expect((await get(key.secret)).status).toBe(200);
  });

  it('`tolk actors show` prints the persisted room actor: machine, state, context, version, history', async () => {
    const { id: orgId } = await ok('org', 'create', '--name', 'Actors org');
    const key = await ok('key', 'create', '--org', orgId, '--mode', 'test');
    const room = await (await t.request('POST', '/v1/rooms', { key: key.secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: {} })).json();

    const live = await ok('actors', 'show', room.id);
    expect(live).toMatchObject({ id: room.id, machine: 'room', state: 'live', context: { endReason: null }, version: 1, livemode: false, org_id: orgId });
    expect(live.history).toEqual([
      { version: 1, event: { type: 'OPEN' }, from: 'created', to: 'live', emitted: ['room.started'], at: expect.any(String) },
    ]);

    expect((await t.request('DELETE', `/v1/rooms/${room.id}`, { key: key.secret })).status).toBe(200);
    const ended = await ok('actors', 'show', room.id);
    expect(ended).toMatchObject({ machine: 'room', state: 'ended', context: { endReason: 'deleted' }, version: 2 });
    expect(ended.history.map((h: Record<string, unknown>) => ({ ...h, at: undefined }))).toEqual([
      { version: 1, event: { type: 'OPEN' }, from: 'created', to: 'live', emitted: ['room.started'], at: undefined },
      { version: 2, event: { type: 'END', reason: 'deleted' }, from: 'live', to: 'ended', emitted: ['room.ended'], at: undefined },
    ]);
    // Exactly what the store loads.
    expect(ended).toEqual(JSON.parse(JSON.stringify(await loadActor(t.pool, room.id))));

    await failsAll([
      [['actors', 'show', 'room_doesnotexist'], /room_doesnotexist/],
      [['actors', 'show'], /id/],
    ]);
  });
});

describe('tolk usage errors', () => {
  it('an unknown or missing command exits non-zero with one JSON error', async () => {
    await failsAll([
      [['frobnicate'], /frobnicate/],
      [['org', 'frobnicate'], /frobnicate/],
      [['org', 'create', '--name', 'X', '--colour', 'red'], /--colour/],
    ]);
    // No command at all, or a group without its subcommand: the error says so
    // (the usage itself goes to stderr).
    const none = await tolk();
    expect(none.code).not.toBe(0);
    expect(Object.keys(none.json)).toEqual(['error']);
    expect(none.json.error).toMatch(/command/i);
    expect(none.stderr).toMatch(/Usage: tolk/);
    const group = await tolk('key');
    expect(group.code).not.toBe(0);
    expect(group.json.error).toMatch(/command/i);
    expect(group.stderr).toMatch(/Usage: tolk key/);
  });

  it('a bad DATABASE_URL, or one where nothing listens, is one JSON error naming it, without the password', async () => {
    const notUrl = await tolkOn('not a url', 'seed');
    expect(notUrl.code).toBe(1);
    expect(notUrl.json).toEqual({ error: 'invalid environment: DATABASE_URL: must be a PostgreSQL URL: postgres://user:password@host:5432/database' });
    expect(notUrl.stderr).not.toMatch(/^\s+at /m);
    const port = await freePort();
    const down = await tolkOn(`postgres://tolk:hunter2@127.0.0.1:${port}/tolk`, 'seed');
    expect(down.code).toBe(1);
    expect(down.json.error).toBe(
      `cannot connect to DATABASE_URL (postgres://tolk@127.0.0.1:${port}/tolk): ECONNREFUSED; check that PostgreSQL runs there, or unset DATABASE_URL to use the embedded one`,
    );
    expect(down.stdout + down.stderr).not.toContain('hunter2');
  });
});
