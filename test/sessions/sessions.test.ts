import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { simulatedTranslator } from '../../src/sim/translator.ts';

// AI agent sessions end to end over HTTP with the simulator running (workers
// on, TOLK_SIM_SPEED=20 so robots talk every 0.1-0.2 s): join, listen, say,
// leave, transcripts, room end, limits and the live-mode refusal.

vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
let key: string;
let orgId: string;

beforeAll(async () => {
  t = await startTestApp({ workers: true, config: { simSpeed: 20, maxSessions: 50 } });
  ({ secret: key, orgId } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(langs: string[] = ['en', 'pt'], k = key) {
  const res = await t.request('POST', '/v1/rooms', { key: k, body: { title: 'Agents', langs }, headers: idem() });
  expect(res.status).toBe(201);
  return (await res.json()).id as string;
}

async function join(roomId: string, body: Record<string, unknown> = {}, k = key) {
  const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, {
    key: k, body: { speak_lang: 'en', hear_lang: 'de', ...body }, headers: idem(),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function events(sessionId: string, cursor: number, wait = 0, k = key) {
  const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=${wait}`, { key: k });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{ events: any[]; cursor: number; status: string }>;
}

/** Reads from cursor until `pred` holds for some event; returns every event read. */
async function readUntil(sessionId: string, pred: (e: any) => boolean, from = 0, ms = 15_000) {
  const all: any[] = [];
  let cursor = from;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const r = await events(sessionId, cursor, 5);
    all.push(...r.events);
    cursor = r.cursor;
    if (r.events.some(pred)) return { all, cursor };
  }
  throw new Error(`no matching event in ${ms} ms; got ${JSON.stringify(all.slice(-3))}`);
}

describe('agent session flow', () => {
  it('join → listen → say → leave, with robots, translation, billing and a transcript', async () => {
    const roomId = await room(['en', 'pt']);
    const s = await join(roomId, { name: 'Ana Bot', speak_lang: 'en', hear_lang: 'de' });
    expect(s).toMatchObject({ room_id: roomId, name: 'Ana Bot', speak_lang: 'en', hear_lang: 'de', status: 'active', billed_seconds: 0, ended_at: null, livemode: false });
    expect(s.id).toMatch(/^ses_/);
    expect((await (await t.request('GET', `/v1/sessions/${s.id}`, { key })).json())).toMatchObject({ id: s.id, status: 'active' });

    // First: the announcement, in the session's language, then the robots.
    const first = await events(s.id, 0);
    expect(first.status).toBe('active');
    const ann = first.events[0];
    expect(ann).toMatchObject({ id: 1, type: 'segment.final', speaker: null, src_lang: 'en' });
    expect(ann.untrusted_content.text).toContain('Ana Bot');
    expect(ann.untrusted_content.text_in_hear_lang).toContain('Ana Bot');
    expect(ann.untrusted_content.text_in_hear_lang).not.toBe(ann.untrusted_content.text);

    const { all, cursor } = await readUntil(s.id, (e) => e.speaker === 'Robot B', first.cursor);
    // Robot A may already have spoken by the first read, on a busy machine.
    const a = [...first.events, ...all].find((e) => e.speaker === 'Robot A')!;
    const b = all.find((e) => e.speaker === 'Robot B')!;
    expect(a).toMatchObject({ type: 'segment.final', src_lang: 'en', meta: { participant_id: 'robot_a', seq: a.id } });
    expect(b).toMatchObject({ type: 'segment.final', src_lang: 'pt', meta: { participant_id: 'robot_b', seq: b.id } });
    // A phrasebook phrase arrives in a real translation, not the marked form.
    expect(b.untrusted_content.text_in_hear_lang).toBe(simulatedTranslator.translate(b.untrusted_content.text, 'pt', 'de'));
    expect(b.untrusted_content.text_in_hear_lang).not.toBe(b.untrusted_content.text);
    expect(b.untrusted_content.text_in_hear_lang).not.toMatch(/^\[/);
    // An event's id is the room's number of the phrase: in a new room, consecutive from 1.
    const ids = [...first.events, ...all].map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));

    const text = 'Hello from the agent, can everyone hear me?';
    const said = await t.request('POST', `/v1/sessions/${s.id}/say`, { key, body: { text } });
    expect(said.status).toBe(202);
    const r = await said.json();
    expect(r.utterance_id).toMatch(/^utt_/);
    expect(r.livemode).toBe(false);
    expect(Number.isInteger(r.queued_ms)).toBe(true);
    // 43 characters at 15 a second = 3 s, times 2 listener languages (en, pt).
    expect(r.charged_seconds).toBe(Math.ceil(text.length / 15) * 2);

    // A robot answers (after the say, within 3 s scaled by TOLK_SIM_SPEED).
    const before = await t.pool.query(`SELECT max(id)::int AS id FROM room_segments WHERE room_id = $1 AND kind = 'agent'`, [roomId]);
    expect(before.rows[0].id).toBeGreaterThan(0);
    await readUntil(s.id, (e) => e.id > cursor && e.speaker?.startsWith('Robot'), cursor);

    const left = await t.request('POST', `/v1/sessions/${s.id}/leave`, { key });
    expect(left.status).toBe(200);
    const ended = await left.json();
    expect(ended).toMatchObject({ id: s.id, status: 'ended' });
    expect(ended.ended_at).not.toBeNull();
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(r.charged_seconds);

    for (const [method, path, body] of [
      ['POST', `/v1/sessions/${s.id}/say`, { text: 'again' }],
      ['POST', `/v1/sessions/${s.id}/leave`, undefined],
      ['GET', `/v1/sessions/${s.id}/events?cursor=0`, undefined],
    ] as const) {
      const res = await t.request(method, path, { key, body });
      expect(res.status, path).toBe(409);
      expect((await res.json()).code).toBe('session_ended');
    }
    // The 409 read delivered nothing, so it billed nothing (robots spoke after the last read).
    const after = await (await t.request('GET', `/v1/sessions/${s.id}`, { key })).json();
    expect(after.billed_seconds).toBe(ended.billed_seconds);

    // The conversation is a transcript; its text is only behind the credential.
    const list = await (await t.request('GET', `/v1/transcripts?room_id=${roomId}`, { key })).json();
    expect(list.data).toHaveLength(1);
    const summary = list.data[0];
    expect(summary).toMatchObject({ room_id: roomId, livemode: false, ended_at: ended.ended_at });
    expect(summary.segments).toBeGreaterThanOrEqual(4);
    const tr = await (await t.request('GET', `/v1/transcripts/${summary.id}?lang=fr`, { key })).json();
    expect(tr).toMatchObject({ id: summary.id, room_id: roomId, lang: 'fr' });
    expect(tr.notice).toMatch(/third-party/);
    expect(tr.segments).toHaveLength(summary.segments);
    const own = tr.segments.find((x: any) => x.untrusted_content.text === text);
    expect(own).toMatchObject({ speaker: 'Ana Bot', src_lang: 'en' });
    const robot = tr.segments.find((x: any) => x.speaker === 'Robot B');
    expect(robot.untrusted_content.text_in_lang).toBe(simulatedTranslator.translate(robot.untrusted_content.text, 'pt', 'fr'));

    const log = await (await t.request('GET', '/v1/events?limit=100', { key })).json();
    const types = log.data.filter((e: any) => [s.id, summary.id].includes(e.data.object.id)).map((e: any) => e.type);
    expect(types).toEqual(expect.arrayContaining(['session.started', 'session.ended', 'transcript.ready']));
    expect(JSON.stringify(log)).not.toContain(text);
  });

  it('a second agent in the room hears the first one in its own language', async () => {
    const roomId = await room(['en', 'es']);
    const speaker = await join(roomId, { name: 'Speaker', speak_lang: 'en', hear_lang: 'en', announce: false });
    const listener = await join(roomId, { name: 'Listener', speak_lang: 'fr', hear_lang: 'fr', announce: false });
    const start = (await events(listener.id, 0)).cursor;
    const text = 'Good morning, everyone.';
    expect((await t.request('POST', `/v1/sessions/${speaker.id}/say`, { key, body: { text } })).status).toBe(202);
    const { all } = await readUntil(listener.id, (e) => e.speaker === 'Speaker', start);
    const heard = all.find((e) => e.speaker === 'Speaker');
    expect(heard).toMatchObject({ src_lang: 'en', meta: { participant_id: speaker.id } });
    expect(heard.untrusted_content.text).toBe(text);
    expect(heard.untrusted_content.text_in_hear_lang).toBe(simulatedTranslator.translate(text, 'en', 'fr'));
    // The speaker does not hear itself: its own reading skips its phrase (the
    // cursor moves past it) and delivers everything else the room said.
    const own = await events(speaker.id, 0);
    expect(own.events.map((e) => e.untrusted_content.text)).not.toContain(text);
    expect(own.cursor).toBeGreaterThanOrEqual(heard.id);
    const ownIds = own.events.map((e) => e.id);
    expect(ownIds).toEqual([...ownIds].sort((x, y) => x - y));
    expect(ownIds).not.toContain(heard.id);
    // 3 listener languages: the robots' en and es, and the listener's fr.
    const r = await (await t.request('POST', `/v1/sessions/${speaker.id}/say`, { key, body: { text: 'x'.repeat(30) } })).json();
    expect(r.charged_seconds).toBe(2 * 3);
  });

  it('announce=true: an agent already in the room hears, in its language, that an AI assistant joined', async () => {
    const roomId = await room(['en', 'es']);
    const first = await join(roomId, { hear_lang: 'es', announce: false });
    const start = (await events(first.id, 0)).cursor;
    await join(roomId, { name: 'Nova', hear_lang: 'de', announce: true });
    const { all } = await readUntil(first.id, (e) => e.speaker === null && e.untrusted_content.text.includes('Nova'), start);
    const ann = all.find((e) => e.speaker === null)!;
    expect(ann.untrusted_content.text_in_hear_lang).toContain('Nova');
    expect(ann.meta.lang).toBe('es');
  });

  it('DELETE of the room ends its sessions (session.ended) and keeps their transcripts', async () => {
    const roomId = await room();
    const s1 = await join(roomId);
    const s2 = await join(roomId, { hear_lang: 'fr' });
    expect((await t.request('DELETE', `/v1/rooms/${roomId}`, { key })).status).toBe(200);
    for (const s of [s1, s2]) {
      const got = await (await t.request('GET', `/v1/sessions/${s.id}`, { key })).json();
      expect(got.status).toBe('ended');
    }
    // Each session's, and the room's own (test/transcripts/room-transcripts.test.ts).
    const list = await (await t.request('GET', `/v1/transcripts?room_id=${roomId}`, { key })).json();
    expect(list.data).toHaveLength(3);
    const actor = await t.pool.query(`SELECT state, snapshot->'context' AS ctx FROM actors WHERE id = $1`, [s1.id]);
    expect(actor.rows[0]).toMatchObject({ state: 'ended', ctx: { endReason: 'room_ended' } });
    // No robot keeps talking in an ended room.
    expect((await t.pool.query(`SELECT 1 FROM sim_rooms WHERE room_id = $1`, [roomId])).rowCount).toBe(0);
    const res = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body: { speak_lang: 'en', hear_lang: 'en' }, headers: idem() });
    expect(res.status).toBe(409);

    // A day later the hourly maintenance drops what the sessions heard; the transcripts keep it.
    await t.pool.query(`UPDATE agent_sessions SET ended_at = now() - interval '2 days' WHERE room_id = $1`, [roomId]);
    await t.pool.query(`UPDATE rooms SET ended_at = now() - interval '2 days' WHERE id = $1`, [roomId]);
    const { pruneExpired } = await import('../../src/jobs-registry.ts');
    await pruneExpired(t.services);
    expect((await t.pool.query(`SELECT 1 FROM room_segments WHERE room_id = $1`, [roomId])).rowCount).toBe(0);
    expect((await t.pool.query(`SELECT 1 FROM room_logs WHERE room_id = $1`, [roomId])).rowCount).toBe(0);
    const tr = await (await t.request('GET', `/v1/transcripts/${list.data[0].id}`, { key })).json();
    expect(tr.segments.length).toBe(list.data[0].segments);
    expect(tr.segments.length).toBeGreaterThan(0);
  });
});

describe('input, modes and limits', () => {
  it('live keys answer 501 not_available_yet on every agent endpoint', async () => {
    const live = await t.key({ org: orgId, mode: 'live', rpm: 100_000 });
    const liveRoom = await room(['en'], live.secret);
    const calls: Array<[string, string, unknown?]> = [
      ['POST', `/v1/rooms/${liveRoom}/agent-sessions`, { speak_lang: 'en', hear_lang: 'en' }],
      ['GET', '/v1/sessions/ses_x'],
      ['POST', '/v1/sessions/ses_x/say', { text: 'hi' }],
      ['GET', '/v1/sessions/ses_x/events?cursor=0'],
      ['POST', '/v1/sessions/ses_x/leave'],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.request(method, path, { key: live.secret, body, headers: idem() });
      expect(res.status, path).toBe(501);
      expect((await res.json()).code).toBe('not_available_yet');
    }
  });

  it('refuses bad input naming the field: wait over 25, text over 1000 or empty, missing languages', async () => {
    const roomId = await room();
    const s = await join(roomId);
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', `/v1/sessions/${s.id}/events?cursor=0&wait=26`, undefined, 'wait'],
      ['GET', `/v1/sessions/${s.id}/events?cursor=-1`, undefined, 'cursor'],
      ['POST', `/v1/sessions/${s.id}/say`, { text: 'x'.repeat(1001) }, 'text'],
      ['POST', `/v1/sessions/${s.id}/say`, { text: '' }, 'text'],
      ['POST', `/v1/rooms/${roomId}/agent-sessions`, { speak_lang: 'en' }, 'hear_lang'],
      ['POST', `/v1/rooms/${roomId}/agent-sessions`, { speak_lang: 'en', hear_lang: 'en', name: '' }, 'name'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await t.request(method, path, { key, body, headers: idem() });
      expect(res.status, path).toBe(400);
      expect((await res.json()).message, path).toContain(field);
    }
    expect((await events(s.id, 0, undefined)).status).toBe('active');
    expect((await t.request('GET', `/v1/sessions/${s.id}/events?cursor=null&wait=null`, { key })).status).toBe(200);
    expect((await t.request('GET', '/v1/sessions/ses_nope', { key })).status).toBe(404);
    const other = await t.key();
    expect((await t.request('GET', `/v1/sessions/${s.id}`, { key: other.secret })).status).toBe(404);
    // Listening to a session that is not the caller's is 404 too, without waiting, as for one that does not exist.
    for (const [id, k] of [[s.id, other.secret], ['ses_nope', key], ['ses_0000000000000000000000', key]] as const) {
      const res = await t.request('GET', `/v1/sessions/${id}/events?cursor=0&wait=25`, { key: k });
      expect(res.status, id).toBe(404);
      expect((await res.json()).code, id).toBe('not_found');
    }
  });

  it('429 too_many_sessions above the organization limit, exact under parallel joins', async () => {
    const t2 = await startTestApp({ config: { maxSessions: 3 } });
    try {
      const k = await t2.key({ rpm: 100_000 });
      const r = await t2.request('POST', '/v1/rooms', { key: k.secret, body: {}, headers: idem() });
      const roomId = (await r.json()).id;
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          t2.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key: k.secret, body: { speak_lang: 'en', hear_lang: 'en' }, headers: idem() }),
        ),
      );
      const statuses = results.map((x) => x.status).sort();
      expect(statuses.filter((x) => x === 201)).toHaveLength(3);
      expect(statuses.filter((x) => x === 429)).toHaveLength(7);
      const refused = results.find((x) => x.status === 429)!;
      expect((await refused.json()).code).toBe('too_many_sessions');
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      // Leaving frees a place.
      const ok = await results.find((x) => x.status === 201)!.json();
      await t2.request('POST', `/v1/sessions/${ok.id}/leave`, { key: k.secret });
      const again = await t2.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key: k.secret, body: { speak_lang: 'en', hear_lang: 'en' }, headers: idem() });
      expect(again.status).toBe(201);
    } finally {
      await t2.close();
    }
  });

  it('402 spend_limit_reached when a say would pass the key\'s daily limit, in test mode too', async () => {
    const k = await t.key({ spendDay: 0.5, rpm: 100_000 }); // 30 seconds a day
    const roomId = await room(['en', 'es'], k.secret);
    const s = await join(roomId, { announce: false }, k.secret);
    // 150 characters = 10 s spoken, times 2 languages = 20 s.
    const first = await t.request('POST', `/v1/sessions/${s.id}/say`, { key: k.secret, body: { text: 'a'.repeat(150) } });
    expect(first.status).toBe(202);
    const second = await t.request('POST', `/v1/sessions/${s.id}/say`, { key: k.secret, body: { text: 'a'.repeat(150) } });
    expect(second.status).toBe(402);
    expect((await second.json()).code).toBe('spend_limit_reached');
    const me = await (await t.request('GET', '/v1/me', { key: k.secret })).json();
    expect(me.limits.spent_today_minutes).toBeCloseTo(20 / 60, 2);
    // The ledger row is a test-mode one: no balance moved.
    const bal = await t.pool.query(`SELECT livemode FROM usage_ledger WHERE credential_id = $1`, [k.keyId]);
    expect(bal.rows.every((x) => x.livemode === false)).toBe(true);
  });

  it('listening is metered as phrases are delivered and, at the key\'s limit, reading answers 402 spend_limit_reached', async () => {
    const k = await t.key({ spendDay: 0.05, rpm: 100_000 }); // 3 seconds a day; listening costs a tenth of the speech heard
    const roomId = await room(['en', 'es'], k.secret);
    const s = await join(roomId, { announce: false, hear_lang: 'fr' }, k.secret);
    let cursor = 0;
    let read = 0;
    const deadline = Date.now() + 20_000;
    for (;;) {
      expect(Date.now()).toBeLessThan(deadline);
      const res = await t.request('GET', `/v1/sessions/${s.id}/events?cursor=${cursor}&wait=2`, { key: k.secret });
      if (res.status === 402) {
        expect((await res.json()).code).toBe('spend_limit_reached');
        break;
      }
      expect(res.status).toBe(200);
      const body = await res.json();
      read += body.events.length;
      cursor = body.cursor;
    }
    expect(read).toBeGreaterThan(0);
    // Leaving stops the robots; then the books balance: the ledger holds the
    // listening of this key only, and the session's billed_seconds is its sum.
    expect((await t.request('POST', `/v1/sessions/${s.id}/leave`, { key: k.secret })).status).toBe(200);
    const ledger = await t.pool.query(`SELECT kind, sum(seconds)::float AS s FROM usage_ledger WHERE credential_id = $1 GROUP BY kind`, [k.keyId]);
    expect(ledger.rows).toEqual([{ kind: 'listen', s: expect.any(Number) }]);
    expect(ledger.rows[0].s).toBeGreaterThanOrEqual(3);
    const session = await (await t.request('GET', `/v1/sessions/${s.id}`, { key: k.secret })).json();
    expect(session.billed_seconds).toBe(Math.round(ledger.rows[0].s));
    // usage.threshold was sent at 80% and 100% of the daily limit.
    const th = await (await t.request('GET', '/v1/events?type=usage.threshold', { key: k.secret })).json();
    expect(th.data.map((e: any) => e.data.object.threshold_percent).sort()).toEqual([100, 80]);
  });
});
