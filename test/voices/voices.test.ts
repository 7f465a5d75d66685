import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';

// Voices through the real HTTP API (api.md: Voice, Catalog voice, the voice
// state table, the Voices endpoints, voice_id on agent sessions and calls;
// operator.md: the consent test helper), with the pg-boss workers running (the
// simulator makes a consented voice ready). What is checked is what a user of
// the API notices: the answers, the mails the person gets (mail_outbox), the
// events written for webhooks (outbox), and whether a voice can be spoken with.

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let t: TestApp;
beforeAll(async () => { t = await startTestApp({ workers: true }); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': randomUUID() });
const suffix = () => randomBytes(4).toString('hex');
const DAY_MS = 24 * 3600_000;

/** A new organization (named, so its mails can be recognised) and a test key with a high rate limit. */
async function org(o: Parameters<TestApp['key']>[0] = {}) {
  const k = await t.key({ rpm: 100_000, ...o });
  const name = `Acme ${suffix()}`;
  if (!o.org) await t.pool.query(`UPDATE organizations SET name = $2 WHERE id = $1`, [k.orgId, name]);
  return { ...k, name };
}

function personEmail() {
  return `ana.${suffix()}@example.com`;
}

function cloneBody(o: Record<string, unknown> = {}) {
  return { name: 'Ana voice', language: 'pt-BR', person: { name: 'Ana Souza', email: personEmail() }, ...o };
}

function postClone(key: string, body: unknown, headers: Record<string, string> = idem()): Promise<TestResponse> {
  return t.request('POST', '/v1/voices', { key, body, headers });
}

/** A clone awaiting consent. */
async function requestClone(key: string, o: Record<string, unknown> = {}) {
  const body = cloneBody(o);
  const res = await postClone(key, body);
  expect(res.status, await res.clone().text()).toBe(202);
  return { voice: await res.json(), email: (body.person as { email: string }).email };
}

async function getVoice(key: string, id: string) {
  return t.request('GET', `/v1/voices/${id}`, { key });
}

async function listIds(key: string): Promise<string[]> {
  const res = await t.request('GET', '/v1/voices', { key });
  expect(res.status).toBe(200);
  return ((await res.json()).data as Array<{ id: string }>).map((v) => v.id);
}

function completeConsent(key: string, id: string) {
  return t.request('POST', `/v1/test-helpers/voices/${id}/complete-consent`, { key });
}

/** Polls GET until the voice is ready (5 s cap). */
async function untilReady(key: string, id: string) {
  return until(`voice ${id} to be ready`, async () => {
    const v = await (await getVoice(key, id)).json();
    return v.status === 'ready' ? v : undefined;
  }, { timeoutMs: 5_000, intervalMs: 50 });
}

/** A ready clone of the key's organization. */
async function readyClone(key: string, o: Record<string, unknown> = {}) {
  const { voice, email } = await requestClone(key, o);
  const res = await completeConsent(key, voice.id);
  expect(res.status, await res.clone().text()).toBe(200);
  return { voice: await untilReady(key, voice.id), email };
}

async function addGeneric(key: string, voiceId = 'generic_EmmaEn01') {
  return t.request('POST', '/v1/voices/generic', { key, body: { voice_id: voiceId } });
}

async function mails(to: string) {
  const { rows } = await t.pool.query(
    `SELECT to_addr, subject, text, status, livemode FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to],
  );
  return rows as Array<{ to_addr: string; subject: string; text: string; status: string; livemode: boolean }>;
}

async function outbox(objectId: string) {
  const { rows } = await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [objectId]);
  return rows as Array<{ type: string; data: { object: Record<string, unknown> } }>;
}

/** A problem+json answer with this status and code, whose message names `field`. */
async function expectProblem(res: TestResponse, status: number, code: string, field?: string) {
  const body = await res.json();
  expect({ status: res.status, code: body.code }, JSON.stringify(body)).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  if (field) expect(body.message, `message names ${field}`).toContain(field);
  return body as { message: string };
}

async function room(key: string) {
  const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body: { langs: ['en', 'es'] } });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()).id as string;
}

function join(key: string, roomId: string, voiceId?: string) {
  const body: Record<string, unknown> = { speak_lang: 'en', hear_lang: 'es', announce: false };
  if (voiceId !== undefined) body.voice_id = voiceId;
  return t.request('POST', `/v1/rooms/${roomId}/agent-sessions`, { key, headers: idem(), body });
}

function placeCall(key: string, voiceId?: string) {
  const body: Record<string, unknown> = { to: '+14155550142', purpose: 'support', consent: { kind: 'prior_express' } };
  if (voiceId !== undefined) body.voice_id = voiceId;
  return t.request('POST', '/v1/calls', { key, headers: idem(), body });
}

describe('POST /v1/voices', () => {
  it('answers 202 with a clone awaiting consent: consent_url on the public base, the e-mail masked, the link lapsing in 7 days', async () => {
    const a = await org();
    const email = personEmail();
    const res = await postClone(a.secret, { name: 'Ana voice', language: 'pt-BR', person: { name: 'Ana Souza', email } });
    expect(res.status).toBe(202);
    const v = await res.json();
    expect(v).toMatchObject({
      kind: 'clone', status: 'awaiting_consent', active: false, gender: null, name: 'Ana voice', language: 'pt-BR',
      person: { name: 'Ana Souza', email: 'a***@e***.com' }, livemode: false,
    });
    expect(v.id).toMatch(/^voice_/);
    expect(t.config.publicBaseUrl).toBe(t.url);
    expect(v.consent_url).toMatch(new RegExp(`^${t.url.replace(/[.]/g, '\\.')}/consent/[A-Za-z0-9_-]+$`));
    expect(new URL(v.consent_url).origin).toBe(new URL(t.url).origin);
    // The real address never appears in the answer.
    expect(JSON.stringify(v).toLowerCase()).not.toContain(email.toLowerCase());
    const lapse = Date.parse(v.expires_at) - Date.parse(v.created_at);
    expect(Math.abs(lapse - 7 * DAY_MS)).toBeLessThan(5_000);
    expect(Math.abs(Date.parse(v.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it('requires an Idempotency-Key; the same key and body replay the same voice, another body is a 409', async () => {
    const a = await org();
    const body = cloneBody();
    const none = await t.request('POST', '/v1/voices', { key: a.secret, body });
    await expectProblem(none, 400, 'idempotency_key_required');

    const headers = idem();
    const first = await postClone(a.secret, body, headers);
    const again = await postClone(a.secret, body, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    const v1 = await first.json();
    expect(await again.json()).toEqual(v1);
    // One voice, one consent mail.
    expect(await listIds(a.secret)).toEqual([v1.id]);
    expect(await mails(body.person.email)).toHaveLength(1);

    const other = await postClone(a.secret, { ...body, name: 'Another name' }, headers);
    await expectProblem(other, 409, 'idempotency_mismatch');
    expect(await listIds(a.secret)).toEqual([v1.id]);
  });

  it('answers 501 not_available_yet to a live key', async () => {
    const live = await org({ mode: 'live' });
    const res = await postClone(live.secret, cloneBody());
    await expectProblem(res, 501, 'not_available_yet');
  });

  it('refuses bad input with a 400 naming the field, and creates nothing', async () => {
    const a = await org();
    const ok = cloneBody();
    const long = (n: number) => 'x'.repeat(n);
    /** A valid address of n characters (n >= 243): labels of at most 63 characters. */
    const emailOf = (n: number) => `${'a'.repeat(50)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.${'e'.repeat(n - 238)}.com`;
    const e255 = emailOf(255);
    expect(e255).toHaveLength(255);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, name: '' }, 'name'],
      [{ ...ok, name: long(61) }, 'name'],
      [{ ...ok, language: 'PT' }, 'language'],
      [{ ...ok, language: 'english' }, 'language'],
      [{ ...ok, language: 'pt_BR' }, 'language'],
      [{ name: ok.name, language: ok.language }, 'person'],
      [{ ...ok, person: { ...ok.person, name: '' } }, 'person.name'],
      [{ ...ok, person: { ...ok.person, name: long(81) } }, 'person.name'],
      [{ ...ok, person: { ...ok.person, email: 'not-an-email' } }, 'person.email'],
      [{ ...ok, person: { ...ok.person, email: e255 } }, 'person.email'],
      [{ ...ok, purpose: long(301) }, 'purpose'],
    ];
    for (const [body, field] of cases) {
      const res = await postClone(a.secret, body);
      const p = await res.json();
      expect({ field, status: res.status, code: p.code }).toEqual({ field, status: 400, code: 'invalid_request' });
      expect(p.message, JSON.stringify(body).slice(0, 200)).toContain(field);
    }
    expect(await listIds(a.secret)).toEqual([]);

    // The bounds themselves are accepted.
    for (const body of [
      { ...ok, name: long(60) },
      { ...ok, language: 'pt-BR' },
      { ...ok, person: { ...ok.person, name: long(80) } },
      { ...ok, purpose: long(300) },
      { ...ok, person: { ...ok.person, email: emailOf(254) } },
    ]) {
      const res = await postClone(a.secret, body);
      expect(res.status, await res.clone().text()).toBe(202);
    }
  });

  it("refuses a language outside the key's languages (403 language_not_allowed) and a key without voices:clone (403)", async () => {
    const en = await org({ langs: 'en' });
    await expectProblem(await postClone(en.secret, cloneBody({ language: 'pt' })), 403, 'language_not_allowed', 'language');
    expect((await postClone(en.secret, cloneBody({ language: 'en' }))).status).toBe(202);

    const reader = await org({ permissions: 'voices:read' });
    const res = await postClone(reader.secret, cloneBody());
    await expectProblem(res, 403, 'insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('voices:clone');
  });

  it("mails the person the consent link with the organization's name, kept in the outbox (test mode)", async () => {
    const a = await org();
    const { voice, email } = await requestClone(a.secret);
    const got = await mails(email);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ status: 'kept', livemode: false });
    expect(got[0]!.to_addr.toLowerCase()).toBe(email.toLowerCase());
    expect(got[0]!.text).toContain(voice.consent_url);
    expect(got[0]!.text).toContain(a.name);
  });
});

describe('the consent and GET /v1/voices/{id}', () => {
  it('complete-consent: processing, then ready and active; a receipt with the revoke link; voice.consent_completed then voice.ready', async () => {
    const a = await org();
    const { voice, email } = await requestClone(a.secret);
    const got = await (await getVoice(a.secret, voice.id)).json();
    expect(got).toEqual(voice);
    expect(got.consent_url).toBe(voice.consent_url);

    const res = await completeConsent(a.secret, voice.id);
    expect(res.status).toBe(200);
    const processing = await res.json();
    expect(processing).toMatchObject({ id: voice.id, status: 'processing', consent_url: null, kind: 'clone' });

    const ready = await untilReady(a.secret, voice.id);
    expect(ready).toMatchObject({ id: voice.id, status: 'ready', active: true, consent_url: null, person: { email: 'a***@e***.com' } });
    expect(JSON.stringify(ready).toLowerCase()).not.toContain(email.toLowerCase());

    // The receipt: the person can withdraw with its link.
    const sent = await mails(email);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.status).toBe('kept');
    expect(sent[1]!.text).toMatch(/\/consent\/revoke\/[A-Za-z0-9_-]{32}/);
    expect(sent[1]!.text).toContain(`${t.url}/consent/revoke/`);

    const events = await outbox(voice.id);
    expect(events.map((e) => e.type)).toEqual(['voice.consent_completed', 'voice.ready']);
    for (const e of events) {
      expect(e.data.object.id).toBe(voice.id);
      expect(JSON.stringify(e.data).toLowerCase()).not.toContain(email.toLowerCase());
    }

    // Once ready the helper has nothing to complete.
    await expectProblem(await completeConsent(a.secret, voice.id), 409, 'conflict');
  });

  it('complete-consent answers 501 to a live key and 404 for an unknown voice', async () => {
    const a = await org();
    const live = await org({ org: a.orgId, mode: 'live' });
    const { voice } = await requestClone(a.secret);
    await expectProblem(await completeConsent(live.secret, voice.id), 501, 'not_available_yet');
    await expectProblem(await completeConsent(a.secret, 'voice_doesNotExist123'), 404, 'not_found');
    // The voice is still awaiting consent.
    expect((await (await getVoice(a.secret, voice.id)).json()).status).toBe('awaiting_consent');
  });
});

describe('GET /v1/voices', () => {
  it("lists the organization's ready clones, the caller's own clones in every state and the added generic voices; not another key's pending clone", async () => {
    const a = await org();
    const b = await org({ org: a.orgId });
    const live = await org({ org: a.orgId, mode: 'live' });
    const { voice: aReady } = await readyClone(a.secret, { name: 'A ready' });
    const { voice: aPending } = await requestClone(a.secret, { name: 'A pending' });
    const { voice: bReady } = await readyClone(b.secret, { name: 'B ready' });
    const { voice: bPending } = await requestClone(b.secret, { name: 'B pending' });
    expect((await addGeneric(a.secret)).status).toBe(200);

    const forA = await listIds(a.secret);
    expect([...forA].sort()).toEqual([aReady.id, aPending.id, bReady.id, 'generic_EmmaEn01'].sort());
    const forB = await listIds(b.secret);
    expect([...forB].sort()).toEqual([aReady.id, bReady.id, bPending.id, 'generic_EmmaEn01'].sort());

    // Another key's clone still awaiting consent does not exist for this key.
    await expectProblem(await getVoice(b.secret, aPending.id), 404, 'not_found');
    await expectProblem(await getVoice(a.secret, bPending.id), 404, 'not_found');
    // A ready clone of the organization is visible to its other keys (without the link).
    const seen = await (await getVoice(b.secret, aReady.id)).json();
    expect(seen).toMatchObject({ id: aReady.id, status: 'ready', active: true, consent_url: null });

    // The live key of the same organization sees none of the test voices.
    expect(await listIds(live.secret)).toEqual([]);
    for (const id of [aReady.id, bReady.id, 'generic_EmmaEn01']) await expectProblem(await getVoice(live.secret, id), 404, 'not_found');
  });
});

describe('POST /v1/voices/generic', () => {
  it('adds a catalog voice: kind generic, active, the gender of the catalog; again returns the same voice', async () => {
    const a = await org();
    const catalog = await (await t.request('GET', '/v1/voices/catalog', { key: a.secret })).json();
    const emma = catalog.data.find((c: { id: string }) => c.id === 'generic_EmmaEn01');
    expect(emma).toBeDefined();

    const res = await addGeneric(a.secret);
    expect(res.status).toBe(200);
    const v = await res.json();
    expect(v).toMatchObject({ id: 'generic_EmmaEn01', kind: 'generic', active: true, gender: emma.gender, name: emma.name });
    const again = await (await addGeneric(a.secret)).json();
    expect(again).toEqual(v);
    expect(again.created_at).toBe(v.created_at);

    expect(await listIds(a.secret)).toEqual(['generic_EmmaEn01']);
    const got = await getVoice(a.secret, 'generic_EmmaEn01');
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(v);
  });

  it('answers 404 for an id not in the catalog, 400 naming voice_id for a bad id, and 403 without voices:write', async () => {
    const a = await org();
    await expectProblem(await addGeneric(a.secret, 'generic_Nobody999'), 404, 'not_found');
    await expectProblem(await addGeneric(a.secret, 'EmmaEn01'), 400, 'invalid_request', 'voice_id');
    await expectProblem(await addGeneric(a.secret, 'generic_ab'), 400, 'invalid_request', 'voice_id');
    expect(await listIds(a.secret)).toEqual([]);

    const reader = await org({ permissions: 'voices:read' });
    const res = await addGeneric(reader.secret);
    await expectProblem(res, 403, 'insufficient_scope');
    expect(res.headers.get('www-authenticate')).toContain('voices:write');
  });
});

describe('DELETE /v1/voices/{id}', () => {
  it('revokes a ready clone (voice.revoked), again changes nothing; removes a generic voice', async () => {
    const a = await org();
    const { voice } = await readyClone(a.secret);
    const res = await t.request('DELETE', `/v1/voices/${voice.id}`, { key: a.secret });
    expect(res.status).toBe(200);
    const revoked = await res.json();
    expect(revoked).toMatchObject({ id: voice.id, status: 'revoked', active: false, consent_url: null });
    expect(await (await getVoice(a.secret, voice.id)).json()).toMatchObject({ id: voice.id, status: 'revoked', active: false });
    expect((await outbox(voice.id)).map((e) => e.type)).toEqual(['voice.consent_completed', 'voice.ready', 'voice.revoked']);

    const again = await t.request('DELETE', `/v1/voices/${voice.id}`, { key: a.secret });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(revoked);
    expect((await outbox(voice.id)).filter((e) => e.type === 'voice.revoked')).toHaveLength(1);

    expect((await addGeneric(a.secret)).status).toBe(200);
    const gone = await t.request('DELETE', '/v1/voices/generic_EmmaEn01', { key: a.secret });
    expect(gone.status).toBe(200);
    expect(await gone.json()).toMatchObject({ id: 'generic_EmmaEn01', kind: 'generic', active: false });
    expect(await listIds(a.secret)).not.toContain('generic_EmmaEn01');
    await expectProblem(await getVoice(a.secret, 'generic_EmmaEn01'), 404, 'not_found');
  });

  it("answers 404 for another organization's voice on GET, DELETE and complete-consent, and leaves it alone", async () => {
    const a = await org();
    const other = await org();
    const { voice: pending } = await requestClone(a.secret);
    const { voice: ready } = await readyClone(a.secret);
    for (const v of [pending, ready]) {
      await expectProblem(await getVoice(other.secret, v.id), 404, 'not_found');
      await expectProblem(await t.request('DELETE', `/v1/voices/${v.id}`, { key: other.secret }), 404, 'not_found');
      await expectProblem(await completeConsent(other.secret, v.id), 404, 'not_found');
    }
    expect((await (await getVoice(a.secret, pending.id)).json()).status).toBe('awaiting_consent');
    expect((await (await getVoice(a.secret, ready.id)).json()).status).toBe('ready');
  });
});

describe('voice_id on agent sessions and calls', () => {
  it('joins only with a usable voice, and a revoked voice stops being used by an open session at once', async () => {
    const a = await org();
    const roomId = await room(a.secret);
    const { voice: pending } = await requestClone(a.secret);
    const { voice: ready } = await readyClone(a.secret);
    expect((await addGeneric(a.secret, 'generic_EmmaEn01')).status).toBe(200);

    await expectProblem(await join(a.secret, roomId, 'voice_nope'), 400, 'invalid_request', 'voice_id');
    await expectProblem(await join(a.secret, roomId, pending.id), 400, 'invalid_request', 'voice_id');
    await expectProblem(await join(a.secret, roomId, 'generic_OliverEn02'), 400, 'invalid_request', 'voice_id');

    const withClone = await join(a.secret, roomId, ready.id);
    expect(withClone.status, await withClone.clone().text()).toBe(201);
    const session = await withClone.json();
    for (const v of ['generic_EmmaEn01', '']) {
      const r = await join(a.secret, roomId, v);
      expect({ v, status: r.status }, await r.clone().text()).toEqual({ v, status: 201 });
    }

    const say = () => t.request('POST', `/v1/sessions/${session.id}/say`, { key: a.secret, body: { text: 'hello' } });
    const before = await say();
    expect(before.status, await before.clone().text()).toBe(202);
    expect((await before.json()).voice_id).toBe(ready.id);

    expect((await t.request('DELETE', `/v1/voices/${ready.id}`, { key: a.secret })).status).toBe(200);
    const after = await say();
    expect(after.status, await after.clone().text()).toBe(202);
    expect((await after.json()).voice_id).toBeNull();
    // And it cannot be chosen again.
    await expectProblem(await join(a.secret, roomId, ready.id), 400, 'invalid_request', 'voice_id');
  });

  it('a key restricted to some voices gets 403 voice_not_allowed for another voice', async () => {
    const r = await org({ voices: 'voice_x' });
    expect((await addGeneric(await orgKey(r.orgId), 'generic_EmmaEn01')).status).toBe(200);
    const roomId = await room(r.secret);
    await expectProblem(await join(r.secret, roomId, 'generic_EmmaEn01'), 403, 'voice_not_allowed');
  });

  it('POST /v1/calls: an unknown voice_id is a 400 naming it; a ready clone places the call, whose agent speaks with it', async () => {
    const a = await org();
    const { voice } = await readyClone(a.secret);
    await expectProblem(await placeCall(a.secret, 'voice_nope'), 400, 'invalid_request', 'voice_id');
    const res = await placeCall(a.secret, voice.id);
    expect(res.status, await res.clone().text()).toBe(201);
    const c = await res.json();
    try {
      expect(c.id).toMatch(/^call_/);
      // The Call shape (api.md) has no voice_id: the call's agent session carries it.
      const row = (await t.pool.query(`SELECT c.voice_id AS call_voice, s.voice_id AS session_voice FROM calls c JOIN agent_sessions s ON s.id = c.session_id WHERE c.id = $1`, [c.id])).rows[0];
      expect(row).toEqual({ call_voice: voice.id, session_voice: voice.id });
    } finally {
      await t.request('POST', `/v1/calls/${c.id}/hangup`, { key: a.secret });
    }
  });
});

/** Another unrestricted key of an organization. */
async function orgKey(orgId: string) {
  return (await t.key({ org: orgId, rpm: 100_000 })).secret;
}

describe('concurrency', () => {
  it('two parallel adds of the same generic voice answer the same voice, listed once', async () => {
    const a = await org();
    const [x, y] = await Promise.all([addGeneric(a.secret), addGeneric(a.secret)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const [vx, vy] = [await x.json(), await y.json()];
    expect(vx).toEqual(vy);
    expect(vx.id).toBe('generic_EmmaEn01');
    expect(await listIds(a.secret)).toEqual(['generic_EmmaEn01']);
  });

  it('two parallel DELETEs of a ready clone both answer 200 with one voice.revoked', async () => {
    const a = await org();
    const { voice } = await readyClone(a.secret);
    const results = await Promise.all([0, 1].map(() => t.request('DELETE', `/v1/voices/${voice.id}`, { key: a.secret })));
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    for (const r of results) expect(await r.json()).toMatchObject({ id: voice.id, status: 'revoked', active: false });
    expect((await outbox(voice.id)).filter((e) => e.type === 'voice.revoked')).toHaveLength(1);
  });
});
