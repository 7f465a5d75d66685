import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withTx } from '../../src/db/pool.ts';
import { spokenSeconds } from '../../src/providers/speech.ts';
import { decodeNotice } from '../../src/calls/channel.ts';

// Session events beyond segment.final (operator.md): a say's progress in a
// room (timed by the speaking-rate estimate, through a pg-boss job), partials
// and speech activity published through the reactions, over real HTTP on a
// real database. Signals are delivered to whom they concern, never billed,
// never in a transcript.

vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
let key: string;

beforeAll(async () => {
  // Workers on (the say.finished job); the simulator at its own pace, its robots stopped by each test.
  t = await startTestApp({ workers: true, config: { simSpeed: 1 } });
  ({ secret: key } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** A room with two agent sessions, its robots silenced so that only what the test says is in its log. */
async function roomWithTwo() {
  const res = await t.request('POST', '/v1/rooms', { key, body: { title: 'Signals', langs: ['en', 'de'] }, headers: idem() });
  expect(res.status).toBe(201);
  const roomId = (await res.json()).id as string;
  const join = async (body: Record<string, unknown>) => {
    const r = await t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, body, headers: idem() });
    expect(r.status, await r.clone().text()).toBe(201);
    return (await r.json()).id as string;
  };
  const a = await join({ speak_lang: 'en', hear_lang: 'de', name: 'Ada' });
  const b = await join({ speak_lang: 'de', hear_lang: 'en', name: 'Bea' });
  await t.pool.query(`DELETE FROM sim_rooms WHERE room_id = $1`, [roomId]);
  await t.pool.query(`DELETE FROM sim_replies WHERE room_id = $1`, [roomId]);
  // Each session's cursor past what came before (the announcement of the second agent).
  const head = Number((await t.pool.query(`SELECT seq FROM room_logs WHERE room_id = $1`, [roomId])).rows[0]?.seq ?? 0);
  return { roomId, a, b, head };
}

async function events(sessionId: string, cursor: number, wait = 0) {
  const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=${wait}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{ events: any[]; cursor: number; status: string }>;
}

/** Reads from cursor until pred holds for an event; every event read, and the cursor. */
async function readUntil(sessionId: string, pred: (e: any) => boolean, from = 0, ms = 15_000) {
  const all: any[] = [];
  let cursor = from;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const r = await events(sessionId, cursor, 2);
    all.push(...r.events);
    cursor = r.cursor;
    if (r.events.some(pred)) return { all, cursor };
  }
  throw new Error(`no matching event in ${ms} ms; got ${JSON.stringify(all.slice(-3))}`);
}

async function billed(sessionId: string): Promise<number> {
  return (await (await t.request('GET', `/v1/sessions/${sessionId}`, { key })).json()).billed_seconds;
}

async function listenLedger(): Promise<number> {
  const { rows } = await t.pool.query(`SELECT count(*)::int AS n, coalesce(sum(seconds), 0)::float AS s FROM usage_ledger WHERE kind = 'listen'`);
  return rows[0].n * 1e6 + rows[0].s;
}

describe('session events beyond segment.final', () => {
  it('a say in a room: say.started then say.finished to the saying session only', async () => {
    const { a, b, head } = await roomWithTwo();
    const text = 'Hello there, everyone.';
    const res = await t.request('POST', `/v1/sessions/${a}/say`, { key, body: { text }, headers: idem() });
    expect(res.status, await res.clone().text()).toBe(202);
    const { utterance_id } = await res.json();

    const mine = await readUntil(a, (e) => e.type === 'say.finished', head);
    const progress = mine.all.filter((e) => e.type.startsWith('say.'));
    expect(progress.map((e) => e.type)).toEqual(['say.started', 'say.finished']);
    expect(progress[0].meta).toMatchObject({ utterance_id, spoken_ms: 0, participant_id: a });
    expect(progress[1].meta).toMatchObject({ utterance_id, spoken_ms: spokenSeconds(text) * 1000, participant_id: a });
    expect(progress[1].id).toBeGreaterThan(progress[0].id);
    for (const e of progress) expect(e.untrusted_content).toEqual({ text: null, text_in_hear_lang: null });
    // Its own phrase it does not hear, as before.
    expect(mine.all.some((e) => e.type === 'segment.final')).toBe(false);

    // The other session hears the phrase, and nothing of its progress, even past say.finished's number.
    const theirs = await readUntil(b, (e) => e.type === 'segment.final', head);
    const rest = await events(b, theirs.cursor, 0);
    const all = [...theirs.all, ...rest.events];
    expect(all.filter((e) => e.type === 'segment.final').map((e) => e.untrusted_content.text)).toEqual([text]);
    expect(all.some((e) => e.type.startsWith('say.'))).toBe(false);
    expect(Math.max(theirs.cursor, rest.cursor)).toBeGreaterThanOrEqual(progress[1].id);
  });

  it('partials and speech activity reach the other sessions, unbilled, and the final carries their segment_id; none in transcripts', async () => {
    const { roomId, a, b } = await roomWithTwo();
    // Each session read up to now (its listening billed so far: the announcement).
    let ca = (await events(a, 0)).cursor;
    let cb = (await events(b, 0)).cursor;
    const before = { a: await billed(a), b: await billed(b), ledger: await listenLedger() };

    const person = 'par_signals_test';
    const segmentId = 'seg_test_1';
    await withTx(t.pool, async (tx) => {
      await t.reactions.speechActivity(t.services, tx, { logId: roomId, speaker: 'Carla', participantId: person, kind: 'started' });
    });
    for (const text of ['Guten', 'Guten Morgen']) {
      await withTx(t.pool, (tx) => t.reactions.partialHeard(t.services, tx, {
        logId: roomId, speaker: 'Carla', participantId: person, srcLang: 'de', segmentId, text,
      }));
    }
    for (const s of [a, b]) {
      const got = await readUntil(s, (e) => e.type === 'segment.partial' && e.untrusted_content.text === 'Guten Morgen', s === a ? ca : cb);
      if (s === a) ca = got.cursor; else cb = got.cursor;
      expect(got.all.map((e) => e.type)).toEqual(['speech.started', 'segment.partial', 'segment.partial']);
      expect(got.all[0]).toMatchObject({ speaker: 'Carla', meta: { participant_id: person } });
      for (const p of got.all.slice(1)) {
        expect(p).toMatchObject({ speaker: 'Carla', src_lang: 'de', meta: { segment_id: segmentId, participant_id: person } });
        // Never translated: as it was heard.
        expect(p.untrusted_content.text_in_hear_lang).toBeNull();
      }
    }
    // Not billed: the sessions' totals and the listening ledger are as they were.
    expect({ a: await billed(a), b: await billed(b), ledger: await listenLedger() }).toEqual(before);

    await withTx(t.pool, async (tx) => {
      await t.reactions.personSaid(t.services, tx, { logId: roomId, participantId: person, speaker: 'Carla', lang: 'de', text: 'Guten Morgen, alle.', segmentId });
      await t.reactions.speechActivity(t.services, tx, { logId: roomId, speaker: 'Carla', participantId: person, kind: 'stopped' });
    });
    const fin = await readUntil(b, (e) => e.type === 'speech.stopped', cb);
    expect(fin.all.map((e) => e.type)).toEqual(['segment.final', 'speech.stopped']);
    expect(fin.all[0]).toMatchObject({ untrusted_content: { text: 'Guten Morgen, alle.' }, meta: { segment_id: segmentId, participant_id: person } });

    // The room's transcript (and the sessions'): the phrases (the announcement, Carla's), no partial, no speech activity.
    expect((await t.request('DELETE', `/v1/rooms/${roomId}`, { key })).status).toBe(200);
    const list = await (await t.request('GET', `/v1/transcripts?room_id=${roomId}`, { key })).json();
    expect(list.data).toHaveLength(3);
    for (const tr of list.data) {
      const got = await (await t.request('GET', `/v1/transcripts/${tr.id}`, { key })).json();
      expect(got.segments.map((g: any) => g.untrusted_content.text)).toContain('Guten Morgen, alle.');
      expect(got.segments.length).toBe(tr.segments);
      for (const g of got.segments) expect(['Guten', 'Guten Morgen', null]).not.toContain(g.untrusted_content.text);
    }
    const kinds = await t.pool.query(
      `SELECT DISTINCT g.kind FROM transcript_segments g JOIN transcripts r ON r.id = g.transcript_id WHERE r.room_id = $1`, [roomId]);
    expect(kinds.rows.map((r) => r.kind).sort()).toEqual(['announcement', 'person']);
  });

  it('a participant does not receive its own speech activity or partials', async () => {
    const { roomId, a, b, head } = await roomWithTwo();
    const ca = head;
    await withTx(t.pool, async (tx) => {
      await t.reactions.speechActivity(t.services, tx, { logId: roomId, speaker: 'Ada', participantId: a, kind: 'started' });
      await t.reactions.partialHeard(t.services, tx, { logId: roomId, speaker: 'Ada', participantId: a, srcLang: 'en', segmentId: 'seg_a', text: 'Hi' });
    });
    const theirs = await readUntil(b, (e) => e.type === 'segment.partial', head);
    expect(theirs.all.map((e) => e.type)).toEqual(['speech.started', 'segment.partial']);
    const mine = await events(a, ca, 0);
    expect(mine.events).toEqual([]);
    expect(mine.cursor).toBe(theirs.cursor);
  });

  it('interruptible is a boolean: anything else is a 400 naming it', async () => {
    const { a } = await roomWithTwo();
    const bad = await t.request('POST', `/v1/sessions/${a}/say`, { key, body: { text: 'Hello', interruptible: 'yes' }, headers: idem() });
    expect(bad.status).toBe(400);
    expect((await bad.json()).message).toContain('interruptible');
    const ok = await t.request('POST', `/v1/sessions/${a}/say`, { key, body: { text: 'Hello', interruptible: true }, headers: idem() });
    expect(ok.status).toBe(202);
    // On a call the line gets it; a notice sent without it (an older process) is a call's default.
    const notice = decodeNotice(JSON.stringify({
      type: 'say', call: 'call_x', utterance: 'utt_x', livemode: false,
      phrase: { seq: 1, kind: 'agent', text: 'Hi', src_lang: 'en', announced: null, created_at: new Date().toISOString() },
    }));
    expect(notice).toMatchObject({ type: 'say', interruptible: true });
  });

  it('the OpenAPI document names the new event types, their meta and say\'s interruptible', async () => {
    const doc = await (await t.request('GET', '/v1/openapi.json')).json();
    const ev = doc.components.schemas.SessionEvent.properties;
    for (const type of ['segment.partial', 'say.started', 'say.finished', 'say.interrupted', 'speech.started', 'speech.stopped']) {
      expect(ev.type.description).toContain(`\`${type}\``);
    }
    for (const field of ['segment_id', 'utterance_id', 'spoken_ms']) expect(ev.meta.description).toContain(field);
    const body = doc.paths['/v1/sessions/{id}/say'].post.requestBody.content['application/json'].schema;
    expect(body.properties.interruptible.type).toBe('boolean');
  });
});
