import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

// Rough edges of request validation (api.md section 7: a clear 4xx naming the
// field): bodies whose every field is optional may be left out, an unknown
// list cursor is refused, integer query parameters say "must be an integer",
// and a long path id is refused naming it without being echoed back.

let t: TestApp;
let rx: Receiver;
let doc: any;
beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ config: { webhookAllowOrigins: [rx.origin] } });
  doc = await (await t.request('GET', '/v1/openapi.json')).json();
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
/** A fresh key that no test's request count can rate-limit. */
const newKey = (o: Parameters<TestApp['key']>[0] = {}) => t.key({ rpm: 100_000, ...o });

type Op = { method: string; path: string; op: any };
function operations(): Op[] {
  const out: Op[] = [];
  for (const [path, methods] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}
const fill = (path: string, values: Record<string, string> = {}) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => values[name] ?? 'nope_0');

async function problem(res: TestResponse, label: string) {
  const body = await res.json();
  expect(res.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
  return body as { code: string; message: string; status: number };
}

async function createRoom(key: string, body: unknown = {}) {
  const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body });
  expect(res.status).toBe(201);
  return res.json();
}

describe('bodies whose every field is optional', () => {
  it('POST /v1/rooms with no body creates a room with the defaults, with or without a JSON content type', async () => {
    const { secret } = await newKey();
    for (const [label, headers, rawBody] of [
      ['Content-Type: application/json, Content-Length: 0', { 'content-type': 'application/json' }, ''],
      ['Content-Type: application/json, blank body', { 'content-type': 'application/json' }, ' \n'],
      ['no Content-Type, no body', {}, undefined],
      ['the JSON null', { 'content-type': 'application/json' }, 'null'],
    ] as const) {
      const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), ...headers }, rawBody });
      expect(res.status, `${label}: ${await res.clone().text()}`).toBe(201);
      expect(await res.json(), label).toMatchObject({ title: '', visibility: 'private', langs: [], status: 'live' });
    }
    // A body that is there is still checked.
    const bad = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { title: 7 } });
    expect(bad.status).toBe(400);
    expect((await problem(bad, 'title')).message).toMatch(/^title: /);
    const notObject = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), 'content-type': 'application/json' }, rawBody: '[]' });
    expect(notObject.status).toBe(400);
    expect((await problem(notObject, '[]')).message).toMatch(/^body: /);
  });

  it('POST /v1/rooms/{id}/join-links with no body makes a link for a guest', async () => {
    const { secret } = await newKey();
    const room = await createRoom(secret, { title: 'Guests' });
    const res = await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, headers: { 'content-type': 'application/json' }, rawBody: '' });
    expect(res.status, await res.clone().text()).toBe(201);
    const page = await fetch((await res.json()).url);
    expect(page.status).toBe(200);
    // The join screen of the room, the name left for the guest to fill in.
    const html = await page.text();
    expect(html).toMatch(/data-token="[^"]+"/);
    expect(html).toContain('id="name" name="name" type="text" required maxlength="80" autocomplete="name" value=""');
  });

  it('POST /v1/webhook-endpoints/{id}/test with no body sends the default test event', async () => {
    const { secret } = await newKey();
    const ep = await (await t.request('POST', '/v1/webhook-endpoints', { key: secret, body: { url: rx.url, events: ['room.started'] } })).json();
    const before = rx.received.length;
    const res = await t.request('POST', `/v1/webhook-endpoints/${ep.id}/test`, { key: secret });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, status: 200 });
    const got = rx.received.slice(before);
    expect(got).toHaveLength(1);
    expect(JSON.parse(got[0]!.body).type).toBe('meeting.created');
  });

  it('documents exactly those bodies as not required, and every POST without a required body answers no body as it answers {}', async () => {
    const optional = operations().filter((o) => o.op.requestBody && o.op.requestBody.required === false).map((o) => `${o.method} ${o.path}`);
    expect(optional.sort()).toEqual(['POST /v1/rooms', 'POST /v1/rooms/{id}/join-links', 'POST /v1/webhook-endpoints/{id}/test']);
    const { secret } = await newKey({ mode: 'live' });
    const room = await createRoom(secret);
    let compared = 0;
    for (const { method, path, op } of operations().filter((o) => o.method === 'POST')) {
      const url = fill(path, { id: path.startsWith('/v1/rooms/') ? room.id : 'nope_0' });
      const send = (headers: Record<string, string>, rawBody?: string) => t.request('POST', url, { key: secret, headers: { ...idem(), ...headers }, rawBody });
      const schema = op.requestBody?.content['application/json'].schema;
      if (op.requestBody?.required !== false && schema?.required?.length) {
        // A body with a required field cannot be left out: 400 naming the body.
        const res = await send({ 'content-type': 'application/json' }, '');
        expect(res.status, `${method} ${path}`).toBe(400);
        expect((await problem(res, path)).message, path).toBe('body: required; send a JSON object');
        continue;
      }
      expect(op.requestBody?.required ?? false, `${method} ${path}: a body with no required field is documented as optional`).toBe(false);
      const withObject = await send({ 'content-type': 'application/json' }, '{}');
      const objectCode = withObject.status >= 400 ? (await withObject.json()).code : null;
      for (const [label, headers, rawBody] of [
        ['empty JSON', { 'content-type': 'application/json' }, ''],
        ['no body', {}, undefined],
      ] as const) {
        const res = await send(headers, rawBody);
        const label2 = `${method} ${path} (${label}): ${await res.clone().text()}`;
        expect(res.status, label2).toBe(withObject.status);
        if (res.status >= 400) expect((await res.json()).code, label2).toBe(objectCode);
        expect(res.status, label2).not.toBe(400);
      }
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(8);
  });
});

describe('starting_after', () => {
  it('pages rooms, and refuses an id that is not a room of this list (unknown, another organization, the other mode) alike', async () => {
    const a = await newKey();
    const aLive = await newKey({ org: a.orgId, mode: 'live' });
    const b = await newKey();
    const [r1, r2, r3] = [await createRoom(a.secret), await createRoom(a.secret), await createRoom(a.secret)];
    const page1 = await (await t.request('GET', '/v1/rooms?limit=1', { key: a.secret })).json();
    expect(page1.data.map((r: any) => r.id)).toEqual([r3.id]);
    const page2 = await (await t.request('GET', `/v1/rooms?limit=1&starting_after=${r3.id}`, { key: a.secret })).json();
    expect(page2).toEqual({ data: [expect.objectContaining({ id: r2.id })], has_more: true });
    const last = await (await t.request('GET', `/v1/rooms?starting_after=${r1.id}`, { key: a.secret })).json();
    expect(last).toEqual({ data: [], has_more: false });
    // An empty value is no cursor: the first page.
    const empty = await (await t.request('GET', '/v1/rooms?limit=1&starting_after=', { key: a.secret })).json();
    expect(empty.data.map((r: any) => r.id)).toEqual([r3.id]);

    const otherOrg = await createRoom(b.secret);
    const liveRoom = await createRoom(aLive.secret);
    for (const id of ['room_nope', otherOrg.id, liveRoom.id]) {
      const res = await t.request('GET', `/v1/rooms?starting_after=${id}`, { key: a.secret });
      expect(res.status, id).toBe(400);
      const p = await problem(res, id);
      expect(p.code).toBe('invalid_request');
      expect(p.message).toBe(`starting_after: no room '${id}'`);
    }
  });

  it('refuses an unknown event, or another organization\'s, in GET /v1/events', async () => {
    const a = await newKey();
    const b = await newKey();
    await createRoom(a.secret);
    await createRoom(a.secret);
    await createRoom(b.secret);
    const log = await (await t.request('GET', '/v1/events?limit=1', { key: a.secret })).json();
    const next = await t.request('GET', `/v1/events?limit=1&starting_after=${log.data[0].id}`, { key: a.secret });
    expect(next.status).toBe(200);
    expect((await next.json()).data).toHaveLength(1);
    const theirs = (await (await t.request('GET', '/v1/events?limit=1', { key: b.secret })).json()).data[0].id;
    for (const id of ['evt_nope', theirs]) {
      const res = await t.request('GET', `/v1/events?starting_after=${id}`, { key: a.secret });
      expect(res.status, id).toBe(400);
      expect((await problem(res, id)).message).toBe(`starting_after: no event '${id}'`);
    }
  });

  it('refuses an unknown transcript, or another organization\'s, in GET /v1/transcripts', async () => {
    const a = await newKey();
    const b = await newKey();
    const room = await createRoom(a.secret, { langs: ['en', 'de'] });
    const join = await t.request('POST', `/v1/rooms/${room.id}/agent-sessions`, { key: a.secret, headers: idem(), body: { speak_lang: 'en', hear_lang: 'de', announce: false } });
    expect(join.status, await join.clone().text()).toBe(201);
    const session = await join.json();
    expect((await t.request('POST', `/v1/sessions/${session.id}/leave`, { key: a.secret })).status).toBe(200);
    const list = await (await t.request('GET', '/v1/transcripts', { key: a.secret })).json();
    expect(list.data).toHaveLength(1);
    const mine = list.data[0].id;
    const after = await t.request('GET', `/v1/transcripts?starting_after=${mine}`, { key: a.secret });
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ data: [], has_more: false });
    for (const [key, id] of [[a.secret, 'tr_nope'], [b.secret, mine]] as const) {
      const res = await t.request('GET', `/v1/transcripts?starting_after=${id}`, { key });
      expect(res.status, id).toBe(400);
      expect((await problem(res, id)).message).toBe(`starting_after: no transcript '${id}'`);
    }
  });

  it('refuses an unknown delivery, or another endpoint\'s, in GET /v1/webhook-endpoints/{id}/deliveries', async () => {
    const { secret } = await newKey();
    const endpoint = async () => (await (await t.request('POST', '/v1/webhook-endpoints', { key: secret, body: { url: rx.url, events: ['room.started'] } })).json()).id as string;
    const [e1, e2] = [await endpoint(), await endpoint()];
    const sent = [];
    for (let i = 0; i < 2; i++) sent.push((await (await t.request('POST', `/v1/webhook-endpoints/${e1}/test`, { key: secret, body: {} })).json()).delivery_id);
    const page = await (await t.request('GET', `/v1/webhook-endpoints/${e1}/deliveries?starting_after=${sent[1]}`, { key: secret })).json();
    expect(page.data.map((d: any) => d.id)).toEqual([sent[0]]);
    for (const [ep, id] of [[e1, 'whd_nope'], [e2, sent[0]]] as const) {
      const res = await t.request('GET', `/v1/webhook-endpoints/${ep}/deliveries?starting_after=${id}`, { key: secret });
      expect(res.status, id).toBe(400);
      expect((await problem(res, id)).message).toBe(`starting_after: no delivery '${id}' of this endpoint`);
    }
  });
});

describe('integer query parameters', () => {
  it('answer "<name>: must be an integer" for text, decimals and exponents, on every operation', async () => {
    const { secret } = await newKey();
    const params: Array<{ method: string; path: string; name: string }> = [];
    for (const { method, path, op } of operations()) {
      for (const p of op.parameters ?? []) if (p.in === 'query' && p.schema?.type === 'integer') params.push({ method, path, name: p.name });
    }
    const names = params.map((p) => `${p.method} ${p.path} ${p.name}`);
    expect(names).toEqual(expect.arrayContaining(['GET /v1/rooms limit', 'GET /v1/events limit', 'GET /v1/sessions/{id}/events cursor', 'GET /v1/sessions/{id}/events wait']));
    expect(params.length).toBeGreaterThanOrEqual(8);
    for (const { method, path, name } of params) {
      for (const value of ['abc', '1.5', '1e1', '0x10', 'NaN', '2%20']) {
        const res = await t.request(method, `${fill(path)}?${name}=${value}`, { key: secret });
        const label = `${method} ${path}?${name}=${value}`;
        expect(res.status, label).toBe(400);
        const p = await problem(res, label);
        expect(p.code, label).toBe('invalid_request');
        expect(p.message, label).toBe(`${name}: must be an integer`);
      }
    }
  });

  it('still reads integers, and bounds them', async () => {
    const { secret } = await newKey();
    for (let i = 0; i < 3; i++) await createRoom(secret);
    const two = await t.request('GET', '/v1/rooms?limit=2', { key: secret });
    expect(two.status).toBe(200);
    expect(await two.json()).toMatchObject({ data: [{}, {}], has_more: true });
    for (const [value, message] of [
      ['', 'limit: must be an integer'],
      ['0', 'limit: Too small: expected number to be >=1'],
      ['101', 'limit: Too big: expected number to be <=100'],
      ['9'.repeat(400), `limit: Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`],
    ] as const) {
      const res = await t.request('GET', `/v1/rooms?limit=${value}`, { key: secret });
      expect(res.status, value).toBe(400);
      expect((await problem(res, value)).message, value.slice(0, 10)).toBe(message);
    }
    const wait = await t.request('GET', '/v1/sessions/ses_nope/events?wait=26', { key: secret });
    expect((await problem(wait, 'wait')).message).toBe('wait: Too big: expected number to be <=25');
  });
});

describe('path ids', () => {
  it('answer a long id on every operation with 400 naming the parameter, without echoing it', async () => {
    const { secret } = await newKey();
    let checked = 0;
    for (const { method, path } of operations()) {
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        for (const length of [101, 201, 5000]) {
          const long = `room_${'x'.repeat(length - 5)}`;
          const res = await t.request(method, fill(path, { [name!]: long }), { key: secret, headers: idem() });
          const label = `${method} ${path} ${name}=${length} chars`;
          expect(res.status, label).toBe(400);
          const p = await problem(res, label);
          expect(p.code, label).toBe('invalid_request');
          expect(p.message, label).toBe(`${name}: Too big: expected string to have <=100 characters`);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it('keep answering a well-formed unknown id with 404 not_found, up to 100 characters', async () => {
    const { secret } = await newKey();
    for (const id of ['room_nope', `room_${'x'.repeat(95)}`]) {
      const res = await t.request('GET', `/v1/rooms/${id}`, { key: secret });
      expect(res.status, id).toBe(404);
      const p = await problem(res, id);
      expect(p.code).toBe('not_found');
      expect(p.message).toMatch(/^No such room: 'room_x*(nope)?…?'$/);
      expect(p.message.length).toBeLessThan(100);
    }
    // The room page answers a long id with its own not-found page.
    const page = await fetch(`${t.url}/r/room_${'x'.repeat(5000)}`);
    expect(page.status).toBe(404);
    // The page names at most 100 characters of what was asked for, and stays a small page.
    const html = await page.text();
    expect(html).not.toContain('x'.repeat(100));
    expect(html.length).toBeLessThan(1000);
  });
});
