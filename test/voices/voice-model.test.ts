import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { transition, type SnapshotFrom } from 'xstate';
import { createTestModel } from 'xstate/graph';
import { voiceMachine, type VoiceEvent } from '../../machines/voice.ts';
import { SAMPLE_EVENTS } from '../../machines/sample-events.ts';
import { voiceEmits } from '../helpers/lifecycle-events.ts';
import { expectPersistedActor } from '../helpers/persisted-actor.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { MIN_SPEECH_MS, VOICE_TIMER_QUEUE } from '../../src/voices/simulated-cloning.ts';

// Model-based tests of the voice lifecycle (machines/voice.ts), as
// test/bookings/booking-model.test.ts does for bookings: paths are generated from the
// voice machine (xstate/graph) and every machine event is carried out as the
// real action against the real system (HTTP, PostgreSQL, pg-boss workers):
// - REQUEST: POST /v1/voices (a test key);
// - CONSENT: the test helper completes the consent
//   (POST /v1/test-helpers/voices/{id}/complete-consent);
// - READY: the voice's `process` timer (a pg-boss job) is made due and the
//   real worker fires it: the simulator makes the voice;
// - FAIL: the same timer, with a consent recording of too little sound in
//   voice_recordings: the simulator makes no voice (insufficient_speech);
// - EXPIRE: the voice's `expire` timer (the link's lapse) is made due now;
// - REVOKE: the organization withdraws it (DELETE /v1/voices/{id}).
// In every state reached, it is checked through the API (the voice, the list,
// another key's view), the persisted actor (actors, actor_history, outbox),
// the voices row, its timers, its recording and the mails to the person.
// Events a state does not accept are carried out too where the system lets
// them be (the helper again, DELETE of a final voice, a timer firing late)
// and must change nothing.
//
// Holding `processing` deterministically. CONSENT creates the `process` job
// in its own transaction, due at once, and pg-boss (NOTIFY on insert, 0.5 s
// polling) may work it before the HTTP answer even reaches the test: moving
// it later *after* the request is a race. So this file's database (each test
// file has its own) gets a BEFORE INSERT trigger on pgboss.job that makes
// every voice-timer `process` job due an hour from its insert. Nothing else
// changes: the job is the service's own, in the CONSENT transaction, and the
// real worker fires it as soon as a step (READY, FAIL) makes it due again
// (start_after = now()), exactly as the service would have. A step that
// releases it checks it moved exactly one held job.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

type VoiceSnapshot = SnapshotFrom<typeof voiceMachine>;
type StateName = 'created' | 'awaiting_consent' | 'processing' | 'ready' | 'failed' | 'expired' | 'revoked';
type TimerKind = 'expire' | 'process';

const EVENTS: VoiceEvent[] = [...SAMPLE_EVENTS.voice];
const STATES: StateName[] = ['awaiting_consent', 'created', 'expired', 'failed', 'processing', 'ready', 'revoked'];
const FINAL: StateName[] = ['failed', 'expired', 'revoked'];


/**
 * The mail each transition sends the person (voices/texts.ts), by a part of
 * its subject: the request with the link, the receipt of the consent, and the
 * withdrawal once they had consented. In the voice's language (pt here).
 */
function mailOf(tr: Transition): string | null {
  switch (tr.event.type) {
    case 'REQUEST': return 'pede a sua autorização para copiar a sua voz';
    case 'CONSENT': return 'autorizou';
    case 'REVOKE': return tr.from === 'awaiting_consent' ? null : 'foi retirada';
    default: return null;
  }
}

const model = createTestModel(voiceMachine, { events: EVENTS });

let t: TestApp;
// Workers on: the voice's timers are fired by the real pg-boss worker.
beforeAll(async () => {
  t = await startTestApp({ workers: true });
  // Holds every `process` job (see the top of this file); pgboss.job is partitioned, the trigger is cloned to its partitions.
  await t.pool.query(`
    CREATE FUNCTION model_hold_voice_processing() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.name = '${VOICE_TIMER_QUEUE}' AND NEW.data->>'kind' = 'process' THEN
        NEW.start_after := now() + interval '1 hour';
      END IF;
      RETURN NEW;
    END $$`);
  await t.pool.query(`CREATE TRIGGER model_hold_voice_processing BEFORE INSERT ON pgboss.job FOR EACH ROW EXECUTE FUNCTION model_hold_voice_processing()`);
});
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': randomUUID() });
const poll = <T>(what: string, fn: () => Promise<T | undefined>) => until(what, fn, { timeoutMs: 5_000, intervalMs: 50, retryErrors: false });
const valueOf = (s: { value: unknown }) => s.value as StateName;

type Transition = { event: VoiceEvent; from: StateName; to: StateName };

/** One system under test per path: an organization of its own, two keys, the person, and the voice. */
type Sut = {
  secret: string;
  /** Another key of the same organization: it sees the voice only once it is ready. */
  otherSecret: string;
  orgId: string;
  keyId: string;
  voiceName: string;
  personName: string;
  email: string;
  /** Where the link's lapse is fired as a refused EXPIRE: while processing, or in the states after it (ready, failed, revoked). */
  expireRefusedIn: 'processing' | 'later';
  voiceId?: string;
  current: StateName;
  transitions: Transition[];
};

async function newSut(expireRefusedIn: Sut['expireRefusedIn']): Promise<Sut> {
  const { secret, orgId, keyId } = await t.key({ rpm: 100_000 });
  const other = await t.key({ org: orgId, rpm: 100_000 });
  const tag = randomBytes(4).toString('hex');
  return {
    secret, otherSecret: other.secret, orgId, keyId,
    voiceName: `Model voice ${tag}`, personName: `Pessoa ${tag}`, email: `person-${tag}@person.example`, expireRefusedIn,
    current: 'created', transitions: [],
  };
}

async function getVoice(sut: Sut, secret = sut.secret): Promise<{ status: number; body: any }> {
  const res = await t.request('GET', `/v1/voices/${sut.voiceId}`, { key: secret });
  return { status: res.status, body: await res.json() };
}

async function persisted(sut: Sut) {
  const id = sut.voiceId!;
  const actor = (await t.pool.query(`SELECT *, xmin::text AS xmin FROM actors WHERE id = $1`, [id])).rows[0];
  const history = (await t.pool.query(
    `SELECT version, event, from_state, to_state, emitted, at, xmin::text AS xmin FROM actor_history WHERE actor_id = $1 ORDER BY version`,
    [id],
  )).rows;
  const outbox = (await t.pool.query(`SELECT org_id, livemode, type, object_id, data, created_at FROM outbox WHERE object_id = $1 ORDER BY id`, [id])).rows;
  const voice = (await t.pool.query(
    `SELECT status, failure_code, consent_token, link_expires_at, consented_at, consent_method, revoke_token, revoked_at, revoked_by, ended_at,
            code_hash, verified_hash, xmin::text AS xmin
       FROM voices WHERE id = $1`,
    [id],
  )).rows[0];
  const recordings = (await t.pool.query(`SELECT count(*)::int AS n FROM voice_recordings WHERE voice_id = $1`, [id])).rows[0].n as number;
  const timers = (await t.pool.query(
    `SELECT data->>'kind' AS kind, state, start_after FROM pgboss.job WHERE name = $1 AND data->>'voiceId' = $2 ORDER BY created_on, data->>'kind'`,
    [VOICE_TIMER_QUEUE, id],
  )).rows as Array<{ kind: TimerKind; state: string; start_after: Date }>;
  const mails = (await t.pool.query(`SELECT subject, status, livemode FROM mail_outbox WHERE lower(to_addr) = $1 ORDER BY id`, [sut.email])).rows;
  return { actor, history, outbox, voice, recordings, timers, mails };
}

/** What a refused event must leave as it was. */
async function footprint(sut: Sut) {
  const p = await persisted(sut);
  return {
    state: p.actor.state, version: p.actor.version, snapshot: p.actor.snapshot, history: p.history.length, outbox: p.outbox.length,
    status: p.voice.status, failure_code: p.voice.failure_code, ended_at: p.voice.ended_at, mails: p.mails.length, recordings: p.recordings,
    api: (await getVoice(sut)).body,
  };
}

/** Makes the voice's timers of these kinds that have not run yet due now, for the real worker to fire; resolves with how many it moved. */
async function release(sut: Sut, kinds: TimerKind[]): Promise<number> {
  const r = await t.pool.query(
    `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND data->>'voiceId' = $2 AND data->>'kind' = ANY($3) AND state = 'created'`,
    [VOICE_TIMER_QUEUE, sut.voiceId, kinds],
  );
  return r.rowCount ?? 0;
}

/** Waits until the worker has done every timer of the voice (none created, retrying or active). */
async function timersDone(sut: Sut): Promise<void> {
  await poll('the voice timers to be worked', async () => {
    const { rows } = await t.pool.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'voiceId' = $2 AND state <> 'completed'`,
      [VOICE_TIMER_QUEUE, sut.voiceId],
    );
    return rows[0].n === 0 ? true : undefined;
  });
}

/** Waits for the voice's status through the API. */
async function statusBecomes(sut: Sut, status: string) {
  let last = '';
  return until(`the voice to be ${status}`, async () => {
    const v = await getVoice(sut);
    expect(v.status).toBe(200);
    last = v.body.status;
    return v.body.status === status ? v.body : undefined;
  }, { timeoutMs: 5_000, intervalMs: 50, retryErrors: false, detail: () => `last status ${last}` });
}

/** The consent helper on a voice not awaiting consent: 409 conflict. */
async function consentRefused(sut: Sut): Promise<void> {
  const res = await t.request('POST', `/v1/test-helpers/voices/${sut.voiceId}/complete-consent`, { key: sut.secret });
  expect(res.status).toBe(409);
  expect((await res.json()).code).toBe('conflict');
}

/** The checks every state shares: API view, persisted actor, history, outbox, row, timers, recording, mails. */
async function verifyState(sut: Sut, state: VoiceSnapshot): Promise<void> {
  const name = valueOf(state);
  expect(sut.current).toBe(name);
  if (name === 'created') {
    // Before the first command nothing exists for this organization.
    expect(sut.voiceId).toBeUndefined();
    const { rows } = await t.pool.query(
      `SELECT (SELECT count(*)::int FROM actors WHERE org_id = $1) AS actors, (SELECT count(*)::int FROM voices WHERE org_id = $1) AS voices`,
      [sut.orgId],
    );
    expect(rows[0]).toEqual({ actors: 0, voices: 0 });
    const list = await t.request('GET', '/v1/voices', { key: sut.secret });
    expect((await list.json()).data).toEqual([]);
    return;
  }
  const id = sut.voiceId!;
  const p = await persisted(sut);

  // The persisted actor: its state, one version per transition, a snapshot that restores; its history.
  expectPersistedActor({ machine: voiceMachine, kind: 'voice', name, orgId: sut.orgId, state, events: EVENTS, transitions: sut.transitions, emits: voiceEmits, persisted: p });

  // The API's view of the voice (its own key sees it in every state).
  const got = await getVoice(sut);
  expect(got.status).toBe(200);
  const api = got.body;
  const failureCode = name === 'failed' ? 'insufficient_speech' : null;
  expect(api).toMatchObject({
    id, name: sut.voiceName, kind: 'clone', status: name, active: name === 'ready', language: 'pt',
    failure_code: failureCode, livemode: false, gender: null,
  });
  // consent_url only while awaiting the consent, the link's lapse then and once it lapsed.
  expect(api.consent_url).toBe(name === 'awaiting_consent' ? `${t.url}/consent/${p.voice.consent_token}` : null);
  expect(api.expires_at).toBe(name === 'awaiting_consent' || name === 'expired' ? p.voice.link_expires_at.toISOString() : null);
  // The person, the e-mail masked.
  expect(api.person.name).toBe(sut.personName);
  expect(api.person.email).not.toBe(sut.email);
  expect(api.person.email).toContain('***');
  expect(api.person.email).not.toContain(sut.email.slice(0, sut.email.indexOf('@')));
  expect(JSON.stringify(api)).not.toContain(sut.email);

  // The list: the key's own clones in every state.
  const list = (await (await t.request('GET', '/v1/voices', { key: sut.secret })).json()).data;
  expect(list).toEqual([api]);
  // Another key of the organization sees it only once it is ready.
  const other = await getVoice(sut, sut.otherSecret);
  if (name === 'ready') expect(other).toEqual({ status: 200, body: api });
  else expect(other.status).toBe(404);

  // The outbox holds exactly the emitted events, in order, each with the voice as it was after its transition, without its person.
  const expected = sut.transitions.flatMap((tr) => voiceEmits(tr.event).map((type) => ({ type, status: tr.to })));
  expect(p.outbox.map((o) => ({ type: o.type, status: o.data.object.status }))).toEqual(expected);
  for (const [i, o] of p.outbox.entries()) {
    expect(o).toMatchObject({ org_id: sut.orgId, livemode: false, object_id: id });
    const to = expected[i]!.status;
    expect(o.data.object).toEqual({
      id, object: 'voice', name: sut.voiceName, kind: 'clone', status: to, active: to === 'ready', language: 'pt',
      failure_code: to === 'failed' ? 'insufficient_speech' : null, created_at: api.created_at, livemode: false,
    });
    expect(o.data.object).not.toHaveProperty('person');
    const json = JSON.stringify(o.data);
    expect(json).not.toContain(sut.email);
    expect(json).not.toContain(sut.personName);
    expect(json).not.toContain(p.voice.consent_token);
  }
  // A transition and its events are one transaction: its outbox rows carry
  // its history row's time, and the latest history row shares its
  // transaction id with the actor and the voices row.
  let k = 0;
  for (const h of p.history) for (const _ of h.emitted) expect(p.outbox[k++].created_at.getTime()).toBe(h.at.getTime());
  const last = p.history.at(-1)!;
  expect(p.actor.xmin).toBe(last.xmin);
  expect(p.voice.xmin).toBe(last.xmin);

  // The row: its status, the consent kept as its proof, the end.
  const consented = sut.transitions.some((tr) => tr.event.type === 'CONSENT');
  expect(p.voice).toMatchObject({ status: name, failure_code: failureCode, consent_method: consented ? 'test_helper' : null });
  expect(p.voice.consented_at === null).toBe(!consented);
  expect(p.voice.revoke_token === null).toBe(!consented);
  expect(p.voice.ended_at === null).toBe(!FINAL.includes(name));
  expect(p.voice.revoked_by).toBe(name === 'revoked' ? 'organization' : null);
  expect(p.voice.revoked_at === null).toBe(name !== 'revoked');
  // No recording is kept but while processing the (FAIL step's) one; a failed or revoked voice has none.
  expect(p.recordings).toBe(0);

  // Mails to the person: the link, the receipt of the consent, the withdrawal after it.
  const told = sut.transitions.map(mailOf).filter((m) => m !== null);
  expect(p.mails.map((m) => m.subject)).toHaveLength(told.length);
  p.mails.forEach((m, i) => {
    expect(m.subject, `mail ${i}`).toContain(told[i]);
    expect(m).toMatchObject({ status: 'kept', livemode: false });
  });

  // Its timers: the link's lapse from the request on, the processing from the consent on.
  const timer = (kind: TimerKind) => p.timers.filter((j) => j.kind === kind);
  expect(timer('expire')).toHaveLength(1);
  expect(timer('process')).toHaveLength(consented ? 1 : 0);

  const before = await footprint(sut);
  const unchanged = async () => expect(await footprint(sut)).toEqual(before);

  switch (name) {
    case 'awaiting_consent': {
      // The link lapses at link_expires_at, 7 days on; READY and FAIL come only from the process timer, which the consent makes.
      expect(timer('expire')[0]!.state).toBe('created');
      expect(Math.abs(timer('expire')[0]!.start_after.getTime() - p.voice.link_expires_at.getTime())).toBeLessThan(2_000);
      expect(p.voice.link_expires_at.getTime() - Date.parse(api.created_at)).toBe(7 * 24 * 3600_000);
      return;
    }
    case 'processing': {
      // Held (see the top of this file): the process timer has not run.
      expect(timer('process')[0]!.state).toBe('created');
      expect(timer('process')[0]!.start_after.getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
      // Refused: the consent again (409), and (on the shortest paths; the simple ones keep it for
      // the states after) the link lapsing now: its timer fires and changes nothing.
      await consentRefused(sut);
      if (sut.expireRefusedIn === 'later') {
        await unchanged();
        return;
      }
      expect(await release(sut, ['expire'])).toBe(1);
      await poll('the expire timer to be worked', async () => {
        const { rows } = await t.pool.query(
          `SELECT state FROM pgboss.job WHERE name = $1 AND data->>'voiceId' = $2 AND data->>'kind' = 'expire'`, [VOICE_TIMER_QUEUE, id],
        );
        return rows[0].state === 'completed' ? true : undefined;
      });
      await unchanged();
      return;
    }
    case 'ready':
    case 'failed':
    case 'expired':
    case 'revoked': {
      if (name !== 'ready') {
        // Final: nothing moves it, through the machine or the system.
        for (const e of EVENTS) expect(transition(voiceMachine, state, e)[0].value).toBe(name);
        expect(state.status).toBe('done');
      }
      if (name === 'ready' || name === 'failed') expect(timer('process')[0]!.state).toBe('completed');
      if (name === 'expired') expect(timer('expire')[0]!.state).toBe('completed');
      // Refused: the consent again (409); every timer still to come fires and changes nothing (the link
      // lapsing, or the held processing of a voice withdrawn while processing).
      await consentRefused(sut);
      const pending = await release(sut, ['expire', 'process']);
      expect(pending).toBe(p.timers.filter((j) => j.state === 'created').length);
      await timersDone(sut);
      if (name !== 'ready') {
        // DELETE of a final voice returns it unchanged.
        const again = await t.request('DELETE', `/v1/voices/${id}`, { key: sut.secret });
        expect(again.status).toBe(200);
        expect(await again.json()).toEqual(api);
      }
      await unchanged();
      return;
    }
  }
}

/** The real action for each machine event. */
async function carryOut(sut: Sut, event: VoiceEvent): Promise<void> {
  switch (event.type) {
    case 'REQUEST': {
      const headers = idem();
      const body = { name: sut.voiceName, language: 'pt', person: { name: sut.personName, email: sut.email } };
      const res = await t.request('POST', '/v1/voices', { key: sut.secret, headers, body });
      expect(res.status).toBe(202);
      const v = await res.json();
      expect(v).toMatchObject({ status: 'awaiting_consent', kind: 'clone', active: false, livemode: false });
      expect(v.consent_url).toMatch(/\/consent\/[A-Za-z0-9_-]{32}$/);
      // A replay with the same Idempotency-Key is the same REQUEST, not a second voice.
      const replay = await t.request('POST', '/v1/voices', { key: sut.secret, headers, body });
      expect(replay.status).toBe(202);
      expect(await replay.json()).toEqual(v);
      sut.voiceId = v.id;
      return;
    }
    case 'CONSENT': {
      const res = await t.request('POST', `/v1/test-helpers/voices/${sut.voiceId}/complete-consent`, { key: sut.secret });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: sut.voiceId, status: 'processing', active: false, consent_url: null });
      return;
    }
    case 'READY': {
      expect(await release(sut, ['process'])).toBe(1);
      await statusBecomes(sut, 'ready');
      return;
    }
    case 'FAIL': {
      // A consent recording with too little sound: the simulator's cloning makes no voice of it.
      const soundMs = 100;
      expect(soundMs).toBeLessThan(MIN_SPEECH_MS);
      await t.pool.query(
        `INSERT INTO voice_recordings (voice_id, content_type, audio, duration_ms, sound_ms) VALUES ($1, 'audio/webm', '\\x00'::bytea, 4000, $2)`,
        [sut.voiceId, soundMs],
      );
      expect((await persisted(sut)).recordings).toBe(1);
      expect(await release(sut, ['process'])).toBe(1);
      const v = await statusBecomes(sut, 'failed');
      expect(v.failure_code).toBe('insufficient_speech');
      return;
    }
    case 'EXPIRE': {
      expect(await release(sut, ['expire'])).toBe(1);
      const v = await statusBecomes(sut, 'expired');
      expect(v.consent_url).toBeNull();
      expect(v.expires_at).not.toBeNull();
      return;
    }
    case 'REVOKE': {
      const res = await t.request('DELETE', `/v1/voices/${sut.voiceId}`, { key: sut.secret });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: sut.voiceId, status: 'revoked', active: false, consent_url: null });
      return;
    }
  }
}

function params(sut: Sut) {
  const exec = async (step: { event: VoiceEvent; state: VoiceSnapshot }) => {
    await carryOut(sut, step.event);
    sut.transitions.push({ event: step.event, from: sut.current, to: valueOf(step.state) });
    sut.current = valueOf(step.state);
  };
  const verify = (s: VoiceSnapshot) => verifyState(sut, s);
  return {
    events: { REQUEST: exec, CONSENT: exec, READY: exec, FAIL: exec, EXPIRE: exec, REVOKE: exec },
    states: { created: verify, awaiting_consent: verify, processing: verify, ready: verify, failed: verify, expired: verify, revoked: verify },
  } as never;
}

// The shortest paths fire the link's lapse while processing, the simple ones once ready, failed or revoked.
const generators: Record<string, { paths: ReturnType<typeof model.getShortestPaths>; expireRefusedIn: Sut['expireRefusedIn'] }> = {
  'shortest paths': { paths: model.getShortestPaths(), expireRefusedIn: 'processing' },
  'simple paths': { paths: model.getSimplePaths(), expireRefusedIn: 'later' },
};

for (const [kind, { paths, expireRefusedIn }] of Object.entries(generators)) {
  describe(`voice machine, ${kind}, against the system`, () => {
    for (const path of paths) {
      it(path.description, async () => {
        await path.test(params(await newSut(expireRefusedIn)));
      });
    }
  });
}

describe('voice machine model, as run here', () => {
  it('drives every event and reaches every state through the system, revoking from each state that allows it', () => {
    for (const { paths } of Object.values(generators)) {
      const events = new Set(paths.flatMap((p) => p.steps.slice(1).map((s) => JSON.stringify(s.event))));
      expect([...events].sort()).toEqual(EVENTS.map((e) => JSON.stringify(e)).sort());
      const states = new Set(paths.flatMap((p) => p.steps.map((s) => valueOf(s.state))));
      expect([...states].sort()).toEqual(STATES);
    }
    // The simple paths withdraw the voice before the consent, while processing and once ready.
    const revokedFrom = new Set(generators['simple paths']!.paths.flatMap((p) => p.steps.flatMap((s, i) =>
      i > 0 && s.event.type === 'REVOKE' ? [valueOf(p.steps[i - 1]!.state)] : [])));
    expect([...revokedFrom].sort()).toEqual(['awaiting_consent', 'processing', 'ready']);
  });

});
