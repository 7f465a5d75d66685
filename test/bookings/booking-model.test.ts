import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { DateTime } from 'luxon';
import { transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { bookingMachine, type BookingEvent } from '../../machines/booking.ts';
import { SAMPLE_EVENTS } from '../../machines/sample-events.ts';
import { bookingEmits } from '../helpers/lifecycle-events.ts';
import { expectPersistedActor } from '../helpers/persisted-actor.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';
import { until } from '../helpers/wait.ts';
import { createEventType } from '../../src/cli/admin.ts';

// Model-based tests of the booking lifecycle (machines/booking.ts), as
// test/rooms/room-model.test.ts does for rooms: paths are generated from the booking
// machine (xstate/graph) and every machine event is carried out as the real
// action against the real system (HTTP, PostgreSQL, pg-boss workers):
// - BOOK: POST /v1/bookings on the organization's own link;
// - RESCHEDULE: the guest moves it on its manage page (POST
//   /bookings/manage/{token}/reschedule, src/bookings/pages.ts);
// - CANCEL: the guest cancels it there (POST /bookings/manage/{token}/cancel)
//   or the host cancels its meeting (DELETE /v1/meetings/{id}); each
//   generator uses one of them;
// - COMPLETE: its meeting happens: the start timer and then the end timer
//   (pg-boss jobs) are made due now and the real worker fires them.
// In every state reached, it is checked through the API (the meeting, the
// free slots), the persisted actor (actors, actor_history, outbox), the
// bookings row and the mails to guest and host.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type BookingSnapshot = SnapshotFrom<typeof bookingMachine>;
type StateName = 'created' | 'confirmed' | 'rescheduled' | 'canceled' | 'completed';
type CancelVia = 'guest' | 'host';

const EVENTS: BookingEvent[] = [...SAMPLE_EVENTS.booking];


/** The mail each machine event sends to guest and host (rooms/meetings/invitations.ts), by subject prefix and calendar METHOD. */
function mailOf(event: BookingEvent): { subject: string; method: string } | null {
  switch (event.type) {
    case 'BOOK': return { subject: 'Invitation: ', method: 'REQUEST' };
    case 'RESCHEDULE': return { subject: 'Updated invitation: ', method: 'REQUEST' };
    case 'CANCEL': return { subject: 'Canceled: ', method: 'CANCEL' };
    case 'COMPLETE': return null;
  }
}

/** The status of the booking's meeting (GET /v1/rooms/{id}) in each state. */
const ROOM_STATUS: Record<Exclude<StateName, 'created'>, string> = {
  confirmed: 'scheduled', rescheduled: 'scheduled', canceled: 'canceled', completed: 'ended',
};

const model = createTestModel(bookingMachine, { events: EVENTS });

let t: TestApp;
// Workers on: the meeting's timers are fired by the real pg-boss worker.
// The guest's changes here are hundreds of page requests from one address: the public pages' mail
// limits (test/api/public-limits.test.ts) are lifted, as they are not what this file is about.
const manyChanges = { ...PUBLIC_LIMITS, mailPerClientHour: 100_000, mailPerRecipientHour: 100_000, mailPerRecipientDay: 100_000, changesPerBookingDay: 100_000 };
beforeAll(async () => { t = await startTestApp({ workers: true, config: { publicLimits: manyChanges } }); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': randomUUID() });
const poll = <T>(what: string, fn: () => Promise<T | undefined>) => until(what, fn, { intervalMs: 50, retryErrors: false });
const valueOf = (s: { value: unknown }) => s.value as StateName;

/** The host's zone: no DST, so an hour later is always the same grid. */
const TZ = 'Asia/Tokyo';
const iso = (d: DateTime) => d.toUTC().toISO({ suppressMilliseconds: true })!;

type Transition = { event: BookingEvent; from: StateName; to: StateName };

/** One system under test per path: an organization of its own, its booking link, and the booking. */
type Sut = {
  secret: string;
  orgId: string;
  eventTypeId: string;
  hostEmail: string;
  guestEmail: string;
  cancelVia: CancelVia;
  bookingId?: string;
  roomId?: string;
  token?: string;
  /** The booking's start now, and the starts it was moved away from. */
  start: string;
  previous: string[];
  current: StateName;
  transitions: Transition[];
};

async function newSut(cancelVia: CancelVia): Promise<Sut> {
  const { secret, orgId } = await t.key({ rpm: 100_000 });
  const tag = randomBytes(4).toString('hex');
  const hostEmail = `host-${tag}@host.example`;
  await t.pool.query(`UPDATE organizations SET owner_email = $2 WHERE id = $1`, [orgId, hostEmail]);
  const et = await createEventType(t.pool, t.config.publicBaseUrl, {
    org: orgId, page: `model-${tag}`, slug: 'call', title: 'Model call', duration: 30, tz: TZ, hours: 'mon-sun 00:00-24:00', lang: 'ja',
  });
  // Two days ahead, 10:00 in the host's zone: well past the notice, reminders still ahead.
  const start = iso(DateTime.now().setZone(TZ).startOf('day').plus({ days: 2, hours: 10 }));
  return {
    secret, orgId, eventTypeId: et.id, hostEmail, guestEmail: `guest-${tag}@guest.example`, cancelVia,
    start, previous: [], current: 'created', transitions: [],
  };
}

async function persisted(sut: Sut) {
  const id = sut.bookingId!;
  const actor = (await t.pool.query(`SELECT *, xmin::text AS xmin FROM actors WHERE id = $1`, [id])).rows[0];
  const history = (await t.pool.query(
    `SELECT version, event, from_state, to_state, emitted, at, xmin::text AS xmin FROM actor_history WHERE actor_id = $1 ORDER BY version`,
    [id],
  )).rows;
  const outbox = (await t.pool.query(`SELECT org_id, livemode, type, object_id, data, created_at FROM outbox WHERE object_id = $1 ORDER BY id`, [id])).rows;
  const booking = (await t.pool.query(`SELECT status, start_at, end_at, ended_at, room_id, xmin::text AS xmin FROM bookings WHERE id = $1`, [id])).rows[0];
  const room = (await t.pool.query(`SELECT status, starts_at, sequence FROM rooms WHERE id = $1`, [sut.roomId])).rows[0];
  const roomActor = (await t.pool.query(`SELECT state, snapshot FROM actors WHERE id = $1`, [sut.roomId])).rows[0];
  return { actor, history, outbox, booking, room, roomActor };
}

async function freeSlots(sut: Sut): Promise<string[]> {
  const dates = [sut.start, ...sut.previous].map((s) => DateTime.fromISO(s, { zone: TZ }).toISODate()!).sort();
  const res = await t.request('GET', `/v1/event-types/${sut.eventTypeId}/slots?from=${dates[0]}&to=${dates.at(-1)}`, { key: sut.secret });
  expect(res.status).toBe(200);
  return (await res.json()).slots;
}

async function mails(to: string) {
  return (await t.pool.query(`SELECT subject, ics_method, status, livemode FROM mail_outbox WHERE lower(to_addr) = $1 ORDER BY id`, [to])).rows;
}

/** The guest's manage page (its manage_url): cancel, or move to `start`. Resolves with the status and the JSON answer. */
async function manage(sut: Sut, action: 'cancel' | 'reschedule', start?: string): Promise<{ status: number; body: any }> {
  const res = await t.request('POST', `/bookings/manage/${sut.token}/${action}`, action === 'reschedule' ? { body: { start } } : {});
  return { status: res.status, body: await res.json() };
}

/** A manage-page action that must be refused with this status and code. */
async function refused(what: Promise<{ status: number; body: any }>, status: number, code: string): Promise<void> {
  const r = await what;
  expect(r.status).toBe(status);
  expect(r.body.code).toBe(code);
}

/** The checks every state shares: API view, persisted actor, history, outbox, row, slots, mails. */
async function verifyState(sut: Sut, state: BookingSnapshot): Promise<void> {
  const name = valueOf(state);
  expect(sut.current).toBe(name);
  if (name === 'created') {
    // Before the first command nothing exists for this organization.
    expect(sut.bookingId).toBeUndefined();
    const { rows } = await t.pool.query(
      `SELECT (SELECT count(*)::int FROM actors WHERE org_id = $1) AS actors, (SELECT count(*)::int FROM bookings WHERE org_id = $1) AS bookings`,
      [sut.orgId],
    );
    expect(rows[0]).toEqual({ actors: 0, bookings: 0 });
    expect(await freeSlots(sut)).toContain(sut.start);
    return;
  }
  const id = sut.bookingId!;
  const p = await persisted(sut);

  // The persisted actor: its state, one version per transition, a snapshot that restores; its history.
  expectPersistedActor({ machine: bookingMachine, kind: 'booking', name, orgId: sut.orgId, state, events: EVENTS, transitions: sut.transitions, emits: bookingEmits, persisted: p });

  // The outbox holds exactly the emitted events, in order, each with the booking as it was after its transition.
  const expected = sut.transitions.flatMap((tr) => bookingEmits(tr.event).map((type) => ({ type, status: tr.to })));
  expect(p.outbox.map((o) => ({ type: o.type, status: o.data.object.status }))).toEqual(expected);
  for (const o of p.outbox) {
    expect(o).toMatchObject({ org_id: sut.orgId, livemode: false, object_id: id });
    expect(o.data.object).toMatchObject({ id, object: 'booking', room_id: sut.roomId, event_type_id: sut.eventTypeId });
  }
  // A transition and its events are one transaction: its outbox rows carry its
  // history row's time (now() is the transaction's), and the latest history
  // row shares its transaction id with the actor and the bookings row.
  let k = 0;
  for (const h of p.history) for (const _ of h.emitted) expect(p.outbox[k++].created_at.getTime()).toBe(h.at.getTime());
  const last = p.history.at(-1)!;
  expect(p.actor.xmin).toBe(last.xmin);
  expect(p.booking.xmin).toBe(last.xmin);

  // The row: its status, its slot.
  expect(p.booking.status).toBe(name);
  expect(p.booking.room_id).toBe(sut.roomId);
  expect(p.booking.start_at.getTime()).toBe(Date.parse(sut.start));
  expect(p.booking.end_at.getTime() - p.booking.start_at.getTime()).toBe(30 * 60_000);
  expect(p.booking.ended_at === null).toBe(name === 'confirmed' || name === 'rescheduled');

  // Its meeting, through the API.
  const res = await t.request('GET', `/v1/rooms/${sut.roomId}`, { key: sut.secret });
  expect(res.status).toBe(200);
  const room = await res.json();
  expect(room).toMatchObject({ id: sut.roomId, status: ROOM_STATUS[name], duration_min: 30 });
  expect(new Date(room.starts_at).getTime()).toBe(Date.parse(sut.start));

  // Mails to guest and host: one per change they are told of, each with its calendar METHOD.
  const told = sut.transitions.map((tr) => mailOf(tr.event)).filter((m) => m !== null);
  for (const to of [sut.guestEmail, sut.hostEmail]) {
    const got = await mails(to);
    expect(got).toHaveLength(told.length);
    got.forEach((m, i) => {
      expect(m.subject.startsWith(told[i]!.subject), `${m.subject} is a '${told[i]!.subject}'`).toBe(true);
      expect(m).toMatchObject({ ics_method: told[i]!.method, status: 'kept', livemode: false });
    });
  }

  const free = await freeSlots(sut);
  if (name === 'confirmed' || name === 'rescheduled') {
    // It holds its slot; a slot it was moved from is free again.
    expect(free).not.toContain(sut.start);
    for (const before of sut.previous) expect(free).toContain(before);
    // The meeting's timers follow it: the start timer of its current calendar sequence is due at its start.
    const { rows: timers } = await t.pool.query(
      `SELECT start_after FROM pgboss.job WHERE name = 'meeting-timer' AND data->>'roomId' = $1 AND data->>'kind' = 'start' AND (data->>'sequence')::int = $2`,
      [sut.roomId, p.room.sequence],
    );
    expect(timers).toHaveLength(1);
    expect(Math.abs(timers[0].start_after.getTime() - Date.parse(sut.start))).toBeLessThan(2_000);
    expect(p.room.sequence).toBe(sut.previous.length);
    expect(p.roomActor.state).toBe('scheduled');
  }

  if (name === 'rescheduled') {
    // meeting.updated told the meeting's new time.
    const { rows } = await t.pool.query(`SELECT data FROM outbox WHERE object_id = $1 AND type = 'meeting.updated' ORDER BY id`, [sut.roomId]);
    expect(rows.map((r) => r.data.object.starts_at)).toEqual(
      sut.transitions.filter((tr) => tr.event.type === 'RESCHEDULE').map((_, i) => new Date([...sut.previous.slice(1), sut.start][i]!).toISOString()),
    );
  }

  if (name === 'canceled') {
    // Its slot is free again, its meeting canceled.
    expect(free).toContain(sut.start);
    for (const before of sut.previous) expect(free).toContain(before);
    expect(p.roomActor.state).toBe('canceled');
    // Final: nothing moves it, through the machine or the system.
    for (const e of EVENTS) expect(transition(bookingMachine, state, e)[0].value).toBe('canceled');
    expect(await manage(sut, 'cancel')).toEqual({ status: 200, body: { id, status: 'canceled' } });
    await refused(manage(sut, 'reschedule', iso(DateTime.fromISO(sut.start).plus({ hours: 3 }))), 409, 'conflict');
    const again = await t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret });
    expect(again.status).toBe(200);
    expect((await again.json()).status).toBe('canceled');
    const after = await persisted(sut);
    expect(after.actor.version).toBe(p.actor.version);
    expect(after.outbox).toHaveLength(p.outbox.length);
    expect(await mails(sut.guestEmail)).toHaveLength(told.length);
    // And another guest can book that slot now.
    const rebook = await t.request('POST', '/v1/bookings', {
      key: sut.secret, headers: idem(), body: { event_type_id: sut.eventTypeId, start: sut.start, guest: { name: 'Next Guest', email: 'next@guest.example', speak: 'en' } },
    });
    expect(rebook.status).toBe(201);
  }

  if (name === 'completed') {
    // Its meeting took place and ended (its end timer: expired).
    expect(p.roomActor).toMatchObject({ state: 'ended', snapshot: { context: { endReason: 'expired' } } });
    for (const e of EVENTS) expect(transition(bookingMachine, state, e)[0].value).toBe('completed');
    // The guest can neither cancel nor move it any more, the host cannot cancel its meeting.
    await refused(manage(sut, 'cancel'), 409, 'conflict');
    await refused(manage(sut, 'reschedule', iso(DateTime.fromISO(sut.start).plus({ hours: 3 }))), 409, 'conflict');
    expect((await t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret })).status).toBe(409);
    const after = await persisted(sut);
    expect(after.actor.version).toBe(p.actor.version);
    expect(after.outbox).toHaveLength(p.outbox.length);
    expect(after.booking.status).toBe('completed');
  }
}

/** Makes one of the meeting's timers (of its current calendar sequence) due now, for the real worker to fire. */
async function fireTimer(sut: Sut, kind: 'start' | 'end'): Promise<void> {
  const moved = await t.pool.query(
    `UPDATE pgboss.job SET start_after = now()
      WHERE name = 'meeting-timer' AND data->>'roomId' = $1 AND data->>'kind' = $2 AND state = 'created'
        AND (data->>'sequence')::int = (SELECT sequence FROM rooms WHERE id = $1)`,
    [sut.roomId, kind],
  );
  expect(moved.rowCount).toBe(1);
}

/** The real action for each machine event. */
async function carryOut(sut: Sut, event: BookingEvent): Promise<void> {
  switch (event.type) {
    case 'BOOK': {
      const headers = idem();
      const body = { event_type_id: sut.eventTypeId, start: sut.start, guest: { name: 'Model Guest', email: sut.guestEmail, speak: 'en', hear: 'es' } };
      const res = await t.request('POST', '/v1/bookings', { key: sut.secret, headers, body });
      expect(res.status).toBe(201);
      const b = await res.json();
      expect(b).toMatchObject({ start: sut.start, livemode: false });
      // A replay with the same Idempotency-Key is the same BOOK, not a second one.
      const replay = await t.request('POST', '/v1/bookings', { key: sut.secret, headers, body });
      expect(replay.status).toBe(201);
      expect(await replay.json()).toEqual(b);
      sut.bookingId = b.id;
      // room_url is the guest's join link: the room's page and its token.
      sut.roomId = new URL(b.room_url).pathname.slice('/r/'.length);
      sut.token = b.manage_url.slice(b.manage_url.lastIndexOf('/') + 1);
      return;
    }
    case 'RESCHEDULE': {
      const to = iso(DateTime.fromISO(sut.start).plus({ hours: 1 }));
      const r = await manage(sut, 'reschedule', to);
      // Thrown (not expect()ed) so a refusal reads as the page's answer.
      if (r.status !== 200) throw new Error(`the manage page answered ${r.status} ${r.body.code}: ${r.body.message}`);
      expect(r.body).toEqual({ id: sut.bookingId, status: 'rescheduled', start: to });
      sut.previous.push(sut.start);
      sut.start = to;
      return;
    }
    case 'CANCEL': {
      if (sut.cancelVia === 'guest') {
        expect(await manage(sut, 'cancel')).toEqual({ status: 200, body: { id: sut.bookingId, status: 'canceled' } });
      } else {
        const res = await t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret });
        expect(res.status).toBe(200);
        expect((await res.json()).status).toBe('canceled');
      }
      return;
    }
    case 'COMPLETE': {
      // The meeting starts (its start timer), then ends (its end timer): the booking is completed.
      await fireTimer(sut, 'start');
      await poll('the meeting to start', async () => {
        const r = await (await t.request('GET', `/v1/rooms/${sut.roomId}`, { key: sut.secret })).json();
        return r.status === 'live' ? r : undefined;
      });
      expect((await t.pool.query(`SELECT status FROM bookings WHERE id = $1`, [sut.bookingId])).rows[0].status).toBe(sut.current);
      await fireTimer(sut, 'end');
      await poll('the booking to complete', async () => {
        const { rows } = await t.pool.query(`SELECT status FROM bookings WHERE id = $1`, [sut.bookingId]);
        return rows[0].status === 'completed' ? true : undefined;
      });
      return;
    }
  }
}

function params(sut: Sut) {
  const exec = async (step: { event: BookingEvent; state: BookingSnapshot }) => {
    await carryOut(sut, step.event);
    sut.transitions.push({ event: step.event, from: sut.current, to: valueOf(step.state) });
    sut.current = valueOf(step.state);
  };
  const verify = (s: BookingSnapshot) => verifyState(sut, s);
  return {
    events: { BOOK: exec, RESCHEDULE: exec, CANCEL: exec, COMPLETE: exec },
    states: { created: verify, confirmed: verify, rescheduled: verify, canceled: verify, completed: verify },
  } as never;
}

// The guest cancels on the shortest paths, the host on the simple ones.
const generators: Record<string, { paths: ReturnType<typeof model.getShortestPaths>; cancelVia: CancelVia }> = {
  'shortest paths': { paths: model.getShortestPaths(), cancelVia: 'guest' },
  'simple paths': { paths: model.getSimplePaths(), cancelVia: 'host' },
};

/** Whether a path moves the booking a second time (the self-transition rescheduled -> rescheduled). */
function movesTwice(path: { steps: Array<{ event: BookingEvent | { type: string }; state: BookingSnapshot }> }): boolean {
  return path.steps.some((s, i) => i > 0 && s.event.type === 'RESCHEDULE' && valueOf(path.steps[i - 1]!.state) === 'rescheduled');
}

for (const [kind, { paths, cancelVia }] of Object.entries(generators)) {
  describe(`booking machine, ${kind}, against the system`, () => {
    for (const path of paths) {
      it(path.description, async () => {
        const sut = await newSut(cancelVia);
        await path.test(params(sut));
      });
    }
  });
}

describe('booking machine model, as run here', () => {
  it('drives every event and reaches every state through the system, canceling both ways', () => {
    for (const name of ['shortest paths', 'simple paths']) {
      const { paths } = generators[name]!;
      const events = new Set(paths.flatMap((p) => p.steps.slice(1).map((s) => JSON.stringify(s.event))));
      expect([...events].sort()).toEqual(EVENTS.map((e) => JSON.stringify(e)).sort());
      const states = new Set(paths.flatMap((p) => p.steps.map((s) => valueOf(s.state))));
      expect([...states].sort()).toEqual(['canceled', 'completed', 'confirmed', 'created', 'rescheduled']);
    }
    // The guest cancels (shortest paths) and the host cancels the meeting (simple paths).
    for (const { paths } of Object.values(generators)) expect(paths.some((p) => p.steps.some((s) => s.event.type === 'CANCEL'))).toBe(true);
    expect(new Set(Object.values(generators).map((g) => g.cancelVia))).toEqual(new Set(['guest', 'host']));
    // The self-transition (a second move) is among the generated paths.
    expect(Object.values(generators).every(({ paths }) => paths.some(movesTwice))).toBe(true);
  });

});

describe('booking changes the lifecycle must survive', () => {
  async function booked() {
    const sut = await newSut('guest');
    await carryOut(sut, { type: 'BOOK' });
    return sut;
  }

  async function state(sut: Sut) {
    const p = await persisted(sut);
    const { rows } = await t.pool.query(
      `SELECT (SELECT count(*)::int FROM outbox WHERE object_id = ANY($1)) AS events,
              (SELECT count(*)::int FROM mail_outbox WHERE lower(to_addr) = ANY($2)) AS mails,
              (SELECT count(*)::int FROM pgboss.job WHERE name = 'meeting-timer' AND data->>'roomId' = $3) AS timers`,
      [[sut.bookingId, sut.roomId], [sut.guestEmail, sut.hostEmail], sut.roomId],
    );
    return {
      booking: { status: p.booking.status, start: p.booking.start_at.toISOString(), version: p.actor.version },
      room: { starts_at: p.room.starts_at.toISOString(), sequence: p.room.sequence, status: p.room.status },
      ...rows[0],
    };
  }

  it('a second move moves it again: the booking holds only its newest slot, its meeting goes with it', async () => {
    const sut = await booked();
    const first = iso(DateTime.fromISO(sut.start).plus({ hours: 1 }));
    expect((await manage(sut, 'reschedule', first)).body.status).toBe('rescheduled');
    const before = await state(sut);
    expect(before.booking).toEqual({ status: 'rescheduled', start: new Date(first).toISOString(), version: 2 });
    const second = iso(DateTime.fromISO(sut.start).plus({ hours: 2 }));
    expect((await manage(sut, 'reschedule', second)).body.status).toBe('rescheduled');
    const after = await state(sut);
    expect(after.booking).toEqual({ status: 'rescheduled', start: new Date(second).toISOString(), version: 3 });
    expect(after.room).toMatchObject({ starts_at: new Date(second).toISOString(), sequence: before.room.sequence + 1, status: 'scheduled' });
    const free = await freeSlots({ ...sut, previous: [first, second] });
    expect(free).toContain(first);
    expect(free).not.toContain(second);
    expect(free).toContain(sut.start);
  });

  it('the guest canceling while the host cancels the meeting: both see it canceled, and it is canceled once', async () => {
    for (let round = 0; round < 40; round++) {
      const sut = await booked();
      const [byGuest, byHost] = await Promise.all([
        new Promise((r) => setTimeout(r, round % 8)).then(() => manage(sut, 'cancel')).then((r) => (r.status === 200 ? r.body.status : `${r.status} ${r.body.code}: ${r.body.message}`)),
        t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret }).then(async (r) => `${r.status} ${(await r.json()).status ?? ''}`),
      ]);
      expect([byGuest, byHost]).toEqual(['canceled', '200 canceled']);
      const { rows } = await t.pool.query(`SELECT type, count(*)::int AS n FROM outbox WHERE object_id = ANY($1) GROUP BY type ORDER BY type`, [[sut.bookingId, sut.roomId]]);
      expect(rows).toEqual([
        { type: 'booking.canceled', n: 1 }, { type: 'booking.created', n: 1 }, { type: 'meeting.canceled', n: 1 }, { type: 'meeting.created', n: 1 },
      ]);
      const { rows: actors } = await t.pool.query(`SELECT id, state, version FROM actors WHERE id = ANY($1) ORDER BY machine`, [[sut.bookingId, sut.roomId]]);
      expect(actors).toEqual([{ id: sut.bookingId, state: 'canceled', version: 2 }, { id: sut.roomId, state: 'canceled', version: 2 }]);
      expect((await mails(sut.guestEmail)).map((m) => m.ics_method)).toEqual(['REQUEST', 'CANCEL']);
    }
  });

  it('the guest moving it while the host cancels the meeting: either it moves and is then canceled, or the move is refused', async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 40; round++) {
      const sut = await booked();
      const to = iso(DateTime.fromISO(sut.start).plus({ hours: 1 }));
      const [byGuest, byHost] = await Promise.all([
        new Promise((r) => setTimeout(r, round % 8)).then(() => manage(sut, 'reschedule', to))
          .then((r) => (r.status === 200 ? r.body.status : `error ${r.body.code}`)),
        t.request('DELETE', `/v1/meetings/${sut.roomId}`, { key: sut.secret }).then(async (r) => `${r.status} ${(await r.json()).status ?? ''}`),
      ]);
      expect(byHost).toBe('200 canceled');
      expect(['rescheduled', 'error conflict']).toContain(byGuest);
      outcomes.add(byGuest);
      const { rows: history } = await t.pool.query(`SELECT event->>'type' AS type FROM actor_history WHERE actor_id = $1 ORDER BY version`, [sut.bookingId]);
      expect(history.map((h) => h.type)).toEqual(byGuest === 'rescheduled' ? ['BOOK', 'RESCHEDULE', 'CANCEL'] : ['BOOK', 'CANCEL']);
      const { rows: [b] } = await t.pool.query(`SELECT status, start_at FROM bookings WHERE id = $1`, [sut.bookingId]);
      expect(b.status).toBe('canceled');
      const { rows: [room] } = await t.pool.query(`SELECT status, starts_at FROM rooms WHERE id = $1`, [sut.roomId]);
      // The meeting and its booking agree on the time, whichever came first.
      expect(room.status).toBe('canceled');
      expect(room.starts_at.getTime()).toBe(b.start_at.getTime());
    }
    expect(outcomes.size).toBeGreaterThan(0);
  });
});
