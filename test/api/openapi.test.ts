import diagnostics from 'node:diagnostics_channel';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { specText } from '../helpers/spec.ts';

let t: TestApp;
let doc: any;
/** Every route the app registered, seen by an onRoute hook added as Fastify starts (its 'fastify.initialization' channel). */
const registered: RouteOptions[] = [];
beforeAll(async () => {
  const init = diagnostics.channel('fastify.initialization');
  const onInit = (m: unknown) => {
    (m as { fastify: { addHook: (name: 'onRoute', fn: (r: RouteOptions) => void) => void } }).fastify.addHook('onRoute', (r) => { registered.push(r); });
  };
  init.subscribe(onInit);
  try {
    t = await startTestApp();
  } finally {
    init.unsubscribe(onInit);
  }
  doc = await (await t.request('GET', '/v1/openapi.json')).json();
});
afterAll(async () => { await t?.close(); });

// Every "METHOD /v1/path" of api.md section 4 (the copy the repository
// carries), and the operations it is known to hold, so that a misread fails.
const KNOWN = [
  'GET /v1/me', 'GET /v1/balance', 'GET /v1/usage', 'GET /v1/voices', 'POST /v1/voices', 'GET /v1/voices/catalog',
  'POST /v1/voices/generic', 'GET /v1/voices/{id}', 'GET /v1/rooms', 'POST /v1/rooms', 'GET /v1/rooms/{id}',
  'DELETE /v1/rooms/{id}', 'POST /v1/rooms/{id}/join-links', 'GET /v1/meetings', 'POST /v1/meetings',
  'DELETE /v1/meetings/{id}', 'GET /v1/event-types', 'GET /v1/event-types/{id}/slots', 'POST /v1/bookings',
  'POST /v1/rooms/{id}/agent-sessions', 'GET /v1/sessions/{id}', 'POST /v1/sessions/{id}/say',
  'GET /v1/sessions/{id}/events', 'POST /v1/sessions/{id}/leave', 'GET /v1/transcripts', 'GET /v1/transcripts/{id}',
  'GET /v1/calls/quote', 'POST /v1/calls', 'GET /v1/calls', 'GET /v1/calls/{id}', 'POST /v1/calls/{id}/hangup',
  'GET /v1/numbers', 'GET /v1/avatars', 'GET /v1/webhook-endpoints', 'POST /v1/webhook-endpoints',
  'DELETE /v1/webhook-endpoints/{id}', 'POST /v1/webhook-endpoints/{id}/rotate-secret',
  'POST /v1/webhook-endpoints/{id}/test', 'GET /v1/events',
];

function specOperations(): string[] {
  const text = specText();
  const ops = new Set<string>();
  for (const m of text.matchAll(/\b(GET|POST|DELETE|PUT|PATCH) (\/v1\/[A-Za-z0-9_\-/{}]+)/g)) {
    const path = m[2]!.replace(/\{[a-z_]+\}/g, (p) => (p === '{delivery_id}' ? p : '{id}'));
    if (path === '/v1/openapi.json') continue;
    ops.add(`${m[1]} ${path}`);
  }
  return [...ops];
}

/** A response object, following a $ref into components.responses. */
const response = (res: any) => (res.$ref ? doc.components.responses[res.$ref.replace('#/components/responses/', '')] : res);

/** "METHOD /path" of every operation in the served document. */
function documented(): Set<string> {
  const have = new Set<string>();
  for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
    for (const method of Object.keys(ops)) have.add(`${method.toUpperCase()} ${path}`);
  }
  return have;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with a date as its version', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('documents every operation of api.md', () => {
    const have = documented();
    const ops = specOperations();
    expect(ops.filter((o) => !have.has(o))).toEqual([]);
    // The copy too, whether or not the spec was read.
    expect(KNOWN.filter((o) => !have.has(o))).toEqual([]);
  });

  it('reads from api.md at least every operation known here', () => {
    const ops = new Set(specOperations());
    expect(KNOWN.filter((o) => !ops.has(o))).toEqual([]);
  });

  it('documents exactly the /v1 operations the server registered', () => {
    const served = new Set<string>();
    for (const r of registered) {
      if (!r.url.startsWith('/v1/') || (r.schema as { hide?: boolean } | undefined)?.hide) continue;
      for (const method of [r.method].flat()) {
        if (method === 'HEAD') continue; // Fastify's own HEAD for each GET
        served.add(`${method} ${r.url.replace(/:([A-Za-z_]+)/g, '{$1}')}`);
      }
    }
    expect(served.has('GET /v1/me'), 'the onRoute hook saw the routes').toBe(true);
    expect([...documented()].sort()).toEqual([...served].sort());
  });

  it('describes errors as problem+json, one response per status', () => {
    const op = doc.paths['/v1/rooms'].post;
    const errors = Object.keys(op.responses).filter((s) => /^[45]/.test(s));
    expect(errors).toEqual(['400', '401', '403', '409', '413', '415', '429', '500', '503']);
    for (const status of errors) expect(Object.keys(response(op.responses[status]).content), status).toEqual(['application/problem+json']);
    expect(op.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key')).toBe(true);
  });

  it('matches what the server really sends', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const schemaFor = (path: string, method: string, status: string) => {
      const res = response(doc.paths[path][method].responses[status]);
      const content = res.content['application/json'] ?? res.content['application/problem+json'];
      return JSON.parse(JSON.stringify(content.schema).replaceAll('"#/components', '"doc#/components'));
    };
    const { secret, orgId } = await t.key();
    const { addNumber, createEventType } = await import('../../src/cli/admin.ts');
    await addNumber(t.pool, { org: orgId, e164: '+14155550123', default: true });
    const et = await createEventType(t.pool, t.url, { org: orgId, page: `p-${orgId.slice(-6).toLowerCase()}`, slug: 'intro', title: 'Intro', hours: 'mon-sun 00:00-24:00' });
    const meeting = await (await t.request('POST', '/v1/meetings', {
      key: secret, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { title: 'Checked', starts_at: new Date(Date.now() + 86_400_000).toISOString(), invitees: ['a@example.com'] },
    })).json();
    const slots = await (await t.request('GET', `/v1/event-types/${et.id}/slots`, { key: secret })).json();
    const booking = await t.request('POST', '/v1/bookings', {
      key: secret, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { event_type_id: et.id, start: slots.slots[0], guest: { name: 'G', email: 'g@example.com', speak: 'pt' } },
    });
    {
      const validate = ajv.compile(schemaFor('/v1/bookings', 'post', '201'));
      expect(validate(await booking.json()), `POST /v1/bookings: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(booking.status).toBe(201);
    }
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': 'k1' }, body: { title: 'x' } })).json();
    // A call (queued: this app runs no gateway) and a blocked one, answered as the POST gave them.
    const placeCall = async (body: object) => {
      const res = await t.request('POST', '/v1/calls', { key: secret, headers: { 'idempotency-key': crypto.randomUUID() }, body });
      const json = await res.json();
      const validate = ajv.compile(schemaFor('/v1/calls', 'post', '201'));
      expect(validate(json), `POST /v1/calls: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(res.status).toBe(201);
      return json;
    };
    const placed = await placeCall({ to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' } });
    const blocked = await placeCall({ to: '+19005550100', purpose: 'support' });
    expect(blocked.status).toBe('blocked');
    const checks: Array<[string, string, string, string, unknown?]> = [
      ['GET', '/v1/me', '/v1/me', '200'],
      ['GET', '/v1/balance', '/v1/balance', '200'],
      ['GET', '/v1/usage', '/v1/usage', '200'],
      ['GET', '/v1/usage?group_by=credential', '/v1/usage', '200'],
      ['GET', '/v1/rooms', '/v1/rooms', '200'],
      ['GET', `/v1/rooms/${room.id}`, '/v1/rooms/{id}', '200'],
      ['POST', `/v1/rooms/${room.id}/join-links`, '/v1/rooms/{id}/join-links', '201', { name: 'A' }],
      ['DELETE', `/v1/rooms/${room.id}`, '/v1/rooms/{id}', '200'],
      ['GET', '/v1/numbers', '/v1/numbers', '200'],
      ['GET', '/v1/event-types', '/v1/event-types', '200'],
      ['GET', '/v1/avatars', '/v1/avatars', '200'],
      ['GET', '/v1/voices/catalog', '/v1/voices/catalog', '200'],
      ['GET', '/v1/rooms/room_missing', '/v1/rooms/{id}', '404'],
      ['GET', '/v1/calls', '/v1/calls', '200'],
      ['GET', `/v1/calls/${placed.id}`, '/v1/calls/{id}', '200'],
      ['GET', `/v1/calls/${blocked.id}`, '/v1/calls/{id}', '200'],
      ['GET', '/v1/calls/quote?to=%2B14155550142&purpose=support', '/v1/calls/quote', '200'],
      ['GET', '/v1/meetings', '/v1/meetings', '200'],
      ['GET', `/v1/event-types/${et.id}/slots`, '/v1/event-types/{id}/slots', '200'],
      ['GET', `/v1/event-types/${et.id}/slots?from=2026-02-30`, '/v1/event-types/{id}/slots', '400'],
      ['DELETE', `/v1/meetings/${meeting.id}`, '/v1/meetings/{id}', '200'],
      ['DELETE', '/v1/meetings/room_missing', '/v1/meetings/{id}', '404'],
      ['GET', '/v1/voices', '/v1/voices', '200'],
      ['POST', '/v1/voices/generic', '/v1/voices/generic', '200', { voice_id: 'generic_EmmaEn01' }],
      ['GET', '/v1/voices/generic_EmmaEn01', '/v1/voices/{id}', '200'],
      ['GET', '/v1/voices/voice_missing', '/v1/voices/{id}', '404'],
      ['POST', '/v1/rooms', '/v1/rooms', '400'],
    ];
    for (const [method, url, path, status, body] of checks) {
      const res = await t.request(method, url, { key: secret, body });
      const json = await res.json();
      const validate = ajv.compile(schemaFor(path, method.toLowerCase(), status));
      expect(validate(json), `${method} ${url}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(String(res.status)).toBe(status);
    }
  });
});
