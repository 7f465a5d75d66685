import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { v1Operations } from '../helpers/routes.ts';

// Property-based fuzzing over every operation of the app's own
// /v1/openapi.json (api.md sections 4, 5, 7, 8). Whatever is sent, the server
// answers below 500 (or exactly 501 not_available_yet for routes not built
// yet), every error is the six-field problem+json of section 7, and every
// response carries X-Request-Id, Service-Version and the RateLimit headers.

let t: TestApp;
let secret: string;
let roomId: string;
type Op = { method: string; path: string };
let ops: Op[] = [];

const PROBLEM_KEYS = ['code', 'message', 'request_id', 'status', 'title', 'type'];
const FIELD_FIRST = /^[A-Za-z_.0-9-]+: /;
const RUNS = { numRuns: 150, endOnFailure: true } as const;

beforeAll(async () => {
  t = await startTestApp();
  // A live key with a huge rate so the fuzzing is never rate limited (test keys allow 1,000 a day).
  secret = (await t.key({ mode: 'live', rpm: 100_000_000 })).secret;
  const doc = await (await t.request('GET', '/v1/openapi.json')).json();
  ops = [];
  for (const [path, methods] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(methods)) ops.push({ method: method.toUpperCase(), path });
  }
  const room = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { title: 'fuzz' } });
  expect(room.status).toBe(201);
  roomId = (await room.json()).id;
});
afterAll(async () => { await t?.close(); });

type Sent = { method: string; path: string; headers?: Record<string, string | undefined>; body?: string | Uint8Array };

/** Sends one raw request and checks the invariants every response must hold. */
async function send(s: Sent): Promise<{ status: number; problem: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(s.headers ?? {})) if (v !== undefined) headers[k] = v;
  const hasBody = s.body !== undefined && s.method !== 'GET' && s.method !== 'HEAD';
  const res = await fetch(`${t.url}${s.path}`, { method: s.method, headers, body: hasBody ? s.body : undefined, redirect: 'manual' });
  const text = await res.text();
  const label = `${s.method} ${s.path.slice(0, 300)} [${JSON.stringify(headers).slice(0, 300)}] → ${res.status} ${text.slice(0, 300)}`;
  let problem: any = null;
  const rid = res.headers.get('x-request-id');
  expect(rid ?? 'missing', label).toMatch(/^req_/);
  expect(res.headers.get('service-version'), label).toBeTruthy();
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    expect(res.headers.get(h) ?? 'missing', `${h}: ${label}`).toMatch(/^\d+$/);
  }
  if (res.status < 200 || res.status >= 300) {
    expect(res.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
    problem = JSON.parse(text);
    expect(Object.keys(problem).sort(), label).toEqual(PROBLEM_KEYS);
    expect(typeof problem.code, label).toBe('string');
    expect(problem.type.endsWith(`#${problem.code}`), label).toBe(true);
    expect(problem.title, label).toBe(problem.code);
    expect(problem.status, label).toBe(res.status);
    expect(typeof problem.message === 'string' && problem.message.length > 0, label).toBe(true);
    expect(problem.request_id, label).toMatch(/^req_/);
    expect(problem.request_id, label).toBe(rid);
    if (problem.code === 'invalid_request') expect(problem.message, label).toMatch(FIELD_FIRST);
  }
  if (res.status >= 500) expect([res.status, problem?.code], label).toEqual([501, 'not_available_yet']);
  return { status: res.status, problem, headers: res.headers };
}

// ---- arbitraries -------------------------------------------------------

const SPECIAL_IDS = [
  '%00', '..%2F', '..%2F..%2Fme', '%2e%2e', '%2F', '%25', '%', '%ZZ', '%C3%28', '%FF%FE', 'x'.repeat(199), 'x'.repeat(201),
  'x'.repeat(5000), encodeURIComponent('😀🎉'), encodeURIComponent('ü日本語'), encodeURIComponent('room_\u0000'),
  'room_', 'room_00000000000000000000000000', encodeURIComponent("' OR 1=1 --"), encodeURIComponent('"; DROP TABLE rooms; --'),
  '%E2%80%AE', 'null', 'undefined', '-1', '0', '1e9', 'NaN', '__proto__', 'constructor',
];
const idArb = fc.oneof(
  fc.constantFrom(...SPECIAL_IDS),
  fc.constant('<room>'),
  fc.string({ maxLength: 300, unit: 'grapheme' }).map(encodeURIComponent),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme-ascii' }).map(encodeURIComponent),
);

const concrete = (path: string, id: string) => path.replace(/\{[^}]+\}/g, () => (id === '<room>' ? roomId : id) || 'x');

const nulString = fc.string({ maxLength: 20 }).map((s) => `${s}\u0000${s}`);
const longString = fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'a'.repeat(n));
const weird = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nulString,
  longString,
  fc.constantFrom(null, true, false, 0, -1, 1e308, -1e308, 1.5, 2 ** 53 + 1, '', ' ', [], {}, [null], '😀', '\u202e', 'en', 'pt-BR', 'https://example.com', 'a@b.co', '2030-01-01T00:00:00Z'),
);
const KNOWN_FIELDS = [
  'title', 'visibility', 'langs', 'name', 'speak', 'hear', 'starts_at', 'duration_min', 'invitees', 'event_type_id', 'page', 'event',
  'start', 'guest', 'answers', 'language', 'person', 'voice_id', 'speak_lang', 'hear_lang', 'announce', 'text', 'lang', 'to', 'from',
  'purpose', 'consent', 'agent_lang', 'remote_lang', 'url', 'events', 'description', 'type', '__proto__', 'constructor', 'prototype',
];
const wrongTypedObject = fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), weird, { maxKeys: 6 });
function deepNest(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}
const bodyArb: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  wrongTypedObject.map((v) => JSON.stringify(v)),
  fc.record({ title: weird, langs: fc.array(weird, { maxLength: 4 }), guest: wrongTypedObject, consent: wrongTypedObject, person: wrongTypedObject })
    .map((v) => JSON.stringify(v)),
  fc.tuple(fc.integer({ min: 1, max: 60_000 }), fc.constantFrom('array' as const, 'object' as const)).map(([d, k]) => deepNest(d, k)),
  fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(...KNOWN_FIELDS)).map(([d, f]) => `{"${f}":${deepNest(d, 'array')}}`),
  longString.map((s) => JSON.stringify({ title: s, name: s, text: s })),
  nulString.map((s) => JSON.stringify({ [s]: s })),
);

const MALFORMED = [
  '{', '}', '{"title":', '{"title": "x"', '[1,]', '{"a":1,}', "{'a':1}", 'undefined', 'NaN', '\u0000', '{"title":"\\u0000"}',
  '{"title":"\\ud800"}', '\ufeff{}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', '"just a string"',
  '1', 'null', 'true', '[]', ' ', '\n', '{"a":1}{"b":2}', '{"title":"x"} trailing', '\\', '{"title":1e999}', `{"x":"${'\\'.repeat(3)}"}`,
];
const rawBodyArb = fc.oneof(fc.constantFrom(...MALFORMED), fc.string({ maxLength: 200 }), fc.string({ maxLength: 200, unit: 'binary' }), bodyArb);
const CONTENT_TYPES = [
  undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz',
  'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16', 'APPLICATION/JSON',
  'application/problem+json', 'application/vnd.api+json', 'application/octet-stream', 'text/html', 'garbage', '', ';', 'application/',
  'application/json;', 'application/json, text/plain',
];

/** Header values fetch can send: visible ASCII. */
const headerText = (max: number) => fc.string({ maxLength: max, unit: 'binary-ascii' }).map((s) => s.replace(/[^\x21-\x7e]/g, ''));
const idemArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.constant('k'.repeat(255)),
  fc.constant('k'.repeat(256)),
  fc.integer({ min: 256, max: 4000 }).map((n) => 'k'.repeat(n)),
  headerText(300),
  fc.uuid(),
);
const authArb = fc.oneof(
  fc.constant<string | undefined>(undefined),
  fc.constant('<secret>'),
  headerText(300),
  headerText(300).map((s) => `Bearer ${s}`),
  fc.constantFrom(
    '', 'Bearer', 'Bearer ', 'bearer <secret>', 'BEARER <secret>', 'Bearer  <secret>', 'Bearer <secret> extra', 'Basic <secret>', '<secret>',
    'Bearer sk_live_', 'Bearer sk_test_aaaaaaaaaa', 'Bearer sk_live_xxxxxxxxxxxxxxxxxxxxxxxxxx', `Bearer sk_live_${'a'.repeat(5000)}`,
    'Bearer sk_live_%00aaaaaaaaaaa', 'Bearer ../../etc/passwd', "Bearer ' OR 1=1 --",
  ),
);
const authValue = (a: string | undefined) => (a === undefined ? undefined : a.replaceAll('<secret>', secret));

const QUERY_KEYS = ['limit', 'starting_after', 'from', 'to', 'group_by', 'room_id', 'lang', 'cursor', 'wait', 'type', 'since', 'purpose', 'consent', 'page'];
const QUERY_VALUES = [
  '-1', 'abc', '1e9', '0', '1', '100', '101', '1.5', '', '%00', '%FF', '%', '%%', '%2', '[]', 'NaN', 'Infinity', '-0', '0x10',
  '9'.repeat(400), 'day', 'credential', '2024-01-01', '2024-13-45', encodeURIComponent('😀'), 'a%00b', '%C0%80', 'null', 'true',
];
const queryArb = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.constantFrom('limit[]', 'limit[a]', '__proto__', 'constructor', '%00', ''), headerText(20).map(encodeURIComponent)),
      fc.oneof(fc.constantFrom(...QUERY_VALUES), fc.string({ maxLength: 50 }).map(encodeURIComponent)),
      fc.boolean(),
    ),
    { maxLength: 6 },
  )
  .map((pairs) => pairs.map(([k, v, eq]) => (eq ? `${k}=${v}` : k)).join('&'));

const opArb = () => fc.constantFrom(...ops);

// ---- properties --------------------------------------------------------

describe('fuzzing every operation of /v1/openapi.json', () => {
  it('reads every registered /v1 operation from the document, and no other', () => {
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual(v1Operations());
  });

  it('answers every operation with every odd id safely (deterministic sweep)', async () => {
    for (const op of ops) {
      for (const id of [...SPECIAL_IDS, '<room>']) {
        await send({
          method: op.method,
          path: concrete(op.path, id),
          headers: { authorization: `Bearer ${secret}`, 'idempotency-key': crypto.randomUUID(), 'content-type': op.method === 'POST' ? 'application/json' : undefined },
          body: op.method === 'POST' ? '{}' : undefined,
        });
      }
    }
  }, 60_000);

  it('survives random JSON bodies, ids and idempotency keys', async () => {
    await fc.assert(
      fc.asyncProperty(opArb(), idArb, bodyArb, idemArb, async (op, id, body, idem) => {
        await send({
          method: op.method === 'GET' ? 'POST' : op.method,
          path: concrete(op.path, id),
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': idem },
          body,
        });
        if (op.method !== 'GET') return;
        await send({ method: 'GET', path: concrete(op.path, id), headers: { authorization: `Bearer ${secret}` } });
      }),
      { ...RUNS, numRuns: 300 },
    );
  }, 60_000);

  it('survives malformed JSON and wrong content types', async () => {
    await fc.assert(
      fc.asyncProperty(opArb(), rawBodyArb, fc.constantFrom(...CONTENT_TYPES), async (op, body, contentType) => {
        await send({
          method: op.method === 'GET' ? 'POST' : op.method,
          path: concrete(op.path, '<room>'),
          headers: { authorization: `Bearer ${secret}`, 'content-type': contentType, 'idempotency-key': crypto.randomUUID() },
          body,
        });
      }),
      { ...RUNS, numRuns: 300 },
    );
  }, 60_000);

  it('survives random Authorization and Idempotency-Key headers', async () => {
    await fc.assert(
      fc.asyncProperty(opArb(), authArb, idemArb, fc.boolean(), async (op, auth, idem, withBody) => {
        const { status, problem, headers } = await send({
          method: op.method,
          path: concrete(op.path, '<room>'),
          headers: { authorization: authValue(auth), 'idempotency-key': idem, 'content-type': withBody ? 'application/json' : undefined },
          body: withBody ? JSON.stringify({ title: 'x', name: 'x', text: 'hi' }) : undefined,
        });
        if (status === 401) {
          expect(problem.code).toBe('unauthorized');
          expect(headers.get('www-authenticate')).toMatch(/^Bearer /);
        }
      }),
      { ...RUNS, numRuns: 300 },
    );
  }, 60_000);

  it('survives random query strings', async () => {
    await fc.assert(
      fc.asyncProperty(opArb(), queryArb, fc.constantFrom('<room>', 'x'), async (op, query, id) => {
        await send({
          method: op.method,
          path: `${concrete(op.path, id)}?${query}`,
          headers: { authorization: `Bearer ${secret}`, 'idempotency-key': crypto.randomUUID(), 'content-type': op.method === 'POST' ? 'application/json' : undefined },
          body: op.method === 'POST' ? '{}' : undefined,
        });
      }),
      { ...RUNS, numRuns: 300 },
    );
  }, 60_000);

  it('answers unknown paths and unsupported methods with problem+json', async () => {
    const PAGES = /^\/(docs|r\/|book\/|bookings\/manage\/|consent\/)/;
    const segment = fc.oneof(fc.constantFrom('v1', 'rooms', 'me', 'x', '..%2F', '%00', '', 'openapi.json', 'v2', 'V1', 'ROOMS'), fc.string({ maxLength: 30 }).map(encodeURIComponent));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          // Not the pages a person opens (a room, a booking link, a manage or consent link, the docs): those answer in HTML.
          fc.array(segment, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`).filter((p) => !PAGES.test(p)),
          opArb().map((op) => concrete(op.path, '<room>')),
        ),
        fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
        authArb,
        async (path, method, auth) => {
          await send({
            method,
            path,
            headers: { authorization: authValue(auth), 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
            body: method === 'GET' ? undefined : '{"title":"x"}',
          });
        },
      ),
      { ...RUNS, numRuns: 300 },
    );
    for (const op of ops) {
      for (const method of ['PUT', 'PATCH']) {
        const r = await send({ method, path: concrete(op.path, '<room>'), headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{}' });
        expect(r.status, `${method} ${op.path}`).toBeGreaterThanOrEqual(400);
      }
    }
  }, 60_000);
});

describe('oversized and pathological bodies', () => {
  it('answers a body over 1 MiB with a 413 problem and keeps the connection usable', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(1024 * 1024 + 16) });
    for (const op of ops.filter((o) => o.method === 'POST')) {
      const r = await send({
        method: 'POST',
        path: concrete(op.path, '<room>'),
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
        body: big,
      });
      expect(r.status, op.path).toBe(413);
      expect(r.problem.code).toBe('payload_too_large');
    }
    // Without Content-Length (chunked) the limit holds too.
    const chunks = [new TextEncoder().encode(big.slice(0, 600_000)), new TextEncoder().encode(big.slice(600_000))];
    const stream = new ReadableStream({ pull(c) { const n = chunks.shift(); if (n) c.enqueue(n); else c.close(); } });
    const res = await fetch(`${t.url}/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
  });

  it('answers a URL or headers over the 16 KiB header limit with a problem', async () => {
    for (const [path, headers] of [
      [`/v1/rooms/${'x'.repeat(20_000)}`, {}],
      ['/v1/rooms', { 'idempotency-key': 'k'.repeat(20_000) }],
      ['/v1/rooms', { 'x-filler': 'k'.repeat(70_000) }],
      [`/v1/rooms?limit=${'9'.repeat(17_000)}`, {}],
    ] as const) {
      const r = await send({ method: 'GET', path, headers: { authorization: `Bearer ${secret}`, ...headers } });
      expect(r.status).toBe(400);
      expect(r.problem.message).toMatch(/^headers: /);
    }
    expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
  });

  it('answers very deep nesting without a crash', async () => {
    for (const depth of [1_000, 50_000, 200_000]) {
      for (const kind of ['array', 'object'] as const) {
        const body = deepNest(depth, kind);
        if (body.length > 1024 * 1024) continue;
        for (const path of ['/v1/rooms', `/v1/rooms/${roomId}/join-links`, '/v1/bookings', '/v1/calls']) {
          const r = await send({
            method: 'POST',
            path,
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
            body: `{"title":${body}}`,
          });
          expect(r.status, `${path} depth ${depth}`).toBeLessThan(500);
        }
      }
    }
  });
});

describe('after the fuzzing', () => {
  it('still serves GET /v1/rooms and keeps every room in a valid status', async () => {
    const res = await t.request('GET', '/v1/rooms', { key: secret });
    expect(res.status).toBe(200);
    expect(Array.isArray((await res.json()).data)).toBe(true);
    const rows = await t.pool.query(`SELECT id, status FROM rooms`);
    expect(rows.rows.length).toBeGreaterThan(0);
    for (const r of rows.rows) expect(['scheduled', 'live', 'ended'], r.id).toContain(r.status);
    expect((await t.request('GET', `/v1/rooms/${roomId}`, { key: secret })).status).toBe(200);
  });
});
