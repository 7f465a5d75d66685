import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { ROOT, freePort, serverNode, startServerProcess, until, type ServerProcess } from '../helpers/process.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { terminalLine } from '../../src/startup.ts';

// One line a request at the default level (issue 44, src/http/request-log.ts):
// a real server started as an operator starts it, LOG_LEVEL unset, writes one
// line for each request, naming its method, URL, status, time and request id;
// in a terminal (pino-pretty) too, where Fastify's two lines were fifteen.
// What came in (host, remote address) is a line at debug.

let db: TestDb;
let pool: Pool;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url);
  // An organization before the start: no first-start seeding.
  const org = await createOrg(pool, { name: 'Log lines org' });
  key = (await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 })).secret;
});

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

type Sent = { method: string; path: string; body?: unknown; key?: string | null; status: number };

const REQUESTS: Sent[] = [
  { method: 'POST', path: '/v1/rooms', body: { title: 'Log lines' }, status: 201 },
  { method: 'GET', path: '/v1/me', status: 200 },
  { method: 'GET', path: '/v1/me', key: 'sk_test_not-a-key', status: 401 },
  { method: 'GET', path: '/v1/nothing-here', status: 404 },
  // Refused by Fastify before any route (a URL it cannot decode): a line all the same.
  { method: 'GET', path: '/v1/%zz', status: 400 },
];

function send(base: string, r: Sent): Promise<Response> {
  const headers: Record<string, string> = {};
  const k = r.key === undefined ? key : r.key;
  if (k) headers.authorization = `Bearer ${k}`;
  if (r.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['idempotency-key'] = crypto.randomUUID();
  }
  return fetch(`${base}${r.path}`, { method: r.method, headers, body: r.body === undefined ? undefined : JSON.stringify(r.body) });
}

/**
 * Sends one request once the log is quiet after the one before, and returns
 * every line the log gained up to and including the request's own (found by
 * its X-Request-Id).
 */
async function linesOf(output: () => string, base: string, r: Sent): Promise<{ id: string; lines: string[] }> {
  const before = output().length;
  const res = await send(base, r);
  await res.arrayBuffer();
  expect(res.status, `${r.method} ${r.path}`).toBe(r.status);
  const id = res.headers.get('x-request-id')!;
  expect(id).toMatch(/^req_/);
  const gained = await until(`the line of ${r.method} ${r.path}`, async () => {
    const text = output().slice(before);
    return text.includes(id) ? text : undefined;
  }, 10_000);
  return { id, lines: gained.split(/\r?\n/).filter((l) => l.trim() !== '') };
}

describe('the request log at the default level (LOG_LEVEL unset)', () => {
  let server: ServerProcess;
  afterAll(async () => { await server?.kill(); });

  it('writes one JSON line a request: method, URL, status, time and request id', async () => {
    server = await startServerProcess(db.url, {}, undefined, { unset: ['LOG_LEVEL'] });
    // The start's own requests (the helper polls /v1/openapi.json) are logged before these.
    await linesOf(server.output, server.base, REQUESTS[1]!);
    for (const r of REQUESTS) {
      const { id, lines } = await linesOf(server.output, server.base, r);
      expect(lines, `${r.method} ${r.path}`).toHaveLength(1);
      const line = JSON.parse(lines[0]!);
      expect(line).toMatchObject({ level: 30, reqId: id, method: r.method, url: r.path, statusCode: r.status });
      expect(typeof line.responseTime).toBe('number');
      expect(line.msg).toBe(`${r.method} ${r.path} ${r.status} ${line.responseTime} ms`);
    }
    // The health check a load balancer polls writes nothing at info.
    const before = server.output().length;
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    await linesOf(server.output, server.base, REQUESTS[1]!);
    expect(server.output().slice(before)).not.toContain('/healthz');
  });
});

describe('the request log at debug', () => {
  let server: ServerProcess;
  afterAll(async () => { await server?.kill(); });

  it('adds what came in: host and remote address, before the request\'s line', async () => {
    server = await startServerProcess(db.url, { LOG_LEVEL: 'debug' });
    const before = server.output().length;
    const res = await send(server.base, REQUESTS[1]!);
    await res.arrayBuffer();
    const id = res.headers.get('x-request-id')!;
    const mine = await until('the request\'s lines', async () => {
      const lines = server.output().slice(before).split('\n').filter((l) => l.includes(id)).map((l) => JSON.parse(l));
      return lines.some((l) => l.level === 30) ? lines : undefined;
    }, 10_000);
    expect(mine[0]).toMatchObject({ level: 20, msg: 'incoming request', req: { method: 'GET', url: '/v1/me', remoteAddress: '127.0.0.1' } });
    expect(mine.at(-1)).toMatchObject({ level: 30, msg: expect.stringMatching(/^GET \/v1\/me 200 /) });
  });
});

describe('the request log in a terminal', () => {
  it('is one line a request: time, level, then method, URL, status, time and request id', async () => {
    const port = await freePort();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-tty-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', TOLK_DATA_DIR: dir,
      TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', TOLK_SIP_LISTEN: '127.0.0.1:0',
    };
    delete env.LOG_LEVEL;
    // script(1) runs the server on a pseudo-terminal, as a person's shell does: pino-pretty is on.
    const child = spawn('script', ['-qfec', `${serverNode()} src/server.ts`, '/dev/null'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr!.setEncoding('utf8').on('data', (d) => { out += d; });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const plain = () => out.replace(/\x1b\[[0-9;]*m/g, '');
    try {
      await until('the banner on the terminal', async () => out.includes('Tolk is listening'), 30_000);
      const base = `http://127.0.0.1:${port}`;
      for (const r of REQUESTS) {
        const { id, lines } = await linesOf(plain, base, r);
        expect(lines, `${r.method} ${r.path}`).toHaveLength(1);
        const path = r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        expect(lines[0]).toMatch(new RegExp(`^\\[\\d{2}:\\d{2}:\\d{2}\\.\\d{3}\\] INFO: ${r.method} ${path} ${r.status} [\\d.]+ ms \\(${id}\\)$`));
      }
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('what a terminal gets of a line (startup.ts terminalLine)', () => {
  it('a request\'s line: its message and request id; an error, or any other line, whole', () => {
    const request = { level: 30, time: 1, reqId: 'req_1', method: 'GET', url: '/v1/me', statusCode: 200, responseTime: 3.2, msg: 'GET /v1/me 200 3.2 ms' };
    expect(terminalLine(`${JSON.stringify(request)}\n`)).toEqual({ level: 30, time: 1, msg: 'GET /v1/me 200 3.2 ms (req_1)' });
    const failed = JSON.stringify({ ...request, level: 50, err: { type: 'Error', message: 'socket hang up', stack: 'Error: socket hang up\n    at x' } });
    expect(terminalLine(failed)).toBe(failed);
    const unhandled = JSON.stringify({ level: 50, time: 1, reqId: 'req_1', err: { type: 'Error', message: 'boom', stack: 'Error: boom' }, msg: 'unhandled error' });
    expect(terminalLine(unhandled)).toBe(unhandled);
    expect(terminalLine('not JSON "responseTime":')).toBe('not JSON "responseTime":');
  });
});
