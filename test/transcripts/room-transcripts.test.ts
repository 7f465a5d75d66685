import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startLibreTranslate, type FakeServer } from '../helpers/fake-engines.ts';
import { until } from '../helpers/wait.ts';
import { expireRooms } from '../../src/rooms/rooms.ts';
import { fireTimer } from '../../src/rooms/meetings/meetings.ts';
import { writeRoomTranscript } from '../../src/transcripts/transcripts.ts';
import { withTx } from '../../src/db/pool.ts';

// A room's own transcript (transcripts/transcripts.ts planRoomTranscript),
// over real HTTP on a real PostgreSQL: when a room ends, by whatever path
// (DELETE, its expiry, a meeting's end timer, a meeting canceled), everything
// said in it from its first phrase (people on the room page, agents, the
// test-mode robots) becomes one transcript, listed and read in any language
// through /v1/transcripts like a session's; two processes ending the same
// room at once write it once. Translation: a LibreTranslate (the fake, which
// knows 'Hello, how are you?' and marks what it does not know `[code] text`).

vi.setConfig({ testTimeout: 60_000 });

let fake: FakeServer;
let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  fake = await startLibreTranslate();
  const translate = [{ name: 'libretranslate' as const, url: fake.url }];
  // Workers on: the robots talk (TOLK_SIM_SPEED=20: every 0.1-0.2 s).
  t = await startTestApp({ workers: true, config: { translate, simSpeed: 20, maxSessions: 50 } });
  // A second server process on the same database.
  other = await startTestApp({ db: t.db, config: { translate } });
  // Every person here joins from this machine: more than a minute's joins from one network.
  t.config.publicLimits = { ...t.config.publicLimits, joinsPerClientMinute: 1000 };
});
afterAll(async () => {
  for (const a of [t, other]) a?.app.server.closeAllConnections();
  await other?.close();
  await t?.close();
  await fake?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(key: string, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body: { langs: ['en', 'pt'], visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.json();
}

/** A person joins from the room page. */
async function person(roomId: string, body: { name: string; speak: string; hear: string }): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${t.url}/r/${roomId}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}

/** The person types a phrase on the room page. */
async function type(roomId: string, p: { id: string; secret: string }, text: string) {
  const res = await fetch(`${t.url}/r/${roomId}/say`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ participant: p.id, secret: p.secret, text }),
  });
  expect(res.status, await res.clone().text()).toBe(202);
}

async function agent(key: string, roomId: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, headers: idem(), body: { speak_lang: 'en', hear_lang: 'en', ...body } });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function transcripts(key: string, roomId: string): Promise<any[]> {
  const res = await t.request('GET', `/v1/transcripts?room_id=${roomId}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()).data;
}

async function read(key: string, id: string, lang?: string, app = t) {
  const res = await app.request('GET', `/v1/transcripts/${id}${lang ? `?lang=${lang}` : ''}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
}

/** The transcript.ready events of a room's transcripts, from the event log. */
async function ready(key: string, roomId: string): Promise<any[]> {
  const res = await t.request('GET', '/v1/events?type=transcript.ready&limit=100', { key });
  expect(res.status).toBe(200);
  return (await res.json()).data.filter((e: any) => e.data.object.room_id === roomId);
}

const texts = (tr: any) => tr.segments.map((s: any) => s.untrusted_content.text);

describe('a room\'s own transcript', () => {
  it('a room with only people: ended through the API, one transcript of every phrase with its speaker, readable in another language', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const ana = await person(r.id, { name: 'Ana', speak: 'en', hear: 'pt' });
    const bo = await person(r.id, { name: 'Bo', speak: 'pt', hear: 'en' });
    await type(r.id, ana, 'Hello, how are you?');
    await type(r.id, bo, 'Tudo bem, obrigado');
    await type(r.id, ana, 'Shall we start?');
    // Nothing yet: the transcript is written when the room ends.
    expect(await transcripts(k.secret, r.id)).toEqual([]);

    const ended = await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret });
    expect(ended.status).toBe(200);
    expect((await ended.json()).status).toBe('ended');

    const list = await transcripts(k.secret, r.id);
    expect(list).toHaveLength(1);
    const summary = list[0];
    expect(Object.keys(summary).sort()).toEqual(['ended_at', 'id', 'livemode', 'room_id', 'segments', 'started_at']);
    expect(summary).toMatchObject({ id: expect.stringMatching(/^tr_/), room_id: r.id, segments: 3, livemode: false });
    const { rows: [roomRow] } = await t.pool.query(`SELECT ended_at FROM rooms WHERE id = $1`, [r.id]);
    expect(summary.ended_at).toBe(roomRow.ended_at.toISOString());

    // In Spanish: each phrase with its speaker, its original and its translation.
    const es = await read(k.secret, summary.id, 'es');
    expect(es).toMatchObject({ id: summary.id, room_id: r.id, lang: 'es', notice: expect.stringMatching(/third-party/) });
    expect(es.segments.map((s: any) => [s.speaker, s.src_lang, s.untrusted_content.text, s.untrusted_content.text_in_lang])).toEqual([
      ['Ana', 'en', 'Hello, how are you?', 'Hola, ¿cómo estás?'],
      ['Bo', 'pt', 'Tudo bem, obrigado', '[es] Tudo bem, obrigado'],
      ['Ana', 'en', 'Shall we start?', '[es] Shall we start?'],
    ]);
    // It starts at the first phrase.
    expect(summary.started_at).toBe(es.segments[0].at);
    // Without lang: the room's first language.
    const plain = await read(k.secret, summary.id);
    expect(plain.lang).toBe('en');
    expect(plain.segments.map((s: any) => s.untrusted_content.text_in_lang)).toEqual(['Hello, how are you?', '[en] Tudo bem, obrigado', 'Shall we start?']);

    // transcript.ready, ids and counts only.
    const events = await ready(k.secret, r.id);
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toEqual({ id: summary.id, object: 'transcript', room_id: r.id, session_id: null, segment_count: 3 });
    expect(JSON.stringify(events)).not.toContain('Hello');

    // Every key of the organization in that mode reads it, like the room; another organization's, or the other mode's, does not.
    const colleague = await t.key({ org: k.orgId, permissions: 'transcripts:read', rpm: 100_000 });
    expect((await transcripts(colleague.secret, r.id)).map((x) => x.id)).toEqual([summary.id]);
    expect(texts(await read(colleague.secret, summary.id, 'pt', other))).toEqual(['Hello, how are you?', 'Tudo bem, obrigado', 'Shall we start?']);
    const live = await t.key({ org: k.orgId, mode: 'live', rpm: 100_000 });
    const stranger = await t.key({ rpm: 100_000 });
    for (const key of [live.secret, stranger.secret]) {
      expect(await transcripts(key, r.id)).toEqual([]);
      expect((await t.request('GET', `/v1/transcripts/${summary.id}`, { key })).status).toBe(404);
    }
    // A key without transcripts:read is refused.
    const roomsOnly = await t.key({ org: k.orgId, permissions: 'rooms:write', rpm: 100_000 });
    const refused = await t.request('GET', `/v1/transcripts?room_id=${r.id}`, { key: roomsOnly.secret });
    expect(refused.status).toBe(403);
  });

  it('an agent that joined late: the room\'s transcript starts at the first phrase, robots and agent included; the session keeps its own', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const ana = await person(r.id, { name: 'Ana', speak: 'en', hear: 'pt' });
    await type(r.id, ana, 'Hello, how are you?');
    const ses = await agent(k.secret, r.id, { name: 'Helper', announce: true });
    // The test-mode robots start talking once the agent is in.
    await until('a robot to speak', async () => (await t.pool.query(`SELECT 1 FROM room_segments WHERE room_id = $1 AND kind = 'robot'`, [r.id])).rowCount);
    expect((await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'Good morning' } })).status).toBe(202);
    expect((await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret })).status).toBe(200);

    const list = await transcripts(k.secret, r.id);
    expect(list).toHaveLength(2);
    const read2 = await Promise.all(list.map((x) => read(k.secret, x.id, 'es')));
    const own = read2.find((x) => x.segments[0]?.untrusted_content.text === 'Hello, how are you?');
    const session = read2.find((x) => x !== own);
    expect(own).toBeDefined();
    const ownSummary = list.find((x) => x.id === own.id);
    expect(ownSummary.started_at).toBe(own.segments[0].at);
    expect(Date.parse(ownSummary.started_at)).toBeLessThan(Date.parse(ses.started_at));
    // Whoever spoke: the person, the announcement, the robots, the agent.
    expect(own.segments[0]).toMatchObject({ speaker: 'Ana', src_lang: 'en', untrusted_content: { text_in_lang: 'Hola, ¿cómo estás?' } });
    expect(own.segments.some((s: any) => s.speaker === null && s.untrusted_content.text.includes('Helper'))).toBe(true);
    expect(own.segments.some((s: any) => s.speaker === 'Robot A')).toBe(true);
    expect(own.segments.find((s: any) => s.speaker === 'Helper')).toMatchObject({ src_lang: 'en', untrusted_content: { text: 'Good morning' } });
    expect(ownSummary.segments).toBe(own.segments.length);
    // The session's own transcript: its window only, from the moment it joined (without Ana's first phrase).
    expect(texts(session)).not.toContain('Hello, how are you?');
    expect(texts(session)).toContain('Good morning');
    expect(texts(own)).toEqual(expect.arrayContaining(texts(session)));
    expect(own.segments.length).toBeGreaterThan(session.segments.length);
    // One transcript.ready each.
    expect((await ready(k.secret, r.id)).map((e) => e.data.object.id).sort()).toEqual(list.map((x) => x.id).sort());
  });

  it('a room where nothing was said has no transcript', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    await person(r.id, { name: 'Ana', speak: 'en', hear: 'pt' });
    await person(r.id, { name: 'Bo', speak: 'pt', hear: 'en' });
    expect((await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret })).status).toBe(200);
    expect(await transcripts(k.secret, r.id)).toEqual([]);
    expect(await ready(k.secret, r.id)).toEqual([]);
  });

  it('two processes ending the same room at once (two DELETEs and the expiry sweep) write one transcript and one transcript.ready', async () => {
    const k = await t.key({ rpm: 100_000 });
    const rooms = await Promise.all([0, 1, 2, 3].map(() => room(k.secret)));
    for (const r of rooms) {
      const p = await person(r.id, { name: 'Ana', speak: 'en', hear: 'pt' });
      await type(r.id, p, 'Hello, how are you?');
      await type(r.id, p, 'Is anyone there?');
    }
    // Every room has expired: the sweep on one process races a DELETE on each.
    await t.pool.query(`UPDATE rooms SET expires_at = now() - interval '1 second' WHERE id = ANY($1)`, [rooms.map((r) => r.id)]);
    const results = await Promise.all([
      ...rooms.flatMap((r) => [
        t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret }),
        other.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret }),
      ]),
      expireRooms(other.services),
    ]);
    for (const res of results.slice(0, -1) as Awaited<ReturnType<TestApp['request']>>[]) {
      expect(res.status).toBe(200);
      expect((await res.json()).status).toBe('ended');
    }
    for (const r of rooms) {
      const list = await transcripts(k.secret, r.id);
      expect(list).toHaveLength(1);
      expect(list[0].segments).toBe(2);
      expect(await ready(k.secret, r.id)).toHaveLength(1);
      // Written again by another statement (a process that missed the end): still one.
      await withTx(other.pool, (tx) => writeRoomTranscript(tx, r.id));
      expect(await transcripts(k.secret, r.id)).toHaveLength(1);
      expect(await ready(k.secret, r.id)).toHaveLength(1);
    }
  });

  it('a room that expires gets its transcript from the expiry sweep', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { langs: [] });
    const bo = await person(r.id, { name: 'Bo', speak: 'pt', hear: 'en' });
    await type(r.id, bo, 'Bom dia');
    await t.pool.query(`UPDATE rooms SET expires_at = now() - interval '1 second' WHERE id = $1`, [r.id]);
    await expireRooms(t.services);
    expect((await (await t.request('GET', `/v1/rooms/${r.id}`, { key: k.secret })).json()).status).toBe('ended');
    const [summary] = await transcripts(k.secret, r.id);
    expect(summary).toMatchObject({ room_id: r.id, segments: 1 });
    // A room created without languages: its transcript's language is its first phrase's.
    const tr = await read(k.secret, summary.id);
    expect(tr.lang).toBe('pt');
    expect(tr.segments).toEqual([expect.objectContaining({ speaker: 'Bo', src_lang: 'pt', untrusted_content: { text: 'Bom dia', text_in_lang: 'Bom dia' } })]);
  });

  it('a meeting ended by its timer, and one canceled before it started, have their transcripts', async () => {
    const k = await t.key({ rpm: 100_000 });
    const schedule = async () => {
      const res = await t.request('POST', '/v1/meetings', {
        key: k.secret, headers: idem(),
        body: { title: 'Review', starts_at: new Date(Date.now() + 3600_000).toISOString(), duration_min: 30, langs: ['en', 'es'], visibility: 'public' },
      });
      expect(res.status, await res.clone().text()).toBe(201);
      return res.json();
    };
    const sequence = async (id: string) => (await t.pool.query(`SELECT sequence FROM rooms WHERE id = $1`, [id])).rows[0].sequence as number;

    // Started by its timer, a person speaks, its end timer ends it.
    const m = await schedule();
    await fireTimer(t.services, { roomId: m.id, sequence: await sequence(m.id), kind: 'start' });
    const ana = await person(m.id, { name: 'Ana', speak: 'en', hear: 'es' });
    await type(m.id, ana, 'Hello, how are you?');
    await fireTimer(t.services, { roomId: m.id, sequence: await sequence(m.id), kind: 'end' });
    expect((await (await t.request('GET', `/v1/rooms/${m.id}`, { key: k.secret })).json()).status).toBe('ended');
    const [ended] = await transcripts(k.secret, m.id);
    expect(ended).toMatchObject({ room_id: m.id, segments: 1 });
    expect((await read(k.secret, ended.id, 'es')).segments[0]).toMatchObject({ speaker: 'Ana', untrusted_content: { text: 'Hello, how are you?', text_in_lang: 'Hola, ¿cómo estás?' } });

    // An agent waits in a scheduled meeting, the robots talk, the meeting is canceled.
    const c = await schedule();
    await agent(k.secret, c.id, { name: 'Early', announce: false });
    await until('a robot to speak', async () => (await t.pool.query(`SELECT 1 FROM room_segments WHERE room_id = $1 AND kind = 'robot'`, [c.id])).rowCount);
    const canceled = await t.request('DELETE', `/v1/meetings/${c.id}`, { key: k.secret });
    expect(canceled.status).toBe(200);
    expect((await canceled.json()).status).toBe('canceled');
    // (A canceled meeting's agent is not made to leave: the room's is its only transcript.)
    const [summary] = await transcripts(k.secret, c.id);
    const tr = await read(k.secret, summary.id);
    expect(tr.lang).toBe('en');
    expect(tr.segments.length).toBeGreaterThan(0);
    expect(tr.segments.every((x: any) => x.speaker === 'Robot A' || x.speaker === 'Robot B')).toBe(true);
    expect(await ready(k.secret, c.id)).toHaveLength(1);
  });
});
