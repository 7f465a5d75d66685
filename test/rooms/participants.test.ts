import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { sweepAbsent } from '../../src/rooms/participants.ts';

// People on a room's page (src/rooms/participants.ts, page.ts, stream.ts)
// over real HTTP: joining, the live stream (Server-Sent Events) fed by the
// room's log, typing a phrase that agents hear, leaving, going absent, the
// room ending; and a phrase said through one server process reaching a page
// connected to another.

let t: TestApp;
let other: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  other = await startTestApp({ db: t.db });
});
afterAll(async () => {
  // fetch() leaves a connection open, unused, after a stream it aborted; a server waits for such a client until its request timeout.
  for (const a of [t, other]) a?.app.server.closeAllConnections();
  await other?.close();
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** A page's stream: the events as they arrive, and what it is waiting for. */
function openStream(base: string, roomId: string, p: { id: string; secret: string }, headers: Record<string, string> = {}) {
  const events: Sse[] = [];
  const ctl = new AbortController();
  let ended = false;
  const done = (async () => {
    const res = await fetch(`${base}/r/${roomId}/stream?participant=${p.id}&secret=${p.secret}`, { signal: ctl.signal, headers });
    if (res.status !== 200) {
      events.push({ event: 'http', data: { status: res.status, body: await res.json() } });
      ended = true;
      return;
    }
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await readSse(res.body!, (e) => events.push(e));
    ended = true;
  })().catch(() => { ended = true; });
  /** Who the page knows is here: the list it was sent, then who came and went. */
  const roster = () => {
    let list: any[] = [];
    for (const e of events) {
      if (e.event === 'participants') list = e.data.participants;
      else if (e.event === 'joined') list = [...list.filter((p) => p.id !== e.data.participant.id), e.data.participant];
      else if (e.event === 'left') list = list.filter((p) => p.id !== e.data.id);
    }
    return list;
  };
  return {
    events,
    roster,
    /** Waits until the page's list of who is here satisfies pred. */
    people: (pred: (list: any[]) => boolean, timeoutMs = 5000) =>
      until('the list of who is here', async () => (pred(roster()) ? roster() : null), { timeoutMs, intervalMs: 20 }),
    get ended() { return ended; },
    close: () => ctl.abort(),
    done,
    next: (event: string, pred: (d: any) => boolean = () => true, timeoutMs = 5000) =>
      until(`a ${event} event`, async () => events.find((e) => e.event === event && pred(e.data))?.data, { timeoutMs, intervalMs: 20 }),
  };
}

async function room(secret: string, body: Record<string, unknown> = {}) {
  const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { langs: ['en', 'pt'], visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.json();
}

async function join(base: string, roomId: string, body: Record<string, unknown>) {
  return fetch(`${base}/r/${roomId}/participants`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function joined(base: string, roomId: string, body: Record<string, unknown>): Promise<any> {
  const res = await join(base, roomId, body);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function post(base: string, path: string, body: unknown) {
  return fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

async function outbox(objectId: string) {
  return (await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [objectId])).rows;
}

describe('room participants', () => {
  it('a person joins, reads an agent in their own language with its AI badge, speaks, and the agent hears them', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const ana = await joined(t.url, r.id, { name: 'Ana', speak: 'pt', hear: 'de' });
    expect(ana).toMatchObject({ id: expect.stringMatching(/^par_/), name: 'Ana', speak_lang: 'pt', hear_lang: 'de', secret: expect.any(String) });
    // room.participant_joined, ids only.
    const [evt] = await outbox(ana.id);
    expect(evt.type).toBe('room.participant_joined');
    expect(evt.data.object).toEqual({ id: ana.id, object: 'participant', room_id: r.id, livemode: false });

    const page = openStream(t.url, r.id, ana);
    const first = await page.next('participants');
    expect(first.participants).toEqual([{ id: ana.id, name: 'Ana', kind: 'person', ai: false, phone: false, speak_lang: 'pt', hear_lang: 'de' }]);

    // An agent joins (announced) and speaks in English.
    const ses = await (await t.request('POST', `/v1/rooms/${r.id}/agent-sessions`, { key: k.secret, headers: idem(), body: { name: 'Helper', speak_lang: 'en', hear_lang: 'en' } })).json();
    // Who comes is sent as it happens (not the whole list again).
    const joinedAgent = await page.next('joined', (d) => d.participant.id === ses.id);
    expect(joinedAgent.participant).toMatchObject({ name: 'Helper', kind: 'agent', ai: true });
    expect(page.events.filter((e) => e.event === 'participants')).toHaveLength(1);
    const said = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'Good morning' } });
    expect(said.status).toBe(202);
    const phrase = await page.next('phrase', (d) => d.kind === 'agent');
    expect(phrase).toMatchObject({ speaker: 'Helper', participant_id: ses.id, ai: true, own: false, src_lang: 'en', original: 'Good morning', lang: 'de' });
    expect(phrase.text).not.toBe('Good morning');
    expect(phrase.duration_ms).toBeGreaterThan(0);

    // Ana types; the agent hears her, in English, as a segment.final with her as the speaker.
    const typed = await post(t.url, `/r/${r.id}/say`, { participant: ana.id, secret: ana.secret, text: 'Bom dia' });
    expect(typed.status).toBe(202);
    const heard = await until('the agent hears Ana', async () => {
      const ev = await (await t.request('GET', `/v1/sessions/${ses.id}/events?cursor=0`, { key: k.secret })).json();
      return ev.events.find((e: any) => e.speaker === 'Ana');
    });
    expect(heard).toMatchObject({ type: 'segment.final', src_lang: 'pt', untrusted_content: { text: 'Bom dia' }, meta: { participant_id: ana.id } });
    // Her own phrase comes back to her page marked as hers.
    expect(await page.next('phrase', (d) => d.own)).toMatchObject({ speaker: 'Ana', original: 'Bom dia', kind: 'person' });
    // The transcript keeps it.
    await t.request('POST', `/v1/sessions/${ses.id}/leave`, { key: k.secret });
    const tr = await until('the transcript', async () => (await (await t.request('GET', `/v1/transcripts?room_id=${r.id}`, { key: k.secret })).json()).data[0]);
    const full = await (await t.request('GET', `/v1/transcripts/${tr.id}`, { key: k.secret })).json();
    expect(JSON.stringify(full)).toContain('Bom dia');
    page.close();
  });

  it('a phrase said through one server process reaches a page connected to another', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const bo = await joined(other.url, r.id, { name: 'Bo', speak: 'en', hear: 'pt' });
    const page = openStream(other.url, r.id, bo);
    await page.next('participants');
    const ses = await (await t.request('POST', `/v1/rooms/${r.id}/agent-sessions`, { key: k.secret, headers: idem(), body: { speak_lang: 'en', hear_lang: 'en', announce: false } })).json();
    await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: 'Hello from the first process' } });
    expect(await page.next('phrase')).toMatchObject({ original: 'Hello from the first process', lang: 'pt', ai: true });
    page.close();
  });

  it('leaving, going absent and the room ending are seen by the others; each emits room.participant_left', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const ana = await joined(t.url, r.id, { name: 'Ana', speak: 'pt', hear: 'en' });
    const bo = await joined(t.url, r.id, { name: 'Bo', speak: 'en', hear: 'pt' });
    const cy = await joined(t.url, r.id, { name: 'Cy', speak: 'es', hear: 'en' });
    const anaPage = openStream(t.url, r.id, ana);
    const boPage = openStream(t.url, r.id, bo);
    await anaPage.people((l) => l.length === 3);
    // Bo leaves: Ana sees it; Bo's own stream is told it is gone.
    expect((await post(t.url, `/r/${r.id}/leave`, { participant: bo.id, secret: bo.secret })).status).toBe(200);
    await anaPage.people((l) => l.length === 2 && !l.some((p) => p.id === bo.id));
    expect(await anaPage.next('left')).toEqual({ id: bo.id });
    expect(await boPage.next('gone')).toEqual({ reason: 'left' });
    // Leaving again changes nothing; saying something after leaving is refused.
    expect((await post(t.url, `/r/${r.id}/leave`, { participant: bo.id, secret: bo.secret })).status).toBe(200);
    expect((await post(t.url, `/r/${r.id}/say`, { participant: bo.id, secret: bo.secret, text: 'hi' })).status).toBe(409);
    // Cy's page went quiet (no stream, no heartbeat): the sweep lets Cy go.
    await t.pool.query(`UPDATE room_participants SET last_seen_at = now() - interval '1 minute' WHERE id = $1`, [cy.id]);
    await sweepAbsent(t.services);
    await anaPage.people((l) => l.length === 1 && l[0].id === ana.id);
    // Ana's page keeps her present: the sweep leaves her alone.
    expect((await t.pool.query(`SELECT left_reason FROM room_participants WHERE id = $1`, [ana.id])).rows[0].left_reason).toBeNull();
    // The room is deleted: Ana's page is told, and its stream ends.
    await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret });
    expect(await anaPage.next('ended')).toEqual({ status: 'ended' });
    await until('the stream ends', async () => anaPage.ended);
    const reasons = (await t.pool.query(`SELECT id, left_reason FROM room_participants WHERE room_id = $1 ORDER BY joined_at`, [r.id])).rows;
    expect(Object.fromEntries(reasons.map((x) => [x.id, x.left_reason]))).toEqual({ [ana.id]: 'room_ended', [bo.id]: 'left', [cy.id]: 'absent' });
    for (const p of [ana, bo, cy]) expect((await outbox(p.id)).map((e) => e.type)).toEqual(['room.participant_joined', 'room.participant_left']);
    // Joining an ended room is refused.
    expect((await join(t.url, r.id, { name: 'Dee', speak: 'en', hear: 'en' })).status).toBe(409);
  });

  it('a private room admits only its join link; bad input names the field; a wrong secret is refused', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { visibility: 'private' });
    const refused = await join(t.url, r.id, { name: 'Eve', speak: 'en', hear: 'en' });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'unauthorized', error: expect.stringMatching(/^t: this room is private/) });
    const link = await (await t.request('POST', `/v1/rooms/${r.id}/join-links`, { key: k.secret, body: { name: 'Ana' } })).json();
    const token = new URL(link.url).searchParams.get('t')!;
    const ok = await joined(t.url, r.id, { name: 'Ana', speak: 'pt', hear: 'en', t: token });
    expect((await join(t.url, r.id, { name: 'Ana', speak: 'pt', hear: 'en', t: `${token}x` })).status).toBe(401);
    for (const [body, field] of [
      [{ name: '', speak: 'en', hear: 'en' }, 'name'],
      [{ name: '   ', speak: 'en', hear: 'en' }, 'name'],
      [{ name: 'x'.repeat(81), speak: 'en', hear: 'en' }, 'name'],
      [{ name: 'A', speak: 'english', hear: 'en' }, 'speak'],
      [{ name: 'A', speak: 'en' }, 'hear'],
    ] as const) {
      const res = await join(t.url, r.id, { ...body, t: token });
      expect([res.status, ((await res.json()) as { field: string }).field], JSON.stringify(body)).toEqual([400, field]);
    }
    const wrong = openStream(t.url, r.id, { id: ok.id, secret: 'nope' });
    await until('the refusal', async () => wrong.ended);
    expect(wrong.events[0]).toMatchObject({ event: 'http', data: { status: 401 } });
    expect((await post(t.url, `/r/${r.id}/say`, { participant: ok.id, secret: ok.secret, text: 'x'.repeat(1001) })).status).toBe(400);
    expect((await post(t.url, `/r/${r.id}/say`, { participant: ok.id, secret: ok.secret, text: '   ' })).status).toBe(400);
    expect((await join(t.url, 'room_missing', { name: 'A', speak: 'en', hear: 'en' })).status).toBe(404);
  });

  it('a page that reconnects with Last-Event-ID is sent what it missed, once', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret);
    const ana = await joined(t.url, r.id, { name: 'Ana', speak: 'pt', hear: 'en' });
    const bo = await joined(t.url, r.id, { name: 'Bo', speak: 'en', hear: 'pt' });
    const say = (text: string) => post(t.url, `/r/${r.id}/say`, { participant: bo.id, secret: bo.secret, text });
    const first = openStream(t.url, r.id, ana);
    await say('one');
    const one = await first.next('phrase');
    first.close();
    await say('two');
    await say('three');
    const again = openStream(t.url, r.id, ana, { 'last-event-id': String(one.seq) });
    await again.next('phrase', (d) => d.original === 'three');
    expect(again.events.filter((e) => e.event === 'phrase').map((e) => e.data.original)).toEqual(['two', 'three']);
    again.close();
  });
});
