import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { PHRASES } from '../../src/sim/phrasebook.ts';
import { disclosure } from '../../src/i18n/disclosure.ts';
import { HELLO } from '../../gateway/callee-script.ts';

// Calls end to end over HTTP: POST /v1/calls → the policy table → the call
// actor → this process's SIP gateway → the built-in simulated callee (a SIP
// user agent on loopback) → dialog events → the call's status, events,
// session, transcript and bill. TOLK_SIM_SPEED=10: the callee rings 0.1 s,
// `0101` rings 0.5 s before its 480, the callee talks every 0.2-0.4 s.

vi.setConfig({ testTimeout: 60_000 });

// The service's clock runs at real speed from a Wednesday, 17:00 UTC (09:00
// in San Francisco, 18:00 in Paris): inside every calling window the table
// has, whatever time the suite runs at.
const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
const clock = () => new Date(Date.now() + offset);

let t: TestApp;
let key: string;
let keyId: string;
let orgId: string;

beforeAll(async () => {
  t = await startTestApp({ workers: true, clock, config: { simSpeed: 10 } });
  ({ secret: key, keyId, orgId } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const US = (last4: string) => `+1415555${last4}`;
const SUPPORT = { purpose: 'support', consent: { kind: 'prior_express', ref: 'crm-123' } };

async function place(body: Record<string, unknown>, k = key, headers: Record<string, string> = idem()) {
  return t.request('POST', '/v1/calls', { key: k, body, headers });
}

async function placed(body: Record<string, unknown>, k = key) {
  const res = await place(body, k);
  expect(res.status, await res.clone().text()).toBe(201);
  return res.json();
}

async function call(id: string, k = key) {
  const res = await t.request('GET', `/v1/calls/${id}`, { key: k });
  expect(res.status).toBe(200);
  return res.json();
}

// Polled every 150 ms: the file's test key has 1,000 requests a day (operator.md), and a call takes a second or more to answer.
const untilStatus = (id: string, statuses: string[], ms = 15_000) =>
  until(`call ${id} in ${statuses.join('/')}`, async () => {
    const c = await call(id);
    return statuses.includes(c.status) ? c : null;
  }, { timeoutMs: ms, intervalMs: 150 });

async function events(sessionId: string, cursor: number, wait = 0) {
  const res = await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=${wait}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json() as Promise<{ events: any[]; cursor: number; status: string }>;
}

/** The domain events written for an object, in order (what webhooks deliver). */
async function outbox(objectId: string) {
  const { rows } = await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [objectId]);
  return rows as Array<{ type: string; data: { object: any } }>;
}

describe('an answered call', () => {
  it('in a language the disclosure has no wording in: the English wording, in English, never a marked form', async () => {
    const c = await placed({ to: US('0142'), ...SUPPORT, agent_lang: 'de', remote_lang: 'ja' });
    await untilStatus(c.id, ['answered']);
    const first = await events(c.session_id, 0, 5);
    expect(first.events[0]).toMatchObject({
      type: 'segment.final', src_lang: 'en',
      untrusted_content: { text: disclosure('Tolk Assistant', 'en'), text_in_hear_lang: disclosure('Tolk Assistant', 'de') },
    });
    expect(first.events[0].untrusted_content.text).not.toMatch(/\[/);
    await t.request('POST', `/v1/calls/${c.id}/hangup`, { key });
  });

  it('rings, answers, opens with the AI disclosure, talks, hears say, hangs up, bills and keeps a transcript', async () => {
    const c = await placed({ to: US('0142'), ...SUPPORT, agent_lang: 'de', remote_lang: 'pt' });
    expect(c).toMatchObject({
      to: US('0142'), country: 'US', purpose: 'support', status: 'queued', ai_disclosure: true, billed_seconds: 0,
      agent_lang: 'de', remote_lang: 'pt', livemode: false, end_reason: null, blocked: null,
    });
    expect(c.id).toMatch(/^call_/);
    expect(c.session_id).toMatch(/^ses_/);

    const answered = await untilStatus(c.id, ['answered']);
    expect(answered.answered_at).not.toBeNull();

    // The session: no room, seated once answered.
    const ses = await (await t.request('GET', `/v1/sessions/${c.session_id}`, { key })).json();
    expect(ses).toMatchObject({ room_id: null, status: 'active', hear_lang: 'de' });

    // First on the line: the disclosure, in remote_lang; heard by the agent in agent_lang.
    const first = await events(c.session_id, 0, 5);
    expect(first.events[0]).toMatchObject({
      type: 'segment.final', src_lang: 'pt',
      untrusted_content: { text: disclosure('Tolk Assistant', 'pt'), text_in_hear_lang: disclosure('Tolk Assistant', 'de') },
    });
    // Then the callee talks, in pt, heard in de.
    let cursor = first.cursor;
    const heard: any[] = first.events.slice(1);
    await until('the callee to talk', async () => {
      const r = await events(c.session_id, cursor, 2);
      cursor = r.cursor;
      heard.push(...r.events);
      return heard.some((e) => e.type === 'segment.final' && e.speaker === 'Callee');
    });
    const callee = heard.find((e) => e.type === 'segment.final' && e.speaker === 'Callee');
    expect(callee).toMatchObject({ src_lang: 'pt' });
    // Heard from the line: the callee spoke it as audio, the gateway cut it by
    // voice activity, and the test-mode recognizer (the callee knows its
    // words) read it: one of the simulator's phrases, with its length.
    expect(callee.meta).toMatchObject({ participant_id: 'callee' });
    // A phrase lasts seconds; the hello is a word, which a loaded machine's detector may catch late (a fifth of a second heard).
    expect(callee.meta.audio_ms).toBeGreaterThan(callee.untrusted_content.text === HELLO.pt ? 100 : 300);
    // Its hello at the pickup, short as it is, is speech to the neural detector: heard like the rest.
    expect([HELLO.pt, ...PHRASES.map((p) => p.pt)], callee.untrusted_content.text).toContain(callee.untrusted_content.text);
    expect(callee.untrusted_content.text_in_hear_lang).not.toBe(callee.untrusted_content.text);

    // The agent speaks; the callee answers it. Saying costs nothing of its own on a call.
    const said = await t.request('POST', `/v1/sessions/${c.session_id}/say`, { key, body: { text: 'Guten Tag, wie geht es Ihnen?' } });
    expect(said.status, await said.clone().text()).toBe(202);
    expect((await said.json()).charged_seconds).toBe(0);

    await until('one answered second', async () => clock().getTime() >= Date.parse(answered.answered_at) + 1000);
    const hung = await t.request('POST', `/v1/calls/${c.id}/hangup`, { key });
    expect(hung.status).toBe(200);
    const ended = await hung.json();
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(1);
    expect(ended.ended_at).not.toBeNull();
    // Idempotent: the ended call comes back unchanged.
    const again = await (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key })).json();
    expect(again).toEqual(ended);

    // The session ended with it, and say is refused. Listening and speaking on
    // the call cost nothing of their own: the session billed nothing.
    expect(await (await t.request('GET', `/v1/sessions/${c.session_id}`, { key })).json()).toMatchObject({ status: 'ended', billed_seconds: 0 });
    const late = await t.request('POST', `/v1/sessions/${c.session_id}/say`, { key, body: { text: 'Hallo?' } });
    expect((await late.json()).code).toBe('session_ended');

    // The bill: answered seconds × minute factor (1 for a US number), in the ledger too.
    const { rows: ledger } = await t.pool.query(`SELECT kind, seconds FROM usage_ledger WHERE ref = $1`, [c.id]);
    expect(ledger.map((l: any) => ({ kind: l.kind, seconds: Number(l.seconds) }))).toEqual([{ kind: 'call', seconds: ended.billed_seconds }]);
    const me = await (await t.request('GET', '/v1/me', { key })).json();
    expect(me.limits.spent_today_minutes).toBeGreaterThanOrEqual(ended.billed_seconds / 60 - 0.001);

    // Events: ringing, answered, completed, ended (once), numbers masked.
    const evs = await outbox(c.id);
    expect(evs.map((e) => e.type)).toEqual(['call.ringing', 'call.answered', 'call.completed', 'call.ended']);
    for (const e of evs) {
      expect(e.data.object.to).toBe('+1••••••••42');
      expect(JSON.stringify(e.data)).not.toContain('4155550142');
    }

    // The conversation became a transcript with no room; the disclosure first.
    const list = await (await t.request('GET', '/v1/transcripts', { key })).json();
    const tr = list.data.find((x: any) => x.room_id === null);
    expect(tr).toBeTruthy();
    const full = await (await t.request('GET', `/v1/transcripts/${tr.id}`, { key })).json();
    expect(full.segments[0]).toMatchObject({ src_lang: 'pt', untrusted_content: { text: disclosure('Tolk Assistant', 'pt') } });
    expect(full.segments.some((s: any) => s.untrusted_content.text === 'Guten Tag, wie geht es Ihnen?')).toBe(true);
    // transcript.ready: ids and counts, never text.
    const ready = await outbox(tr.id);
    expect(ready.map((e) => e.type)).toEqual(['transcript.ready']);
    expect(ready[0]!.data.object).toEqual({
      id: tr.id, object: 'transcript', room_id: null, session_id: c.session_id, segment_count: full.segments.length,
    });
  });

  it('leaving the call session hangs the call up', async () => {
    const c = await placed({ to: US('0143'), ...SUPPORT });
    await untilStatus(c.id, ['answered']);
    const res = await t.request('POST', `/v1/sessions/${c.session_id}/leave`, { key });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ended', room_id: null });
    expect(await call(c.id)).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
  });

  it('say before the answer is refused with 409', async () => {
    const c = await placed({ to: US('0101'), ...SUPPORT });
    const res = await t.request('POST', `/v1/sessions/${c.session_id}/say`, { key, body: { text: 'Hello?' } });
    expect(res.status).toBe(409);
    await untilStatus(c.id, ['no_answer']);
  });
});

describe('outcomes of the simulated callee', () => {
  it.each([
    ['0100', 'busy', 'busy', ['call.ended']],
    ['0101', 'no_answer', 'no_answer', ['call.ringing', 'call.ended']],
    ['0102', 'voicemail', 'voicemail', ['call.ringing', 'call.voicemail', 'call.ended']],
    ['0103', 'failed', 'failed', ['call.failed', 'call.ended']],
  ])('%s ends %s', async (last4, status, reason, types) => {
    const c = await placed({ to: US(last4), ...SUPPORT });
    const ended = await untilStatus(c.id, [status]);
    expect(ended).toMatchObject({ status, end_reason: reason, billed_seconds: 0 });
    expect(ended.ended_at).not.toBeNull();
    expect((await outbox(c.id)).map((e) => e.type)).toEqual(types);
    // Its session ended too, and nothing was billed.
    const ses = await (await t.request('GET', `/v1/sessions/${c.session_id}`, { key })).json();
    expect(ses.status).toBe('ended');
    expect((await t.pool.query(`SELECT 1 FROM usage_ledger WHERE ref = $1`, [c.id])).rowCount).toBe(0);
  });

  it('a ringing call hung up by the API ends no_answer/agent_hangup', async () => {
    const slow = await startTestApp({ workers: true, db: t.db, clock, config: { simSpeed: 1 } });
    try {
      const res = await slow.request('POST', '/v1/calls', { key, body: { to: US('0101'), ...SUPPORT }, headers: idem() });
      const c = await res.json();
      await until('ringing', async () => (await (await slow.request('GET', `/v1/calls/${c.id}`, { key })).json()).status === 'ringing');
      const hung = await (await slow.request('POST', `/v1/calls/${c.id}/hangup`, { key })).json();
      expect(hung).toMatchObject({ status: 'no_answer', end_reason: 'agent_hangup', billed_seconds: 0 });
      // The gateway canceled the INVITE: the dialog is gone from it.
      await until('the dialog canceled', async () => !slow.services.gateway!.active().includes(c.id));
    } finally {
      await slow.close();
    }
  });
});

describe('the policy table', () => {
  it('a refused purpose gives a blocked call with call.blocked and call.ended, no session, no dial', async () => {
    const c = await placed({ to: US('0144'), purpose: 'marketing', consent: { kind: 'prior_express' } });
    expect(c).toMatchObject({ status: 'blocked', end_reason: 'blocked', session_id: null, billed_seconds: 0 });
    expect(c.blocked.code).toMatch(/written|consent/);
    expect(c.blocked.message.length).toBeGreaterThan(10);
    expect((await outbox(c.id)).map((e) => e.type)).toEqual(['call.blocked', 'call.ended']);
    expect((await outbox(c.id))[0]!.data.object.to).toBe('+1••••••••44');
    expect(await call(c.id)).toMatchObject({ status: 'blocked' });
  });

  it('a premium-rate number is blocked', async () => {
    const c = await placed({ to: '+19005550100', ...SUPPORT });
    expect(c).toMatchObject({ status: 'blocked', country: 'US' });
  });

  it('France: the fifth marketing call to one number in 30 days is blocked (too_many_attempts)', async () => {
    const body = { to: '+33144556677', purpose: 'marketing', consent: { kind: 'written' } };
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await placed(body)).status);
    expect(statuses.slice(0, 4)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(statuses[4]).toBe('blocked');
    const { rows } = await t.pool.query(`SELECT blocked_code FROM calls WHERE to_e164 = '+33144556677' AND status = 'blocked'`);
    expect(rows).toEqual([{ blocked_code: 'too_many_attempts' }]);
    // The attempts are the caller's: another organization's first call to the number goes ahead.
    const other = await t.key({ rpm: 100_000 });
    expect((await placed(body, other.secret)).status).toBe('queued');
  });

  it('remote_lang defaults to the destination country\'s language', async () => {
    const c = await placed({ to: '+4930901820', purpose: 'support', consent: { kind: 'prior_express' } });
    expect(c.remote_lang).toBe('de');
    expect(c.country).toBe('DE');
  });
});

describe('placing: input, keys and limits', () => {
  it('answers 400 naming the field for bad input, and 400 without an Idempotency-Key', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ to: 'hello', purpose: 'support' }, 'to'],
      [{ to: '4155550100', purpose: 'support' }, 'to'],
      [{ to: '+1', purpose: 'support' }, 'to'],
      [{ to: `+${'1'.repeat(40)}`, purpose: 'support' }, 'to'],
      [{ purpose: 'support' }, 'to'],
      [{ to: US('0100') }, 'purpose'],
      [{ to: US('0100'), purpose: 'sales' }, 'purpose'],
      [{ to: US('0100'), purpose: 'support', consent: { kind: 'maybe' } }, 'consent'],
      [{ to: US('0100'), purpose: 'support', consent: { ref: 'x' } }, 'consent'],
      [{ to: US('0100'), purpose: 'support', consent: { kind: 'written', ref: 'x'.repeat(201) } }, 'consent'],
      [{ to: US('0100'), purpose: 'support', from: 'x'.repeat(33) }, 'from'],
      [{ to: US('0100'), purpose: 'support', from: 'num_notours' }, 'from'],
      [{ to: US('0100'), purpose: 'support', voice_id: 'v'.repeat(101) }, 'voice_id'],
      [{ to: US('0100'), purpose: 'support', agent_lang: 'not a language' }, 'agent_lang'],
      [{ to: US('0100'), purpose: 'support', remote_lang: 7 }, 'remote_lang'],
      [{ to: 14155550100, purpose: 'support' }, 'to'],
    ];
    for (const [body, field] of cases) {
      const res = await place(body);
      const p = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(p.code).toBe('invalid_request');
      expect(p.message, JSON.stringify(body)).toContain(field);
    }
    const none = await t.request('POST', '/v1/calls', { key, body: { to: US('0100'), ...SUPPORT } });
    expect(none.status).toBe(400);
    expect((await none.json()).code).toBe('idempotency_key_required');
  });

  it('replays the same Idempotency-Key with the same call; one call is placed', async () => {
    const headers = idem();
    const a = await (await place({ to: US('0145'), ...SUPPORT }, key, headers)).json();
    const b = await place({ to: US('0145'), ...SUPPORT }, key, headers);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect((await b.json()).id).toBe(a.id);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM calls WHERE to_e164 = $1`, [US('0145')]);
    expect(rows[0].n).toBe(1);
    await t.request('POST', `/v1/calls/${a.id}/hangup`, { key });
  });

  it('uses the organization\'s default number, or one named by id', async () => {
    const { rows } = await t.pool.query(
      `INSERT INTO phone_numbers (id, org_id, e164, label, is_default) VALUES ('num_testown1', $1, '+14155559999', 'Office', true) RETURNING id`, [orgId]);
    expect(rows).toHaveLength(1);
    const dflt = await placed({ to: US('0100'), ...SUPPORT });
    expect(dflt.from).toBe('+14155559999');
    const shared = await placed({ to: US('0100'), ...SUPPORT, from: 'num_shared' });
    expect(shared.from).toBe('+14155550000');
    await t.pool.query(`DELETE FROM phone_numbers WHERE id = 'num_testown1'`);
  });

  it('live keys without a trunk answer 501 naming it; key restrictions answer 403', async () => {
    const live = await t.key({ mode: 'live' });
    const res = await place({ to: US('0100'), ...SUPPORT }, live.secret);
    expect(res.status).toBe(501);
    const body = await res.json();
    expect(body.code).toBe('not_available_yet');
    expect(body.detail ?? body.message ?? JSON.stringify(body)).toMatch(/no SIP trunk/);
    const gb = await t.key({ destinations: 'GB' });
    const refused = await place({ to: US('0100'), ...SUPPORT }, gb.secret);
    expect(refused.status).toBe(403);
    expect((await refused.json()).code).toBe('destination_not_allowed');
    const langs = await t.key({ langs: 'en' });
    const lang = await place({ to: US('0100'), ...SUPPORT, remote_lang: 'fr' }, langs.secret);
    expect((await lang.json()).code).toBe('language_not_allowed');
    const nums = await t.key({ numbers: 'num_other' });
    const num = await place({ to: US('0100'), ...SUPPORT, from: 'num_shared' }, nums.secret);
    expect((await num.json()).code).toBe('number_not_allowed');
    const readOnly = await t.key({ permissions: 'calls:read' });
    expect((await place({ to: US('0100'), ...SUPPORT }, readOnly.secret)).status).toBe(403);
  });

  it('answers 402 when a spending limit is already reached', async () => {
    const limited = await t.key({ spendDay: 0 });
    const res = await place({ to: US('0100'), ...SUPPORT }, limited.secret);
    expect(res.status).toBe(402);
    expect((await res.json()).code).toBe('spend_limit_reached');
  });

  it('the per-call limit ends an answered call with max_duration', async () => {
    const limited = await t.key({ perCall: 0.05, rpm: 100_000 }); // 3 s at a minute factor of 1
    const c = await placed({ to: US('0146'), ...SUPPORT }, limited.secret);
    let last: any;
    const ended = await until('max_duration', async () => {
      last = await (await t.request('GET', `/v1/calls/${c.id}`, { key: limited.secret })).json();
      return last.status === 'completed' ? last : null;
    }, { timeoutMs: 15_000, detail: () => JSON.stringify(last) });
    expect(ended.end_reason).toBe('max_duration');
    expect(ended.billed_seconds).toBeGreaterThanOrEqual(3);
    expect(ended.billed_seconds).toBeLessThanOrEqual(5);
  });
});

describe('listing', () => {
  it('lists the calls this credential placed, newest first; another credential sees none of them', async () => {
    const mine = await t.key({});
    const a = await placed({ to: US('0100'), ...SUPPORT }, mine.secret);
    const b = await placed({ to: US('0103'), ...SUPPORT }, mine.secret);
    const list = await (await t.request('GET', '/v1/calls', { key: mine.secret })).json();
    expect(list.data.map((c: any) => c.id)).toEqual([b.id, a.id]);
    const other = await t.key({ org: orgId });
    expect((await (await t.request('GET', '/v1/calls', { key: other.secret })).json()).data).toEqual([]);
    // Another organization cannot read it.
    const stranger = await t.key({});
    expect((await t.request('GET', `/v1/calls/${a.id}`, { key: stranger.secret })).status).toBe(404);
    expect((await t.request('POST', `/v1/calls/${a.id}/hangup`, { key: stranger.secret })).status).toBe(404);
    expect((await t.request('GET', '/v1/calls/call_nope', { key: mine.secret })).status).toBe(404);
    void keyId;
  });
});

describe('twenty calls at once', () => {
  it('all answer, all hang up cleanly, each billed once', async () => {
    const calls = await Promise.all(Array.from({ length: 20 }, (_, i) => placed({ to: US(`2${String(i).padStart(3, '0')}`), ...SUPPORT })));
    await Promise.all(calls.map((c) => untilStatus(c.id, ['answered'])));
    const ended = await Promise.all(calls.map(async (c) => (await t.request('POST', `/v1/calls/${c.id}/hangup`, { key })).json()));
    for (const e of ended) expect(e).toMatchObject({ status: 'completed', end_reason: 'agent_hangup' });
    const { rows } = await t.pool.query(
      `SELECT ref, count(*)::int AS n FROM usage_ledger WHERE ref = ANY($1) GROUP BY ref`, [calls.map((c) => c.id)]);
    for (const r of rows) expect(r.n).toBe(1);
    await until('every dialog closed', async () => calls.every((c) => !t.services.gateway!.active().includes(c.id)));
  });
});
