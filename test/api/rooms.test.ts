import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

describe('rooms', () => {
  it('creates an instant room that is live, readable, listed newest first and ends on DELETE', async () => {
    const { secret, orgId } = await t.key();
    const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { title: 'Standup', langs: ['en', 'pt-BR'] } });
    expect(res.status).toBe(201);
    const room = await res.json();
    expect(room).toMatchObject({ title: 'Standup', visibility: 'private', status: 'live', langs: ['en', 'pt-BR'], livemode: false, invitees: [], starts_at: null, duration_min: null });
    expect(room.id).toMatch(/^room_/);
    expect(room.url).toBe(`${t.url}/r/${room.id}`);

    const second = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    expect(second).toMatchObject({ title: '', visibility: 'private', langs: [] });

    const got = await t.request('GET', `/v1/rooms/${room.id}`, { key: secret });
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(room);

    const list = await (await t.request('GET', '/v1/rooms?limit=10', { key: secret })).json();
    expect(list.data.map((r: { id: string }) => r.id)).toEqual([second.id, room.id]);

    const del = await t.request('DELETE', `/v1/rooms/${room.id}`, { key: secret });
    expect(del.status).toBe(200);
    expect((await del.json()).status).toBe('ended');
    // Ending again returns the ended room unchanged.
    expect((await (await t.request('DELETE', `/v1/rooms/${room.id}`, { key: secret })).json()).status).toBe('ended');

    const events = await t.pool.query(`SELECT type, data FROM outbox WHERE org_id = $1 AND object_id = $2 ORDER BY id`, [orgId, room.id]);
    expect(events.rows.map((r) => r.type)).toEqual(['room.started', 'room.ended']);
    expect(events.rows[0].data.object.id).toBe(room.id);
  });

  it('keeps test and live objects apart and hides other organizations', async () => {
    const a = await t.key();
    const aLive = await t.key({ org: a.orgId, mode: 'live' });
    const b = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: a.secret, headers: idem(), body: {} })).json();
    for (const other of [aLive.secret, b.secret]) {
      const res = await t.request('GET', `/v1/rooms/${room.id}`, { key: other });
      expect(res.status).toBe(404);
      expect((await res.json()).code).toBe('not_found');
      expect((await t.request('DELETE', `/v1/rooms/${room.id}`, { key: other })).status).toBe(404);
    }
    const liveList = await (await t.request('GET', '/v1/rooms', { key: aLive.secret })).json();
    expect(liveList.data).toEqual([]);
  });

  it('creates a signed join link that opens the room and refuses a tampered one', async () => {
    const { secret } = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { title: 'Café' } })).json();
    const res = await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, body: { name: 'Ana', speak: 'pt', hear: 'en' } });
    expect(res.status).toBe(201);
    const link = await res.json();
    expect(link.room_id).toBe(room.id);
    const page = await fetch(link.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Café');
    expect(html).toContain('Ana');
    const tampered = link.url.replace(/t=([^.]+)/, (_m: string, p: string) => `t=${p.slice(0, -2)}xx`);
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('validates bodies and names the field', async () => {
    const { secret } = await t.key();
    const cases: Array<[unknown, string]> = [
      [{ title: 'x'.repeat(121) }, 'title'],
      [{ visibility: 'secret' }, 'visibility'],
      [{ langs: 'en' }, 'langs'],
      [{ langs: ['english!'] }, 'langs.0'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body });
      expect(res.status).toBe(400);
      const p = await res.json();
      expect(p.code).toBe('invalid_request');
      expect(p.message.startsWith(`${field}:`)).toBe(true);
    }
    const bad = await t.request('GET', '/v1/rooms?limit=0', { key: secret });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toMatch(/^limit:/);
  });
});

describe('text PostgreSQL cannot store', () => {
  it('answers 400 naming the field for a NUL character in the body or the query', async () => {
    const { secret } = await t.key();
    const res = await t.request('POST', '/v1/rooms', {
      key: secret,
      headers: { ...idem(), 'content-type': 'application/json' },
      rawBody: '{"title":"a\\u0000b","langs":["en"]}',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/^title: /);
    const q = await t.request('GET', '/v1/rooms?starting_after=%00', { key: secret });
    expect(q.status).toBe(400);
    expect((await q.json()).message).toMatch(/^starting_after: /);
    expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
  });

  it('answers 400 naming the field for a lone UTF-16 surrogate (valid JSON, not storable text)', async () => {
    const { secret } = await t.key();
    for (const raw of ['{"title":"\\ud800"}', '{"title":"ok \\udfff end"}', '{"langs":["en"],"title":"x","extra":{"\\ud83d":1}}']) {
      const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), 'content-type': 'application/json' }, rawBody: raw });
      expect(res.status, raw).toBe(400);
      expect((await res.json()).message, raw).toMatch(/^(title|extra): .*Unicode/);
    }
    // A well-formed pair (an emoji) is fine.
    const ok = await t.request('POST', '/v1/rooms', { key: secret, headers: { ...idem(), 'content-type': 'application/json' }, rawBody: '{"title":"\\ud83d\\ude00"}' });
    expect(ok.status).toBe(201);
    expect((await ok.json()).title).toBe('😀');
  });
});
