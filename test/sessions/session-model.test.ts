import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { sessionMachine, type SessionEvent } from '../../machines/session.ts';
import { SAMPLE_EVENTS } from '../../machines/sample-events.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { SESSION_EMITS } from '../helpers/lifecycle-events.ts';

// Model-based tests of the agent session lifecycle: paths generated from the
// session machine (xstate/graph), each machine event carried out as the real
// action against the real API, each state checked through the API and through
// the persisted actor (snapshot, version, history, outbox).
//
// A path that ends with CALL_ENDED is a call's session: JOIN is POST
// /v1/calls to the built-in simulated callee, JOINED its answer (it rings 1 s
// first), CALL_ENDED the call hung up (POST /v1/calls/{id}/hangup), while it
// rings (the number ...0101 rings 5 s before its 480) or once answered. Any
// other path is an agent's session in a room: POST
// /v1/rooms/{id}/agent-sessions sends JOIN and JOINED in one transaction (the
// agent is seated and announced before the answer), so `joining` is seen only
// in the history; the JOIN step is the create request and the JOINED step
// checks it happened. Leaving or the room ending *from* `joining` cannot be
// driven through the API for that reason: those paths are listed as todo.

type Snap = SnapshotFrom<typeof sessionMachine>;
type StateName = 'created' | 'joining' | 'active' | 'ended';

const EVENTS: SessionEvent[] = [...SAMPLE_EVENTS.session];
const EMITS = SESSION_EMITS;
const model = createTestModel(sessionMachine, { events: EVENTS });

const valueOf = (s: Snap) => s.value as StateName;
/** CALL_ENDED belongs to a call's session: the path is carried out with a call. */
const onACall = (path: { steps: Array<{ event: { type: string } }> }) => path.steps.some((s) => s.event.type === 'CALL_ENDED');
const endsWhileJoining = (path: { steps: Array<{ event: { type: string }; state: Snap }> }) =>
  path.steps.some((s, i) => i > 0 && ['LEAVE', 'ROOM_ENDED'].includes(s.event.type) && valueOf(path.steps[i - 1]!.state) === 'joining');

// The service's clock runs from a Wednesday, 17:00 UTC: inside the calling hours of the US.
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
let t: TestApp;
beforeAll(async () => { t = await startTestApp({ workers: true, clock: () => new Date(Date.now() + offset) }); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** An agent's session in a room, or a call's session (`to`: the number the call dials). */
type Sut = { secret: string; orgId: string; roomId: string | null; to: string | null; callId?: string; sessionId?: string; steps: SessionEvent[] };

async function newSut(path: { steps: Array<{ event: { type: string } }> }): Promise<Sut> {
  const k = await t.key({ rpm: 100_000 });
  if (onACall(path)) {
    // Hung up while it rings (JOIN then CALL_ENDED): a number that rings long; otherwise one that answers.
    const answered = path.steps.some((s) => s.event.type === 'JOINED');
    return { secret: k.secret, orgId: k.orgId, roomId: null, to: answered ? '+14155550142' : '+14155550101', steps: [] };
  }
  const res = await t.request('POST', '/v1/rooms', { key: k.secret, body: { langs: ['en', 'es'] }, headers: idem() });
  return { secret: k.secret, orgId: k.orgId, roomId: (await res.json()).id, to: null, steps: [] };
}

const sessionStatus = async (sut: Sut) => (await (await t.request('GET', `/v1/sessions/${sut.sessionId}`, { key: sut.secret })).json()).status as string;

async function verify(sut: Sut, state: Snap): Promise<void> {
  const name = valueOf(state);
  if (name === 'created') {
    expect(sut.sessionId).toBeUndefined();
    return;
  }
  const id = sut.sessionId!;
  const api = await (await t.request('GET', `/v1/sessions/${id}`, { key: sut.secret })).json();
  // A room's session leaves joining in the create transaction; the API shows where the actor is now.
  expect(api.status).toBe(name === 'joining' && sut.to === null ? 'active' : name);
  expect(api.room_id).toBe(sut.roomId);

  const actor = (await t.pool.query(`SELECT machine, state, snapshot, version, org_id, livemode FROM actors WHERE id = $1`, [id])).rows[0];
  const history = (await t.pool.query(`SELECT version, event, from_state, to_state, emitted FROM actor_history WHERE actor_id = $1 ORDER BY version`, [id])).rows;
  const outbox = (await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [id])).rows;
  expect(actor).toMatchObject({ machine: 'session', org_id: sut.orgId, livemode: false });
  // The history holds every step taken so far; a room's session has JOINED in it from the create on.
  const expected = [...sut.steps];
  if (expected.length === 1 && sut.to === null) expected.push({ type: 'JOINED' });
  expect(history.map((h) => h.event.type)).toEqual(expected.map((e) => e.type));
  expect(history.map((h) => h.version)).toEqual(expected.map((_, i) => i + 1));
  expect(history.map((h) => h.emitted)).toEqual(expected.map((e) => EMITS[e.type]));
  expect(outbox.map((o) => o.type)).toEqual(expected.flatMap((e) => EMITS[e.type]));
  for (const o of outbox) expect(o.data.object.id).toBe(id);
  const last = history.at(-1)!;
  expect(actor.state).toBe(last.to_state);
  expect(actor.version).toBe(history.length);
  const restored = createActor(sessionMachine, { snapshot: actor.snapshot }).start();
  expect(restored.getSnapshot().value).toBe(actor.state);
  restored.stop();
  if (name === 'ended') {
    expect(api.ended_at).not.toBeNull();
    expect(actor.snapshot.context.endReason).toBe({ LEAVE: 'left', ROOM_ENDED: 'room_ended', CALL_ENDED: 'call_ended' }[sut.steps.at(-1)!.type as string]);
    // Ended is final here too: another leave is 409 session_ended and changes nothing.
    const again = await t.request('POST', `/v1/sessions/${id}/leave`, { key: sut.secret });
    expect(again.status).toBe(409);
    expect((await again.json()).code).toBe('session_ended');
    if (sut.to !== null) {
      // The call ended with it: hung up by the API, ringing or answered.
      const c = await (await t.request('GET', `/v1/calls/${sut.callId}`, { key: sut.secret })).json();
      expect(c).toMatchObject({ session_id: id, status: sut.steps.some((e) => e.type === 'JOINED') ? 'completed' : 'no_answer', end_reason: 'agent_hangup' });
      return;
    }
    // The session's transcript; and when the room ended, the room's own (it had phrases: the agent's announcement).
    const tr = await (await t.request('GET', `/v1/transcripts?room_id=${sut.roomId}`, { key: sut.secret })).json();
    expect(tr.data).toHaveLength(actor.snapshot.context.endReason === 'room_ended' ? 2 : 1);
  }
}

async function carryOut(sut: Sut, event: SessionEvent): Promise<void> {
  switch (event.type) {
    case 'JOIN': {
      if (sut.to !== null) {
        const res = await t.request('POST', '/v1/calls', { key: sut.secret, headers: idem(), body: { to: sut.to, purpose: 'support', consent: { kind: 'prior_express', ref: 'crm-1' } } });
        expect(res.status).toBe(201);
        const c = await res.json();
        sut.callId = c.id;
        sut.sessionId = c.session_id;
        return;
      }
      const headers = idem();
      const body = { speak_lang: 'en', hear_lang: 'es', name: 'Model agent' };
      const res = await t.request('POST', `/v1/rooms/${sut.roomId}/agent-sessions`, { key: sut.secret, body, headers });
      expect(res.status).toBe(201);
      const s = await res.json();
      // A replay with the same Idempotency-Key is the same JOIN.
      const replay = await t.request('POST', `/v1/rooms/${sut.roomId}/agent-sessions`, { key: sut.secret, body, headers });
      expect((await replay.json()).id).toBe(s.id);
      sut.sessionId = s.id;
      return;
    }
    case 'JOINED':
      // A room's session: done by the create request (see above); verify() checks the history.
      if (sut.to !== null) await until('the callee to answer', async () => (await sessionStatus(sut)) === 'active', { intervalMs: 100, retryErrors: false });
      return;
    case 'LEAVE': {
      const res = await t.request('POST', `/v1/sessions/${sut.sessionId}/leave`, { key: sut.secret });
      expect(res.status).toBe(200);
      return;
    }
    case 'ROOM_ENDED': {
      const res = await t.request('DELETE', `/v1/rooms/${sut.roomId}`, { key: sut.secret });
      expect(res.status).toBe(200);
      return;
    }
    case 'CALL_ENDED': {
      const res = await t.request('POST', `/v1/calls/${sut.callId}/hangup`, { key: sut.secret });
      expect(res.status).toBe(200);
      await until('the call\'s session to end', async () => (await sessionStatus(sut)) === 'ended', { intervalMs: 100, retryErrors: false });
      return;
    }
  }
}

function params(sut: Sut) {
  const exec = async (step: { event: SessionEvent }) => {
    await carryOut(sut, step.event);
    sut.steps.push(step.event);
  };
  const check = (s: Snap) => verify(sut, s);
  return {
    events: { JOIN: exec, JOINED: exec, LEAVE: exec, ROOM_ENDED: exec, CALL_ENDED: exec },
    states: { created: check, joining: check, active: check, ended: check },
  } as never;
}

for (const [kind, paths] of Object.entries({ 'shortest paths': model.getShortestPaths(), 'simple paths': model.getSimplePaths() })) {
  describe(`session machine, ${kind}, against the API`, () => {
    for (const path of paths) {
      if (endsWhileJoining(path)) {
        test.todo(`${path.description} — joining is left inside the create transaction`);
        continue;
      }
      it(path.description, async () => {
        await path.test(params(await newSut(path)));
      });
    }
  });
}

describe('session machine model, as run here', () => {
  it('the runnable paths still reach every state and take every event, a call\'s end from joining and from active', () => {
    const paths = model.getSimplePaths().filter((p) => !endsWhileJoining(p));
    const states = new Set(paths.flatMap((p) => p.steps.map((s) => valueOf(s.state))));
    expect([...states].sort()).toEqual(['active', 'created', 'ended', 'joining']);
    const events = new Set(paths.flatMap((p) => p.steps.slice(1).map((s) => s.event.type)));
    expect([...events].sort()).toEqual(['CALL_ENDED', 'JOIN', 'JOINED', 'LEAVE', 'ROOM_ENDED']);
    const callEnds = paths.filter(onACall).map((p) => valueOf(p.steps.at(-2)!.state));
    expect(callEnds.sort()).toEqual(['active', 'joining']);
  });
});
