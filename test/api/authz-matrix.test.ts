import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { v1Operations } from '../helpers/routes.ts';
import { PERMISSIONS } from '../../src/permissions.ts';

// Authentication and authorization over every operation the app documents in
// its own /v1/openapi.json (api.md section 5): no credential → 401 with
// WWW-Authenticate; a key holding every permission but the operation's
// x-permission → 403 insufficient_scope naming it in WWW-Authenticate.

let t: TestApp;
let doc: any;
type Op = { method: string; path: string; permission: string | undefined };
let ops: Op[] = [];

beforeAll(async () => {
  t = await startTestApp();
  const res = await t.request('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = await res.json();
  ops = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      ops.push({ method: method.toUpperCase(), path, permission: op['x-permission'] });
    }
  }
});
afterAll(async () => { await t?.close(); });

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x_authz_1');

function expectProblem(body: any, res: Response, status: number, code: string) {
  expect(res.status, `${code} expected`).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'request_id', 'status', 'title', 'type']);
  expect(body.code).toBe(code);
  expect(body.title).toBe(code);
  expect(body.status).toBe(status);
  expect(body.type.endsWith(`#${code}`)).toBe(true);
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
}

/** One key per set of permissions, reused across operations. */
const keys = new Map<string, Promise<string>>();
function keyWith(perms: string[]): Promise<string> {
  const id = perms.join(',');
  let k = keys.get(id);
  if (!k) {
    k = t.key({ mode: 'live', rpm: 100_000_000, permissions: id }).then((x) => x.secret);
    keys.set(id, k);
  }
  return k;
}

describe('authorization matrix over /v1/openapi.json', () => {
  it('documents a known permission on every registered /v1 operation but GET /v1/me', () => {
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual(v1Operations());
    for (const op of ops) {
      if (op.method === 'GET' && op.path === '/v1/me') {
        expect(op.permission, 'GET /v1/me needs only a valid credential').toBeUndefined();
        continue;
      }
      expect(op.permission, `${op.method} ${op.path} has x-permission`).toBeDefined();
      expect(PERMISSIONS as readonly string[], `${op.method} ${op.path}`).toContain(op.permission);
    }
  });

  it('answers 401 unauthorized with WWW-Authenticate on every operation without a credential', async () => {
    for (const op of ops) {
      const label = `${op.method} ${op.path}`;
      const res = await t.request(op.method, concrete(op.path), op.method === 'POST' ? { body: {} } : {});
      const body = await res.json();
      expect(res.status, label).toBe(401);
      expectProblem(body, res, 401, 'unauthorized');
      expect(res.headers.get('www-authenticate'), label).toMatch(/^Bearer /);
    }
  });

  it('answers 401 on every operation for a malformed or unknown key', async () => {
    for (const op of ops) {
      for (const auth of ['Basic Zm9vOmJhcg==', 'Bearer sk_live_doesnotexist0000000000', 'Bearer']) {
        const res = await t.request(op.method, concrete(op.path), { headers: { authorization: auth } });
        const body = await res.json();
        expect(res.status, `${op.method} ${op.path} with ${auth}`).toBe(401);
        expectProblem(body, res, 401, 'unauthorized');
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    }
  });

  it('answers 403 insufficient_scope naming the permission when only that permission is missing', async () => {
    for (const op of ops) {
      if (!op.permission) continue;
      const label = `${op.method} ${op.path}`;
      const secret = await keyWith(PERMISSIONS.filter((p) => p !== op.permission));
      // Even with a valid-looking body and an Idempotency-Key the scope check decides.
      const res = await t.request(op.method, concrete(op.path), {
        key: secret,
        headers: { 'idempotency-key': crypto.randomUUID() },
        ...(op.method === 'POST' ? { body: {} } : {}),
      });
      const body = await res.json();
      expect(res.status, label).toBe(403);
      expectProblem(body, res, 403, 'insufficient_scope');
      const www = res.headers.get('www-authenticate') ?? '';
      expect(www, label).toContain('error="insufficient_scope"');
      expect(www, label).toContain(`scope="${op.permission}"`);
      expect(body.message, label).toContain(op.permission);
    }
  });

  it('passes authorization with exactly the route permission', async () => {
    for (const op of ops) {
      if (!op.permission) continue;
      const label = `${op.method} ${op.path}`;
      const secret = await keyWith([op.permission]);
      const res = await t.request(op.method, concrete(op.path), {
        key: secret,
        headers: { 'idempotency-key': crypto.randomUUID() },
        ...(op.method === 'POST' ? { body: {} } : {}),
      });
      const body = res.status >= 400 ? await res.json() : null;
      expect(res.status, `${label}: ${JSON.stringify(body)}`).not.toBe(401);
      if (res.status >= 500) expect([res.status, body?.code], label).toEqual([501, 'not_available_yet']);
      if (body) expect(body.code, label).not.toBe('insufficient_scope');
    }
  });

  it('GET /v1/me needs only a valid credential', async () => {
    const secret = await keyWith(['usage:read']);
    const res = await t.request('GET', '/v1/me', { key: secret });
    expect(res.status).toBe(200);
    const me = await res.json();
    expect(me.permissions).toEqual(['usage:read']);
    const none = await t.request('GET', '/v1/me');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });
});
