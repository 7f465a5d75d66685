import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from './helpers/app.ts';
import { ROOT, freePort, serverNode, startServerProcess, type ServerProcess } from './helpers/process.ts';
import { until } from './helpers/wait.ts';

// What a person meets in their first minutes, each part as they meet it: the
// server as a process, the CLI as a process of its own on the same database.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

type Run = { code: number | null; stdout: string; stderr: string; json: Record<string, any> };

/** `node bin/tolk.js ...` with the given environment (PUBLIC_BASE_URL and PORT unset unless given). */
function tolk(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const full: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent', ...env };
  for (const k of ['PUBLIC_BASE_URL', 'PORT']) if (!(k in env)) delete full[k];
  return new Promise((resolve, reject) => {
    const child = spawn(serverNode(), ['bin/tolk.js', ...args], { cwd: ROOT, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      // operator.md: one JSON object on one line, and nothing else on stdout.
      expect(stdout.endsWith('\n') && !stdout.slice(0, -1).includes('\n'), `one line on stdout: ${stdout} (stderr ${stderr})`).toBe(true);
      resolve({ code, stdout, stderr, json: JSON.parse(stdout) });
    });
  });
}

const bannerLine = (s: ServerProcess, label: string) => s.stderr().split('\n').find((l) => l.trim().startsWith(`${label}:`))?.trim();

let db: TestDb;
let dataDir: string;
let server: ServerProcess;
let port: number;
let orgId: string;
let testKey: string;

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-first-contact-'));
  port = await freePort();
  // As `npm start` runs it: no PUBLIC_BASE_URL, a PORT other than 8080.
  server = await startServerProcess(db.url, { LOG_LEVEL: 'info', TOLK_DATA_DIR: dataDir }, port, { unset: ['PUBLIC_BASE_URL'] });
  await until('the banner', async () => server.stderr().includes('Tolk is listening'), 30_000);
  orgId = /first start: seeded a demo organization \((org_\w+)\)/.exec(server.stderr())![1]!;
  testKey = /test key: (sk_test_\S+)/.exec(server.stderr())![1]!;
});

afterAll(async () => {
  await server?.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
  await db?.drop();
});

describe('the CLI prints urls of the server that runs', () => {
  it('event-type create without PUBLIC_BASE_URL: the address the server started with, not :8080', async () => {
    expect(server.stderr()).toContain(`Tolk is listening on http://localhost:${port}`);
    const r = await tolk({ DATABASE_URL: db.url }, 'event-type', 'create', '--org', orgId, '--page', 'ana', '--slug', 'intro', '--title', 'Intro');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.url).toBe(`http://localhost:${port}/book/ana/intro`);
    const page = await fetch(r.json.url.replace('localhost', '127.0.0.1'));
    expect(page.status, `${await page.clone().text()} ${server.output().slice(-3000)}`).toBe(200);

    // PUBLIC_BASE_URL, or PORT, set for the CLI still decides.
    const pub = await tolk({ DATABASE_URL: db.url, PUBLIC_BASE_URL: 'https://tolk.example.com' }, 'event-type', 'create', '--org', orgId, '--page', 'ana', '--slug', 'intro-2', '--title', 'Intro');
    expect(pub.json.url).toBe('https://tolk.example.com/book/ana/intro-2');
    const withPort = await tolk({ DATABASE_URL: db.url, PORT: '9999' }, 'event-type', 'create', '--org', orgId, '--page', 'ana', '--slug', 'intro-3', '--title', 'Intro');
    expect(withPort.json.url).toBe('http://localhost:9999/book/ana/intro-3');
  });
});

describe('the favicon', () => {
  it('GET /favicon.ico answers our icon with caching headers, and 304 when the browser has it', async () => {
    const res = await fetch(`${server.base}/favicon.ico`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/x-icon');
    expect(res.headers.get('cache-control')).toBe('public, max-age=604800');
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    const body = Buffer.from(await res.arrayBuffer());
    // An ICO (reserved 0, type 1, one image) of a 32×32 PNG.
    expect([...body.subarray(0, 6)]).toEqual([0, 0, 1, 0, 1, 0]);
    expect(body[6]).toBe(32);
    expect(body.subarray(22, 30).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
    expect(body.readUInt32LE(14)).toBe(body.length - 22);

    const again = await fetch(`${server.base}/favicon.ico`, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect((await again.arrayBuffer()).byteLength).toBe(0);
    expect((await fetch(`${server.base}/favicon.ico`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('a meeting\'s starts_at without an offset', () => {
  it('400 naming the field and saying an offset is required', async () => {
    const post = (starts_at: string, n: number) => fetch(`${server.base}/v1/meetings`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${testKey}`, 'Idempotency-Key': `offset-${n}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Review', starts_at }),
    });
    const noOffset = await post('2030-12-01T15:00:00', 1);
    expect(noOffset.status).toBe(400);
    expect(noOffset.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await noOffset.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_request');
    expect(body.message).toBe('starts_at: include a time-zone offset, e.g. 2026-12-01T15:00:00Z or 2026-12-01T15:00:00-03:00');
    const notADate = (await (await post('tomorrow', 2)).json()) as { message: string };
    expect(notADate.message).toBe('starts_at: must be a date and time with a time-zone offset, e.g. 2026-12-01T15:00:00Z or 2026-12-01T15:00:00-03:00');
  });
});

describe('mail in the outbox, read as a person would', () => {
  it('tolk mail list shows each id; tolk mail show ID prints From, To, Subject, Date and the text, and saves the invitation\'s .ics', async () => {
    const to = `guest-${Date.now()}@example.com`;
    const starts = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const res = await fetch(`${server.base}/v1/meetings`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${testKey}`, 'Idempotency-Key': 'mail-show-1', 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Planning', starts_at: starts, invitees: [to], langs: ['en', 'pt'] }),
    });
    expect(res.status).toBe(201);

    const list = await tolk({ DATABASE_URL: db.url }, 'mail', 'list', '--to', to);
    expect(list.code, list.stderr).toBe(0);
    expect(list.json.data).toHaveLength(1);
    const listed = list.json.data[0];
    // operator.md's fields are all there; id is added.
    for (const f of ['to', 'subject', 'text', 'ics', 'created_at']) expect(listed).toHaveProperty(f);
    expect(listed.id).toMatch(/^\d+$/);

    const shown = await tolk({ DATABASE_URL: db.url, TOLK_DATA_DIR: dataDir }, 'mail', 'show', listed.id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json).toMatchObject({ id: listed.id, to, subject: listed.subject, text: listed.text, date: listed.created_at, ics_method: 'REQUEST', livemode: false });
    expect(shown.json.from).toMatch(/^Tolk <no-reply@localhost>$/);
    expect(shown.json.ics_path).toBe(path.join(dataDir, 'mail', listed.id, 'invite.ics'));
    const ics = fs.readFileSync(shown.json.ics_path, 'utf8');
    expect(ics).toBe(listed.ics);
    expect(ics).toMatch(/^BEGIN:VCALENDAR/);
    expect(fs.statSync(shown.json.ics_path).mode & 0o777).toBe(0o600);

    // --ics-out puts it where asked.
    const out = path.join(dataDir, 'elsewhere', 'planning.ics');
    const there = await tolk({ DATABASE_URL: db.url }, 'mail', 'show', listed.id, '--ics-out', out);
    expect(there.json.ics_path).toBe(out);
    expect(fs.readFileSync(out, 'utf8')).toBe(listed.ics);

    for (const id of ['999999999', 'abc']) {
      const missing = await tolk({ DATABASE_URL: db.url }, 'mail', 'show', id);
      expect(missing.code).toBe(2);
      expect(missing.json).toEqual({ error: `no mail with id ${id}; tolk mail list shows them` });
    }
  });
});

describe('the restart banner names the organization holding the person\'s data', () => {
  it('the one whose data changed last, not the first one', async () => {
    // A second organization (npx tolk seed), whose key the person then works with.
    const seeded = await tolk({ DATABASE_URL: db.url }, 'seed');
    expect(seeded.code, seeded.stderr).toBe(0);
    const other = seeded.json as { org_id: string; test_key: string };
    const room = await fetch(`${server.base}/v1/rooms`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${other.test_key}`, 'Idempotency-Key': 'banner-1', 'Content-Type': 'application/json' },
      body: JSON.stringify({ title: 'Standup', langs: ['en', 'pt'] }),
    });
    expect(room.status).toBe(201);

    const again = await startServerProcess(db.url, { TOLK_DATA_DIR: dataDir }, undefined, { unset: ['PUBLIC_BASE_URL'] });
    try {
      await until('the banner', async () => again.stderr().includes('Tolk is listening'), 30_000);
      expect(bannerLine(again, 'a test key')).toBe(
        `a test key: npx tolk key create --org ${other.org_id} --mode test   (the organization whose data changed last; or npx tolk seed: a new demo organization with keys)`,
      );
    } finally {
      await again.kill();
    }
  });

  it('with no data yet: the organization whose keys made requests last', async () => {
    const fresh = await createTestDatabase();
    try {
      const first = await startServerProcess(fresh.url);
      await until('the banner', async () => first.stderr().includes('Tolk is listening'), 30_000);
      const seeded = (await tolk({ DATABASE_URL: fresh.url }, 'seed')).json as { org_id: string; test_key: string };
      for (let i = 0; i < 3; i++) {
        expect((await fetch(`${first.base}/v1/me`, { headers: { Authorization: `Bearer ${seeded.test_key}` } })).status).toBe(200);
      }
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      try {
        // Counted requests reach the database once a second.
        await until('the requests to be counted', async () => (await c.query(`SELECT 1 FROM request_counts WHERE org_id = $1`, [seeded.org_id])).rows.length > 0, 10_000);
      } finally {
        await c.end();
      }
      await first.kill();
      const next = await startServerProcess(fresh.url);
      try {
        await until('the banner', async () => next.stderr().includes('Tolk is listening'), 30_000);
        expect(bannerLine(next, 'a test key')).toContain(`--org ${seeded.org_id} --mode test   (the organization whose keys were used last;`);
      } finally {
        await next.kill();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('with no data and no request yet: the first start\'s organization (its keys in first-keys.json)', async () => {
    const fresh = await createTestDatabase();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-first-contact-'));
    try {
      const first = await startServerProcess(fresh.url, { TOLK_DATA_DIR: dir });
      await until('the banner', async () => first.stderr().includes('Tolk is listening'), 30_000);
      const firstOrg = JSON.parse(fs.readFileSync(path.join(dir, 'first-keys.json'), 'utf8')).org_id as string;
      await first.kill();
      // An older organization than the first start's: the banner still names the first start's.
      const older = await tolk({ DATABASE_URL: fresh.url }, 'org', 'create', '--name', 'Made by hand');
      const c = new pg.Client({ connectionString: fresh.url });
      await c.connect();
      await c.query(`UPDATE organizations SET created_at = now() - interval '1 day' WHERE id = $1`, [older.json.id]);
      await c.end();
      const next = await startServerProcess(fresh.url, { TOLK_DATA_DIR: dir });
      try {
        await until('the banner', async () => next.stderr().includes('Tolk is listening'), 30_000);
        expect(bannerLine(next, 'a test key')).toContain(`--org ${firstOrg} --mode test   (the first start's, keys in ${dir}/first-keys.json;`);
      } finally {
        await next.kill();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await fresh.drop();
    }
  });
});

describe('logs', () => {
  it('JSON lines when stdout is not a terminal (log shippers)', async () => {
    await fetch(`${server.base}/v1/me`, { headers: { Authorization: `Bearer ${testKey}` } });
    await until('a request line', async () => server.output().includes('"msg":"GET /v1/me 200 '), 10_000);
    const lines = server.output().split('\n').filter((l) => l.startsWith('{'));
    expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
  });

  it('readable lines in a terminal: time, level and message, no JSON', async () => {
    const p = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-tty-'));
    // script(1) runs the server on a pseudo-terminal, as a person's shell does.
    const child = spawn('script', ['-qfec', `${serverNode()} src/server.ts`, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url, PORT: String(p), HOST: '127.0.0.1', LOG_LEVEL: 'info', TOLK_DATA_DIR: dir, TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', TOLK_SIP_LISTEN: '127.0.0.1:0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr!.setEncoding('utf8').on('data', (d) => { out += d; });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      await until('the banner on the terminal', async () => out.includes('Tolk is listening'), 30_000);
      await fetch(`http://127.0.0.1:${p}/v1/me`, { headers: { Authorization: `Bearer ${testKey}` } });
      await until('the request line', async () => out.includes('GET /v1/me 200 '), 10_000);
      const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
      expect(plain).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/v1\/me 200 [\d.]+ ms \(req_\w+\)\r?$/m);
      expect(plain).not.toMatch(/^\{"level"/m);
      // The redaction still applies to what pino-pretty prints.
      expect(plain).not.toContain(testKey);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the README and its docs', () => {
  const docs = fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));

  it('keep the first screen to a newcomer\'s needs: the two commands at the top, the rest in docs/', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1]!;
    expect(firstBlock).toMatch(/^npm ci && npm start/m);
    expect(firstBlock).toMatch(/^npm ci && npm test/m);
    expect(readme.split('\n').length).toBeLessThan(150);
    for (const d of docs) expect(readme, `README links ${d}`).toContain(`](${d})`);
  });

  it('link only to files that exist', () => {
    for (const file of ['README.md', ...docs]) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        expect(fs.existsSync(path.join(ROOT, path.dirname(file), target)), `${file} links ${target}`).toBe(true);
      }
    }
  });
});

describe('the README', () => {
  it('links what a clone has: /docs and the OpenAPI document, not the spec folder beside the project', () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).not.toContain('../shared/spec');
    expect(readme).toContain('/v1/openapi.json');
    expect(readme).toMatch(/\[`openapi\.json`\]\(openapi\.json\)/);
    expect(fs.existsSync(path.join(ROOT, 'openapi.json'))).toBe(true);
  });
});
