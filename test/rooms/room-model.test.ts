import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { roomMachine, type RoomEvent } from '../../machines/room.ts';
import { SAMPLE_EVENTS } from '../../machines/sample-events.ts';
import { roomEmits } from '../helpers/lifecycle-events.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { ROOM_EXPIRY_QUEUE, endRoom, expireRooms } from '../../src/rooms/rooms.ts';
import { transition as storeTransition } from '../../src/actors/store.ts';

// Model-based tests of the room lifecycle: paths are generated from the room
// machine (xstate/graph) and every machine event is carried out as the real
// action against the real API (HTTP, PostgreSQL, pg-boss workers). In every
// state reached, the state is checked twice: through the API, and through the
// persisted actor (actors, actor_history, outbox).

type RoomSnapshot = SnapshotFrom<typeof roomMachine>;
type StateName = 'created' | 'scheduled' | 'live' | 'ended' | 'canceled';

// Every event the machine accepts, with each END reason as its own case.
const EVENTS: RoomEvent[] = [...SAMPLE_EVENTS.room];


/** The API's room status for each machine state. */
const API_STATUS: Record<StateName, string | null> = { created: null, scheduled: 'scheduled', live: 'live', ended: 'ended', canceled: 'canceled' };

const model = createTestModel(roomMachine, { events: EVENTS });

let t: TestApp;
// Workers on: the expiry timer is fired by the real pg-boss worker.
beforeAll(async () => { t = await startTestApp({ workers: true }); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** Waits for fn to give a value; errors are not retried (they fail the test at once). */
const poll = <T>(what: string, fn: () => Promise<T | undefined>) => until(what, fn, { intervalMs: 50, retryErrors: false });

function valueOf(s: { value: unknown }): StateName {
  return s.value as StateName;
}

type Transition = { event: RoomEvent; from: StateName; to: StateName };

/** One system under test per path: an organization of its own and its room. */
type Sut = { secret: string; orgId: string; roomId?: string; meeting: boolean; current: StateName; transitions: Transition[] };

async function newSut(): Promise<Sut> {
  // The waits poll the API: a rate limit of its own.
  const { secret, orgId } = await t.key({ rpm: 100_000 });
  return { secret, orgId, meeting: false, current: 'created', transitions: [] };
}

/** pg-boss jobs that name the room: an instant room has none (expiry is a periodic sweep); a meeting has its timers. */
async function roomJobs(roomId: string) {
  const { rows } = await t.pool.query(
    `SELECT name, data->>'kind' AS kind, state FROM pgboss.job WHERE data->>'roomId' = $1 OR singleton_key = $1 ORDER BY data->>'kind'`,
    [roomId],
  );
  return rows;
}

/**
 * A meeting's start as it happens in production: its start timer (a pg-boss
 * job due at starts_at, a day ahead here) is made due now, as if the day had
 * passed, and the real worker fires it.
 */
async function startNow(roomId: string) {
  const moved = await t.pool.query(
    `UPDATE pgboss.job SET start_after = now() WHERE name = 'meeting-timer' AND data->>'roomId' = $1 AND data->>'kind' = 'start' AND state = 'created'`,
    [roomId],
  );
  expect(moved.rowCount).toBe(1);
}

/**
 * Expiry as it happens in production: the room's expires_at is moved into the
 * past (24 hours cannot pass in a test), and one run of the expiry sweep is
 * queued for the real worker (startWorkers), as its cron does every minute.
 */
async function expireNow(roomId: string) {
  const moved = await t.pool.query(`UPDATE rooms SET expires_at = now() - interval '1 second' WHERE id = $1`, [roomId]);
  expect(moved.rowCount).toBe(1);
  await t.boss.send(ROOM_EXPIRY_QUEUE, {});
}

async function persisted(roomId: string) {
  const actor = (await t.pool.query(`SELECT *, xmin::text AS xmin FROM actors WHERE id = $1`, [roomId])).rows[0];
  const history = (await t.pool.query(
    `SELECT version, event, from_state, to_state, emitted, at, xmin::text AS xmin FROM actor_history WHERE actor_id = $1 ORDER BY version`,
    [roomId],
  )).rows;
  const outbox = (await t.pool.query(
    `SELECT org_id, livemode, type, object_id, data, created_at FROM outbox WHERE object_id = $1 ORDER BY id`,
    [roomId],
  )).rows;
  const room = (await t.pool.query(`SELECT status, ended_at, expires_at, xmin::text AS xmin FROM rooms WHERE id = $1`, [roomId])).rows[0];
  return { actor, history, outbox, room };
}

/** The checks every state shares: API view, persisted actor, history, outbox, one transaction per transition. */
async function verifyState(sut: Sut, state: RoomSnapshot): Promise<void> {
  const name = valueOf(state);
  expect(sut.current).toBe(name);
  if (name === 'created') {
    // Before the first command nothing exists for this organization.
    expect(sut.roomId).toBeUndefined();
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM actors WHERE org_id = $1`, [sut.orgId]);
    expect(rows[0].n).toBe(0);
    return;
  }
  const id = sut.roomId!;

  // Through the API.
  const res = await t.request('GET', `/v1/rooms/${id}`, { key: sut.secret });
  expect(res.status).toBe(200);
  const room = await res.json();
  expect(room.status).toBe(API_STATUS[name]);

  // Through the persisted actor.
  const p = await persisted(id);
  expect(p.actor).toMatchObject({ machine: 'room', state: name, org_id: sut.orgId, livemode: false });
  expect(p.actor.version).toBe(sut.transitions.length);
  expect(p.actor.snapshot.value).toEqual(state.value);
  expect(p.actor.snapshot.context).toEqual(state.context);
  expect(p.actor.snapshot.status).toBe(state.status);
  // The stored snapshot rehydrates to the same state (XState restore).
  const restored = createActor(roomMachine, { snapshot: p.actor.snapshot }).start();
  expect(restored.getSnapshot().value).toEqual(state.value);
  expect(restored.getSnapshot().context).toEqual(state.context);
  restored.stop();

  // One history row per transition, versions 1..n, with the emitted events.
  expect(p.history.map((h) => ({ version: h.version, event: h.event, from: h.from_state, to: h.to_state, emitted: h.emitted }))).toEqual(
    sut.transitions.map((tr, i) => ({ version: i + 1, event: tr.event, from: tr.from, to: tr.to, emitted: roomEmits(tr.event, sut.meeting) })),
  );

  // The outbox holds exactly the emitted events, in order, each with the room as it was after its transition.
  const expected = sut.transitions.flatMap((tr) => roomEmits(tr.event, sut.meeting).map((type) => ({ type, status: API_STATUS[tr.to] })));
  expect(p.outbox.map((o) => ({ type: o.type, status: o.data.object.status }))).toEqual(expected);
  for (const o of p.outbox) {
    expect(o).toMatchObject({ org_id: sut.orgId, livemode: false, object_id: id });
    expect(o.data.object.id).toBe(id);
  }
  expect(room).toMatchObject({ id, status: API_STATUS[name] });

  // Same transaction: a transition's outbox rows carry its history row's
  // transaction start time (now() is fixed for a whole transaction; the
  // outbox rows' xmin changes once the webhook dispatcher marks them), and the
  // latest history row shares its transaction id with the actor and room rows.
  let k = 0;
  for (const h of p.history) {
    for (const _ of h.emitted) expect(p.outbox[k++].created_at.getTime()).toBe(h.at.getTime());
  }
  const last = p.history.at(-1)!;
  expect(p.actor.xmin).toBe(last.xmin);
  expect(p.room.xmin).toBe(last.xmin);

  if (name === 'live' && !sut.meeting) {
    // Open for 24 hours and found by the expiry sweep's index; no timer job per room.
    expect(p.room.expires_at.getTime() - new Date(room.created_at).getTime()).toBe(24 * 3600_000);
    expect(await roomJobs(id)).toEqual([]);
  }
  if (name === 'live' || name === 'scheduled') {
    const open = await t.pool.query(`SELECT 1 FROM rooms WHERE id = $1 AND status IN ('scheduled', 'live') AND expires_at > now()`, [id]);
    expect(open.rowCount).toBe(1);
    expect(p.room.ended_at).toBeNull();
  }
  if (sut.meeting && (name === 'scheduled' || name === 'live')) {
    // A meeting ends (its expiry) 15 minutes after its planned end; its timers are jobs: start, end and both reminders (a day ahead).
    expect(p.room.expires_at.getTime() - new Date(room.starts_at).getTime()).toBe((room.duration_min + 15) * 60_000);
    const jobs = await roomJobs(id);
    expect(jobs.map((j) => j.kind)).toEqual(['end', 'remind_15m', 'remind_24h', 'start']);
    expect(jobs.find((j) => j.kind === 'start').state).toBe(name === 'live' ? 'completed' : 'created');
  }
  if (name === 'canceled') {
    expect(p.room.ended_at).not.toBeNull();
    expect(p.actor.snapshot.context.endReason).toBe('canceled');
    // Final: nothing moves it, through the machine or the API; it can be neither joined nor started.
    for (const e of EVENTS) expect(transition(roomMachine, state, e)[0].value).toBe('canceled');
    const again = await t.request('DELETE', `/v1/meetings/${id}`, { key: sut.secret });
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe('canceled');
    const del = await t.request('DELETE', `/v1/rooms/${id}`, { key: sut.secret });
    expect((await del.json()).status).toBe('canceled');
    const join = await t.request('POST', `/v1/rooms/${id}/join-links`, { key: sut.secret, body: {} });
    expect(join.status).toBe(409);
    const agent = await t.request('POST', `/v1/rooms/${id}/agent-sessions`, { key: sut.secret, headers: idem(), body: { speak_lang: 'en', hear_lang: 'es' } });
    expect(agent.status).toBe(409);
    const after = await persisted(id);
    expect(after.actor.version).toBe(p.actor.version);
    expect(after.outbox).toHaveLength(p.outbox.length);
  }

  if (name === 'ended') {
    expect(p.room.ended_at).not.toBeNull();
    const endedBy = sut.transitions.at(-1)!.event;
    expect(endedBy.type).toBe('END');
    expect(p.actor.snapshot.context.endReason).toBe(endedBy.type === 'END' ? endedBy.reason : 'canceled');
    // `ended` is final: the machine accepts nothing more, and neither does the
    // system — another DELETE or a late expiry changes nothing.
    for (const e of EVENTS) expect(transition(roomMachine, state, e)[0].value).toBe('ended');
    const again = await t.request('DELETE', `/v1/rooms/${id}`, { key: sut.secret });
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe('ended');
    expect((await endRoom(t.services, null, id, 'expired')).status).toBe('ended');
    const after = await persisted(id);
    expect(after.actor.version).toBe(p.actor.version);
    expect(after.actor.snapshot).toEqual(p.actor.snapshot);
    expect(after.history).toHaveLength(p.history.length);
    expect(after.outbox).toHaveLength(p.outbox.length);
  }
}

/** The real action for each machine event. */
async function carryOut(sut: Sut, event: RoomEvent): Promise<void> {
  switch (event.type) {
    case 'OPEN': {
      const headers = idem();
      const body = { title: 'Model room', langs: ['en', 'es'] };
      const res = await t.request('POST', '/v1/rooms', { key: sut.secret, headers, body });
      expect(res.status).toBe(201);
      const room = await res.json();
      expect(room.status).toBe('live');
      // A replay with the same Idempotency-Key is the same OPEN, not a second one.
      const replay = await t.request('POST', '/v1/rooms', { key: sut.secret, headers, body });
      expect(replay.status).toBe(201);
      expect((await replay.json()).id).toBe(room.id);
      sut.roomId = room.id;
      return;
    }
    case 'SCHEDULE': {
      const headers = idem();
      const body = { title: 'Model meeting', starts_at: new Date(Date.now() + 25 * 3600_000).toISOString(), duration_min: 45, langs: ['en', 'pt'] };
      const res = await t.request('POST', '/v1/meetings', { key: sut.secret, headers, body });
      expect(res.status).toBe(201);
      const room = await res.json();
      expect(room.status).toBe('scheduled');
      const replay = await t.request('POST', '/v1/meetings', { key: sut.secret, headers, body });
      expect((await replay.json()).id).toBe(room.id);
      sut.roomId = room.id;
      sut.meeting = true;
      return;
    }
    case 'START': {
      const id = sut.roomId!;
      await startNow(id);
      await poll('the meeting to start', async () => {
        const r = await (await t.request('GET', `/v1/rooms/${id}`, { key: sut.secret })).json();
        return r.status === 'live' ? r : undefined;
      });
      return;
    }
    case 'CANCEL': {
      const res = await t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret });
      expect(res.status).toBe(200);
      expect((await res.json()).status).toBe('canceled');
      return;
    }
    case 'END': {
      const id = sut.roomId!;
      if (event.reason === 'deleted') {
        const res = await t.request('DELETE', `/v1/rooms/${id}`, { key: sut.secret });
        expect(res.status).toBe(200);
        expect((await res.json()).status).toBe('ended');
        return;
      }
      await expireNow(id);
      await poll('the room to expire', async () => {
        const r = await (await t.request('GET', `/v1/rooms/${id}`, { key: sut.secret })).json();
        return r.status === 'ended' ? r : undefined;
      });
      return;
    }
  }
}

function params(sut: Sut) {
  const exec = async (step: { event: RoomEvent; state: RoomSnapshot }) => {
    await carryOut(sut, step.event);
    sut.transitions.push({ event: step.event, from: sut.current, to: valueOf(step.state) });
    sut.current = valueOf(step.state);
  };
  return {
    events: { OPEN: exec, SCHEDULE: exec, START: exec, END: exec, CANCEL: exec },
    states: {
      created: (s: RoomSnapshot) => verifyState(sut, s),
      live: (s: RoomSnapshot) => verifyState(sut, s),
      ended: (s: RoomSnapshot) => verifyState(sut, s),
      scheduled: (s: RoomSnapshot) => verifyState(sut, s),
      canceled: (s: RoomSnapshot) => verifyState(sut, s),
    },
  } as never;
}

const generators = {
  'shortest paths': model.getShortestPaths(),
  'simple paths': model.getSimplePaths(),
};

for (const [kind, paths] of Object.entries(generators)) {
  describe(`room machine, ${kind}, against the API`, () => {
    for (const path of paths) {
      it(path.description, async () => {
        const sut = await newSut();
        await path.test(params(sut));
      });
    }
  });
}

describe('room machine model, as run here', () => {
  it('drives every event and reaches every state through the API', () => {
    for (const paths of Object.values(generators)) {
      const events = new Set(paths.flatMap((p) => p.steps.slice(1).map((s) => JSON.stringify(s.event))));
      expect([...events].sort()).toEqual(EVENTS.map((e) => JSON.stringify(e)).sort());
      const states = new Set(paths.flatMap((p) => p.steps.map((s) => valueOf(s.state))));
      expect([...states].sort()).toEqual(['canceled', 'created', 'ended', 'live', 'scheduled']);
    }
  });

});

describe('room end under concurrency', () => {
  // No workers here: every room the sweeps end is counted by the sweeps below.
  let q: TestApp;
  beforeAll(async () => { q = await startTestApp(); });
  afterAll(async () => { await q?.close(); });

  async function liveRoom() {
    const { secret, orgId } = await q.key();
    const room = await (await q.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    expect(room.status).toBe('live');
    return { secret, orgId, id: room.id as string };
  }

  async function endCount(id: string) {
    const outbox = await q.pool.query(`SELECT count(*)::int AS n FROM outbox WHERE object_id = $1 AND type = 'room.ended'`, [id]);
    const history = await q.pool.query(
      `SELECT event, version FROM actor_history WHERE actor_id = $1 AND event->>'type' = 'END'`,
      [id],
    );
    const actor = (await q.pool.query(`SELECT state, version, snapshot FROM actors WHERE id = $1`, [id])).rows[0];
    return { outbox: outbox.rows[0].n as number, history: history.rows, actor };
  }

  it('two concurrent DELETEs end the room once: one room.ended, one END in the history', async () => {
    const { secret, id } = await liveRoom();
    const [a, b] = await Promise.all([
      q.request('DELETE', `/v1/rooms/${id}`, { key: secret }),
      q.request('DELETE', `/v1/rooms/${id}`, { key: secret }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await a.json()).status).toBe('ended');
    expect((await b.json()).status).toBe('ended');
    const c = await endCount(id);
    expect(c.outbox).toBe(1);
    expect(c.history).toEqual([{ event: { type: 'END', reason: 'deleted' }, version: 2 }]);
    expect(c.actor).toMatchObject({ state: 'ended', version: 2 });
  });

  it('many DELETEs racing the expiry handler still end the room exactly once', async () => {
    const { secret, id } = await liveRoom();
    const results = await Promise.all([
      ...Array.from({ length: 5 }, () => q.request('DELETE', `/v1/rooms/${id}`, { key: secret }).then((r) => r.status)),
      endRoom(q.services, null, id, 'expired').then((r) => r.status),
    ]);
    expect(results).toEqual([200, 200, 200, 200, 200, 'ended']);
    const c = await endCount(id);
    expect(c.outbox).toBe(1);
    expect(c.history).toHaveLength(1);
    expect(c.actor).toMatchObject({ state: 'ended', version: 2 });
    expect(c.actor.snapshot.context.endReason).toBe(c.history[0].event.reason);
  });

  it('the actor store itself serializes two writers on one actor (row lock, version check)', async () => {
    const { id } = await liveRoom();
    const c1 = await q.pool.connect();
    const c2 = await q.pool.connect();
    try {
      await c1.query('BEGIN');
      await c2.query('BEGIN');
      const first = await storeTransition(c1, 'room', id, { type: 'END', reason: 'deleted' }, { returning: 'id', objectFor: () => ({ id }) });
      expect(first).toMatchObject({ state: 'ended', version: 2, changed: true, emitted: ['room.ended'] });
      // The second writer blocks on the actor row until the first commits, then
      // sees the ended snapshot and changes nothing.
      const pid2 = (await c2.query(`SELECT pg_backend_pid() AS pid`)).rows[0].pid;
      let settled = false;
      const second = storeTransition(c2, 'room', id, { type: 'END', reason: 'expired' }, { returning: 'id', objectFor: () => ({ id }) }).finally(() => { settled = true; });
      await poll('the second writer to wait on the row lock', async () => {
        const { rows } = await q.pool.query(`SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1`, [pid2]);
        return rows[0]?.wait_event_type === 'Lock' ? true : undefined;
      });
      expect(settled).toBe(false);
      await c1.query('COMMIT');
      expect(await second).toMatchObject({ state: 'ended', version: 2, changed: false, emitted: [] });
      await c2.query('COMMIT');
    } finally {
      c1.release();
      c2.release();
    }
    const c = await endCount(id);
    expect(c.outbox).toBe(1);
    expect(c.history).toEqual([{ event: { type: 'END', reason: 'deleted' }, version: 2 }]);
  });

  it('a late expiry after DELETE changes nothing: the sweep passes over an ended room', async () => {
    const { secret, id } = await liveRoom();
    expect((await q.request('DELETE', `/v1/rooms/${id}`, { key: secret })).status).toBe(200);
    const before = await endCount(id);
    await q.pool.query(`UPDATE rooms SET expires_at = now() - interval '1 second' WHERE id = $1`, [id]);
    await expireRooms(q.services);
    const after = await endCount(id);
    expect(after).toEqual(before);
    expect(after.actor.snapshot.context.endReason).toBe('deleted');
  });

  it('the sweep ends each expired room exactly once, also when several run at once and a DELETE races them', async () => {
    const rooms = await Promise.all(Array.from({ length: 12 }, () => liveRoom()));
    const keep = await liveRoom();
    for (const r of rooms) await q.pool.query(`UPDATE rooms SET expires_at = now() - interval '1 second' WHERE id = $1`, [r.id]);
    const [first, ...racers] = await Promise.all([
      expireRooms(q.services),
      expireRooms(q.services),
      expireRooms(q.services),
      q.request('DELETE', `/v1/rooms/${rooms[0]!.id}`, { key: rooms[0]!.secret }).then((r) => r.status),
    ]);
    expect(racers.at(-1)).toBe(200);
    // Among the sweeps and the DELETE every expired room ended once: the
    // sweeps count exactly the rooms that ended as expired, none twice.
    const endedBySweeps = first + (racers[0] as number) + (racers[1] as number);
    const reasons = await Promise.all(rooms.map(async (r) => (await endCount(r.id)).actor.snapshot.context.endReason as string));
    expect(endedBySweeps).toBe(reasons.filter((r) => r === 'expired').length);
    expect(endedBySweeps).toBeGreaterThanOrEqual(11);
    for (const r of rooms) {
      const c = await endCount(r.id);
      expect(c.outbox).toBe(1);
      expect(c.history).toHaveLength(1);
    }
    const other = rooms.slice(1);
    for (const r of other) expect((await endCount(r.id)).actor.snapshot.context.endReason).toBe('expired');
    // A room not yet due stays open.
    const open = await q.request('GET', `/v1/rooms/${keep.id}`, { key: keep.secret });
    expect((await open.json()).status).toBe('live');
    expect(await expireRooms(q.services)).toBe(0);
  });
});
