import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { specText } from '../helpers/spec.ts';

// The error catalogue (/docs/errors), the error responses /v1/openapi.json
// declares, and what the server really answers agree (api.md section 7): a
// wrong method is 405 with Allow, a body that is not JSON is 415, and every
// code the service answers is listed, marked as api.md's or the service's own.

let t: TestApp;
let doc: any;
type Entry = { code: string; status: number; description: string; source: string; answered: boolean };
let catalogue: Entry[] = [];
const byCode = (code: string) => catalogue.find((e) => e.code === code);

beforeAll(async () => {
  t = await startTestApp();
  doc = await (await t.request('GET', '/v1/openapi.json')).json();
  const res = await t.request('GET', '/docs/errors');
  expect(res.status).toBe(200);
  catalogue = (await res.json()).data;
});
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const PROBLEM_FIELDS = ['code', 'message', 'request_id', 'status', 'title', 'type'];

/** Asserts the problem+json and the headers every answer carries; returns the body. */
async function expectProblem(res: TestResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const p = await res.json();
  expect(Object.keys(p).sort()).toEqual(PROBLEM_FIELDS);
  expect(p).toMatchObject({ code, title: code, status });
  expect(p.type).toMatch(new RegExp(`^https?://\\S+/docs/errors#${code}$`));
  expect(res.headers.get('x-request-id')).toBe(p.request_id);
  expect(res.headers.get('service-version')).toBeTruthy();
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers.get(h), h).toMatch(/^\d+$/);
  return p;
}

// ---- the catalogue against api.md section 7 ----------------------------

// The section 7 table of api.md (the copy the repository carries), and the
// codes it is known to hold, so that a table the parser misreads fails.
const SPEC_COPY: Record<string, number> = {
  invalid_request: 400, idempotency_key_required: 400, unauthorized: 401, spend_limit_reached: 402, insufficient_scope: 403,
  needs_review: 403, paid_plan_required: 403, ip_not_allowed: 403, language_not_allowed: 403, voice_not_allowed: 403,
  number_not_allowed: 403, destination_not_allowed: 403, org_blocked: 403, org_suspended: 403, not_found: 404,
  idempotency_mismatch: 409, idempotency_in_progress: 409, slot_taken: 409, session_ended: 409, rate_limited: 429,
  too_many_sessions: 429, test_daily_limit: 429, not_available_yet: 501, api_disabled: 503, mcp_disabled: 503, booking_unavailable: 503,
};

function specCodes(): Record<string, number> {
  const text = specText();
  const section = text.slice(text.indexOf('## 7. Errors'), text.indexOf('## 8.'));
  const codes: Record<string, number> = {};
  for (const m of section.matchAll(/^\| (\d{3}) \| ([a-z_, ]+) \|/gm)) {
    for (const code of m[2]!.split(',').map((c) => c.trim())) codes[code] = Number(m[1]);
  }
  return codes;
}

describe('the error catalogue (/docs/errors)', () => {
  it("lists api.md's codes with their status as `api.md`, and the rest as the service's own", () => {
    const spec = specCodes();
    expect(Object.keys(spec).length).toBeGreaterThanOrEqual(Object.keys(SPEC_COPY).length);
    expect(new Set(catalogue.map((e) => e.code)).size, 'each code once').toBe(catalogue.length);
    for (const [code, status] of Object.entries(spec)) expect(byCode(code), code).toMatchObject({ status, source: 'api.md' });
    const ours = catalogue.filter((e) => !(e.code in spec));
    expect(ours.every((e) => e.source === 'service')).toBe(true);
    expect(Object.fromEntries(ours.map((e) => [e.code, e.status]))).toEqual({
      method_not_allowed: 405, conflict: 409, payload_too_large: 413, unsupported_media_type: 415, internal_error: 500,
    });
    for (const e of catalogue) {
      expect(e.description.length, e.code).toBeGreaterThan(10);
      expect(typeof e.answered, e.code).toBe('boolean');
    }
  });

  it('reads from api.md at least every code known here', () => {
    expect(specCodes()).toMatchObject(SPEC_COPY);
  });
});

// ---- the catalogue against /v1/openapi.json ----------------------------

/** A response object, following a $ref into components.responses. */
const resolve = (res: any) => (res.$ref ? doc.components.responses[res.$ref.replace('#/components/responses/', '')] : res);

/** The status and codes one error response declares (its problem schema's `status` const and `code` enum). */
function declaredBy(res: any): { status: number; codes: string[] } {
  const r = resolve(res);
  expect(Object.keys(r.content)).toEqual(['application/problem+json']);
  const props = r.content['application/problem+json'].schema.allOf[1].properties;
  return { status: props.status.const, codes: props.code.enum };
}

/** "status code" pairs every operation of the document declares. */
function operationErrors(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      for (const [status, res] of Object.entries<any>(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const d = declaredBy(res);
        expect(String(d.status), `${method} ${path} ${status}`).toBe(status);
        for (const code of d.codes) out.set(`${status} ${code}`, (out.get(`${status} ${code}`) ?? new Set()).add(`${method.toUpperCase()} ${path}`));
      }
    }
  }
  return out;
}

/** The codes one operation declares, by status. */
function declaredFor(method: string, path: string): Record<string, string[]> {
  const op = doc.paths[path][method.toLowerCase()];
  const out: Record<string, string[]> = {};
  for (const [status, res] of Object.entries<any>(op.responses)) if (/^[45]/.test(status)) out[status] = declaredBy(res).codes;
  return out;
}

describe('the catalogue and /v1/openapi.json', () => {
  it('declares only codes of the catalogue, each under its status, and only codes the server answers', () => {
    const declared = operationErrors();
    expect(declared.size).toBeGreaterThan(10);
    for (const pair of declared.keys()) {
      const [status, code] = pair.split(' ');
      expect(byCode(code!), pair).toMatchObject({ status: Number(status), answered: true });
    }
  });

  it('declares every code the server answers: on the operations that answer it, 405 for any path', () => {
    const declared = new Set([...operationErrors().keys()].map((p) => p.split(' ')[1]));
    // 405 belongs to no operation (it answers the methods a path lacks): one shared response, with Allow.
    expect(declared.has('method_not_allowed')).toBe(false);
    expect(declaredBy(doc.components.responses.method_not_allowed)).toEqual({ status: 405, codes: ['method_not_allowed'] });
    expect(doc.components.responses.method_not_allowed.headers.Allow).toBeDefined();
    declared.add('method_not_allowed');
    // mcp_disabled is answered by /mcp, which the /v1 document does not describe (test/mcp/http.test.ts checks it).
    expect(catalogue.filter((e) => e.answered && !declared.has(e.code)).map((e) => e.code)).toEqual(['mcp_disabled']);
    // Every code of the spec is answered somewhere.
    expect(catalogue.filter((e) => !e.answered).map((e) => e.code).sort()).toEqual([]);
  });

  it('declares 404 on every operation with a path id, and 415 and 413 on every operation that reads a body', () => {
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const d = declaredFor(method, path);
        const label = `${method.toUpperCase()} ${path}`;
        expect(d['401'], label).toEqual(['unauthorized']);
        expect(d['500'], label).toEqual(['internal_error']);
        // Endpoints not built yet answer 501 before looking the id up.
        if (path.includes('{') && !op.description?.startsWith('Not available yet')) expect(d['404'], label).toEqual(['not_found']);
        if (method !== 'get') {
          expect(d['413'], label).toEqual(['payload_too_large']);
          expect(d['415'], label).toEqual(['unsupported_media_type']);
        }
      }
    }
  });
});

// ---- wrong methods -----------------------------------------------------

describe('a method the path does not accept', () => {
  it('PUT /v1/rooms is 405 with Allow: GET, HEAD, POST', async () => {
    const { secret } = await t.key();
    const p = await expectProblem(await t.request('PUT', '/v1/rooms', { key: secret, body: { title: 'x' } }), 405, 'method_not_allowed');
    expect(p.message).toMatch(/^PUT \/v1\/rooms: /);
    const res = await t.request('PUT', '/v1/rooms', { key: secret });
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(byCode('method_not_allowed')).toMatchObject({ status: 405, source: 'service', answered: true });
  });

  it('DELETE /v1/me is 405 with Allow: GET, HEAD', async () => {
    const res = await t.request('DELETE', '/v1/me');
    await expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('PATCH on a room path is 405 for any id, and every method Allow names is served there', async () => {
    const { secret } = await t.key();
    const unknown = await t.request('PATCH', '/v1/rooms/room_123', { key: secret, body: { title: 'x' } });
    await expectProblem(unknown, 405, 'method_not_allowed');
    expect(unknown.headers.get('allow')).toBe('GET, HEAD, DELETE');

    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    const res = await t.request('PATCH', `/v1/rooms/${room.id}`, { key: secret, body: { title: 'x' } });
    await expectProblem(res, 405, 'method_not_allowed');
    for (const method of res.headers.get('allow')!.split(', ')) {
      expect((await t.request(method, `/v1/rooms/${room.id}`, { key: secret })).status, method).toBe(200);
    }
  });

  it('is decided before the body is read: a wrong method with an XML or malformed body is still 405', async () => {
    for (const [type, body] of [['application/xml', '<room/>'], ['application/json', '{"title":'], ['text/plain', 'x']]) {
      const res = await t.request('PUT', '/v1/rooms', { headers: { 'content-type': type! }, rawBody: body });
      await expectProblem(res, 405, 'method_not_allowed');
    }
  });

  it('on every documented path, Allow lists exactly the methods the document gives it (HEAD with GET)', async () => {
    // The methods of every documented path a concrete path matches (/v1/voices/generic is also /v1/voices/{id}).
    const methodsOf = (concrete: string) => Object.entries<Record<string, unknown>>(doc.paths)
      .filter(([p]) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(concrete))
      .flatMap(([, ops]) => Object.keys(ops).map((m) => m.toUpperCase()));
    for (const path of Object.keys(doc.paths)) {
      const concrete = path.replace(/\{[^}]+\}/g, 'x_1');
      const methods = methodsOf(concrete);
      const expected = ['GET', 'HEAD', 'POST', 'DELETE'].filter((m) => methods.includes(m) || (m === 'HEAD' && methods.includes('GET')));
      for (const wrong of ['PUT', 'PATCH', 'OPTIONS']) {
        const res = await t.request(wrong, concrete);
        expect(res.status, `${wrong} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${wrong} ${path}`).toBe(expected.join(', '));
        await res.body?.cancel();
      }
    }
  });

  it('an unknown path stays 404 not_found, without Allow', async () => {
    for (const [method, path] of [['GET', '/v1/nope'], ['PUT', '/v1/nope'], ['GET', '/v1/rooms/room_1/nope'], ['POST', '/v2/rooms']]) {
      const res = await t.request(method!, path!);
      const p = await expectProblem(res, 404, 'not_found');
      expect(p.message).toBe(`No route ${method} ${path}`);
      expect(res.headers.get('allow')).toBeNull();
    }
  });
});

// ---- media types -------------------------------------------------------

describe('a body that is not JSON', () => {
  it('is 415 unsupported_media_type naming Content-Type, and creates nothing', async () => {
    const { secret } = await t.key();
    const cases: Array<[string, string]> = [
      ['application/xml', '<room><title>x</title></room>'],
      ['text/plain', '{"title":"x"}'],
      ['multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--xyz--\r\n'],
      ['application/x-www-form-urlencoded', 'title=x'],
    ];
    for (const [type, body] of cases) {
      const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), 'content-type': type }, rawBody: body });
      const p = await expectProblem(res, 415, 'unsupported_media_type');
      expect(p.message, type).toMatch(/^Content-Type: /);
      expect(p.message, type).toContain(type.split(';')[0]);
    }
    expect((await (await t.request('GET', '/v1/rooms', { key: secret })).json()).data).toEqual([]);
    expect(declaredFor('POST', '/v1/rooms')['415']).toEqual(['unsupported_media_type']);
    expect(byCode('unsupported_media_type')).toMatchObject({ status: 415, source: 'service', answered: true });
  });

  it('is 415 on another endpoint that takes a body too', async () => {
    const { secret } = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    const res = await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, headers: { 'content-type': 'text/plain' }, rawBody: 'Ana' });
    await expectProblem(res, 415, 'unsupported_media_type');
  });

  it('leaves a POST with no body (no Content-Type, or an empty JSON one) working', async () => {
    const { secret } = await t.key();
    const none = await t.request('POST', '/v1/rooms', { key: secret, headers: idem() });
    expect(none.status).toBe(201);
    const empty = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), 'content-type': 'application/json' }, rawBody: '' });
    expect(empty.status).toBe(201);
    const room = await empty.json();
    expect((await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret })).status).toBe(201);
  });
});

// ---- codes of the service's use cases ---------------------------------

describe('conflict', () => {
  it('answers a join link or an agent session for an ended room with 409 conflict, as listed and declared', async () => {
    const { secret } = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    expect((await t.request('DELETE', `/v1/rooms/${room.id}`, { key: secret })).status).toBe(200);

    const link = await expectProblem(await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, body: { name: 'Ana' } }), 409, 'conflict');
    expect(link.message).toContain(room.id);
    const join = await t.request('POST', `/v1/rooms/${room.id}/agent-sessions`, {
      key: secret, headers: idem(), body: { speak_lang: 'en', hear_lang: 'pt' },
    });
    await expectProblem(join, 409, 'conflict');

    expect(byCode('conflict')).toMatchObject({ status: 409, source: 'service', answered: true });
    expect(declaredFor('POST', '/v1/rooms/{id}/join-links')['409']).toContain('conflict');
    expect(declaredFor('POST', '/v1/rooms/{id}/agent-sessions')['409']).toContain('conflict');
  });
});

describe('not_available_yet', () => {
  it('is answered to live keys by what runs on the simulator (agent sessions, calls, voice cloning), never to test keys', async () => {
    const test = await t.key();
    const live = await t.key({ org: test.orgId, mode: 'live' });
    const clone = { name: 'Ana', language: 'pt', person: { name: 'Ana', email: 'ana@example.com' } };
    await expectProblem(await t.request('POST', '/v1/voices', { key: live.secret, body: clone, headers: { 'idempotency-key': crypto.randomUUID() } }), 501, 'not_available_yet');
    expect((await t.request('POST', '/v1/voices', { key: test.secret, body: clone, headers: { 'idempotency-key': crypto.randomUUID() } })).status).toBe(202);
    // Reading voices is no simulator's: both modes answer (each its own voices).
    for (const key of [test.secret, live.secret]) expect((await t.request('GET', '/v1/voices', { key })).status).toBe(200);
    await expectProblem(await t.request('GET', '/v1/sessions/ses_missing', { key: live.secret }), 501, 'not_available_yet');
    // A test key reaches the session itself (here: none by that id).
    await expectProblem(await t.request('GET', '/v1/sessions/ses_missing', { key: test.secret }), 404, 'not_found');

    const entry = byCode('not_available_yet')!;
    expect(entry).toMatchObject({ status: 501, source: 'api.md', answered: true });
    expect(entry.description).toMatch(/live keys/);
    expect(declaredFor('POST', '/v1/voices')['501']).toEqual(['not_available_yet']);
    expect(declaredFor('GET', '/v1/voices')['501']).toBeUndefined();
    expect(declaredFor('GET', '/v1/meetings')['501']).toBeUndefined();
    expect(declaredFor('GET', '/v1/sessions/{id}')['501']).toEqual(['not_available_yet']);
  });
});
