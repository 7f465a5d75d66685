import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createEventType, createKey, createOrg } from '../../src/cli/admin.ts';
import { redactSecrets } from '../../src/http/redact.ts';

// Logs without secrets (issue 28, src/http/redact.ts): a real server process
// logging at info, every line it writes (stdout and stderr) kept, driven
// through every flow whose credential travels in a URL or a header; then the
// whole log is searched for each secret the run used.

describe('the redaction rule', () => {
  it('keeps method, path shape and parameter names; replaces tokens, query values, URL passwords and keys', () => {
    const cases: Array<[string, string]> = [
      ['/r/room_1/stream?participant=par_1&secret=s3cr3t&after=4', '/r/room_1/stream?participant=[redacted]&secret=[redacted]&after=[redacted]'],
      ['/r/room_1?t=eyJhbGciOi.abc-_', '/r/room_1?t=[redacted]'],
      ['/bookings/manage/AbC-_9/cancel', '/bookings/manage/[redacted]/cancel'],
      ['/bookings/manage/AbC-_9?done=canceled', '/bookings/manage/[redacted]?done=[redacted]'],
      ['/consent/AbC-_9/code', '/consent/[redacted]/code'],
      ['/consent/revoke/AbC-_9', '/consent/revoke/[redacted]'],
      ['/consent/assets/consent.js', '/consent/assets/consent.js'],
      ['/v1/rooms?limit=5&starting_after=room_1', '/v1/rooms?limit=[redacted]&starting_after=[redacted]'],
      ['/book/acme/intro/slots', '/book/acme/intro/slots'],
      ['smtp://mailer:hunter2@mail.example:587', 'smtp://mailer:[redacted]@mail.example:587'],
      ['Bearer sk_live_0123456789abcdefABCDEF0123456789abcdefAB', 'Bearer sk_live_[redacted]'],
      ['whsec_0a1B+c/dE=', 'whsec_[redacted]'],
      // A JSON line stays JSON: a match never runs past a quote or an escape.
      ['{"url":"/consent/tok?x=1","msg":"Route GET:/bookings/manage/tok not found\\n"}', '{"url":"/consent/[redacted]?x=[redacted]","msg":"Route GET:/bookings/manage/[redacted] not found\\n"}'],
      ['is it? yes', 'is it? yes'],
    ];
    for (const [text, redacted] of cases) {
      expect(redactSecrets(text), text).toBe(redacted);
      expect(redactSecrets(redacted), `twice: ${text}`).toBe(redacted);
    }
  });
});

describe('a full run logged at info', () => {
  let db: TestDb;
  let pool: Pool;
  let server: ServerProcess;
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
  });
  afterAll(async () => {
    await server?.kill();
    await pool?.end();
    await db?.drop();
  });

  it('has a line for every request and none of the secrets the run used', async () => {
    // An organization before the start: no first-start seeding, so every key is one this test made.
    const org = await createOrg(pool, { name: 'Log org', ownerEmail: 'owner@log.example' });
    const testKey = (await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 })).secret;
    const liveKey = (await createKey(pool, { org: org.id, mode: 'live', rpm: 100_000 })).secret;
    const page = `log-${randomBytes(3).toString('hex')}`;
    await createEventType(pool, 'http://unused.example', { org: org.id, page, slug: 'intro', title: 'Intro', tz: 'UTC', hours: 'mon-sun 00:00-24:00', duration: 30 });
    server = await startServerProcess(db.url, { LOG_LEVEL: 'info' });
    const base = server.base;
    const call = (method: string, path: string, o: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
      fetch(`${base}${path}`, {
        method,
        headers: { ...(o.key ? { authorization: `Bearer ${o.key}` } : {}), ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
    const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
    /** Every secret this run sent or received, by name. */
    const secrets: Record<string, string> = { testKey, liveKey };

    // API keys in the Authorization header, a wrong one too.
    expect((await call('GET', '/v1/me', { key: testKey })).status).toBe(200);
    expect((await call('GET', '/v1/me', { key: liveKey })).status).toBe(200);
    secrets.unknownKey = `sk_live_${randomBytes(30).toString('hex').slice(0, 40)}`;
    expect((await call('GET', '/v1/me', { key: secrets.unknownKey })).status).toBe(401);

    // A private room, its join link, joining, the stream, saying, leaving.
    const room = await (await call('POST', '/v1/rooms', { key: testKey, headers: idem(), body: { langs: ['en', 'pt'], visibility: 'private' } })).json() as { id: string };
    const linkRes = await call('POST', `/v1/rooms/${room.id}/join-links`, { key: testKey, body: { name: 'Ana', speak: 'pt', hear: 'en' } });
    expect(linkRes.status).toBe(201);
    const link = new URL(((await linkRes.json()) as { url: string }).url);
    secrets.joinToken = link.searchParams.get('t')!;
    expect((await call('GET', `${link.pathname}${link.search}`)).status).toBe(200);
    const joinRes = await call('POST', `/r/${room.id}/participants`, { body: { name: 'Ana', speak: 'pt', hear: 'en', t: secrets.joinToken } });
    expect(joinRes.status).toBe(201);
    const ana = (await joinRes.json()) as { id: string; secret: string };
    secrets.participantSecret = ana.secret;
    const streamAbort = new AbortController();
    const stream = await fetch(`${base}/r/${room.id}/stream?participant=${ana.id}&secret=${encodeURIComponent(ana.secret)}`, { signal: streamAbort.signal });
    expect(stream.status).toBe(200);
    await stream.body!.getReader().read();
    streamAbort.abort();
    expect((await call('POST', `/r/${room.id}/say`, { body: { participant: ana.id, secret: ana.secret, text: 'Bom dia' } })).status).toBe(202);
    expect((await call('POST', `/r/${room.id}/leave`, { body: { participant: ana.id, secret: ana.secret } })).status).toBe(200);

    // A booking on the public page, its manage page, calendar file, reschedule and cancel.
    expect((await call('GET', `/book/${page}/intro`)).status).toBe(200);
    const { slots } = (await (await call('GET', `/book/${page}/intro/slots`)).json()) as { slots: string[] };
    expect(slots.length).toBeGreaterThan(1);
    const bookRes = await call('POST', `/book/${page}/intro`, { body: { start: slots[0], name: 'Guest', email: 'guest@log.example', speak: 'en', tz: 'UTC' } });
    expect(bookRes.status, await bookRes.clone().text()).toBe(201);
    const manage = new URL(((await bookRes.json()) as { manage_url: string }).manage_url).pathname;
    secrets.manageToken = manage.split('/').pop()!;
    expect((await call('GET', manage)).status).toBe(200);
    expect((await call('GET', `${manage}/invite.ics`)).status).toBe(200);
    expect((await call('POST', `${manage}/reschedule`, { body: { start: slots[1] } })).status).toBe(200);
    expect((await call('GET', `${manage}?done=rescheduled`)).status).toBe(200);
    expect((await call('POST', `${manage}/cancel`)).status).toBe(200);
    // A path no route has, under a token: the 404 line too.
    expect((await call('GET', `${manage}/nothing-here`)).status).toBe(404);

    // A consent request: its page, a code, a wrong code, its status; then a revoke link.
    const voiceRes = await call('POST', '/v1/voices', {
      key: testKey, headers: idem(),
      body: { name: 'Narrator', language: 'en-US', person: { name: 'Pat', email: 'pat@log.example' } },
    });
    expect(voiceRes.status).toBe(202);
    const voice = (await voiceRes.json()) as { id: string; consent_url: string };
    const consent = new URL(voice.consent_url).pathname;
    secrets.consentToken = consent.split('/').pop()!;
    expect((await call('GET', consent)).status).toBe(200);
    expect((await call('POST', `${consent}/code`)).status).toBe(200);
    expect((await call('POST', `${consent}/verify`, { body: { code: '000000' } })).status).toBeGreaterThanOrEqual(400);
    expect((await call('GET', `${consent}/status`)).status).toBe(200);
    // The revoke link is mailed once consent is given (a recording); here the token is set directly.
    secrets.revokeToken = randomBytes(24).toString('base64url');
    await pool.query(`UPDATE voices SET revoke_token = $2 WHERE id = $1`, [voice.id, secrets.revokeToken]);
    expect((await call('GET', `/consent/revoke/${secrets.revokeToken}`)).status).toBe(200);

    // The log has a line for each of those requests, with its path's shape and status.
    const expected = [
      `/r/${room.id}?t=[redacted]`,
      `/r/${room.id}/participants`,
      `/r/${room.id}/stream?participant=[redacted]&secret=[redacted]`,
      `/r/${room.id}/say`,
      `/r/${room.id}/leave`,
      '/bookings/manage/[redacted]',
      '/bookings/manage/[redacted]/invite.ics',
      '/bookings/manage/[redacted]/reschedule',
      '/bookings/manage/[redacted]?done=[redacted]',
      '/bookings/manage/[redacted]/cancel',
      '/bookings/manage/[redacted]/nothing-here',
      '/consent/[redacted]',
      '/consent/[redacted]/code',
      '/consent/[redacted]/verify',
      '/consent/[redacted]/status',
      '/consent/revoke/[redacted]',
      '/v1/me',
    ];
    const requestUrls = () =>
      server.output().split('\n').flatMap((line) => {
        try {
          // A request's one line (http/request-log.ts).
          const o = JSON.parse(line) as { url?: string; responseTime?: number };
          return typeof o.responseTime === 'number' && o.url ? [o.url] : [];
        } catch {
          return [];
        }
      });
    await until('every request in the log', async () => expected.every((u) => requestUrls().includes(u)), { timeoutMs: 10_000, detail: () => requestUrls().join('\n') });
    expect(server.output()).toMatch(/"statusCode":404,/);

    await server.kill();
    const log = server.output();
    for (const [name, secret] of Object.entries(secrets)) {
      expect(secret.length, name).toBeGreaterThan(15);
      expect(log.includes(secret), `${name} appears in the log`).toBe(false);
    }
  }, 60_000);
});
