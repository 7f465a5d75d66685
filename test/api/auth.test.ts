import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { markNeedsReview, revokeKey, setOrg } from '../../src/cli/admin.ts';
import { until } from '../helpers/wait.ts';

// api.md section 5 (Authentication), section 7 (Errors) and section 8 (Limits), over real HTTP.

let t: TestApp;
beforeAll(async () => { t = await startTestApp(); });
afterAll(async () => { await t?.close(); });

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });
const PROBLEM_FIELDS = ['code', 'message', 'request_id', 'status', 'title', 'type'];
const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Fixed windows reset on the minute (and day): a test counting requests in one
 * window first waits out the last few seconds of the current one, so its
 * requests cannot straddle a reset. Polls the clock; bounded by `margin`.
 */
async function awayFromWindowEdge(size = MINUTE, margin = 8_000): Promise<void> {
  await until('the clock to leave the window edge', async () => size - (Date.now() % size) >= margin, { timeoutMs: margin + 5_000, intervalMs: 50 });
}

/**
 * Credential changes reach the server's cache by PostgreSQL NOTIFY, which is
 * asynchronous (src/http/credential-cache.ts; test/cli.test.ts polls the same
 * way): the first request after a change is normally already answered from the
 * new state, but may rarely (about 1 in 100 here) race the notification. Polls
 * until `done` holds for the response, for at most `timeoutMs`.
 */
async function pollResponse(what: string, send: () => Promise<TestResponse>, done: (r: TestResponse) => boolean, timeoutMs = 1000): Promise<TestResponse> {
  let last: TestResponse | undefined;
  return until(what, async () => {
    const res = (last = await send());
    if (done(res)) return res;
    await res.arrayBuffer();
    return undefined;
  }, { timeoutMs, intervalMs: 10, retryErrors: false, detail: () => `last status ${last?.status}` });
}

/** Asserts the spec's problem+json (exactly six fields) and returns it. */
async function expectProblem(res: TestResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const p = await res.json();
  expect(Object.keys(p).sort()).toEqual(PROBLEM_FIELDS);
  expect(p.code).toBe(code);
  expect(p.title).toBe(code);
  expect(p.status).toBe(status);
  expect(p.type).toMatch(new RegExp(`#${code}$`));
  expect(p.type).toMatch(new RegExp(`^https?://\\S+/docs/errors#${code}$`));
  expect(typeof p.message).toBe('string');
  expect(p.message.length).toBeGreaterThan(0);
  expect(p.request_id).toMatch(/^req_/);
  expect(res.headers.get('x-request-id')).toBe(p.request_id);
  return p;
}

function expectCommonHeaders(res: TestResponse) {
  for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
    expect(res.headers.get(h), h).toMatch(/^\d+$/);
  }
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(res.headers.get('service-version')).toBeTruthy();
}

describe('401 unauthorized', () => {
  async function expectUnauthorized(res: TestResponse) {
    const p = await expectProblem(res, 401, 'unauthorized');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expectCommonHeaders(res);
    return p;
  }

  it('answers a request without Authorization', async () => {
    await expectUnauthorized(await t.request('GET', '/v1/me'));
    await expectUnauthorized(await t.request('GET', '/v1/rooms'));
  });

  it('answers a malformed Authorization header', async () => {
    const { secret } = await t.key();
    const malformed = [
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      'Bearer',
      'Bearer ',
      `Bearer ${secret} extra`,
      secret,
      'Bearer sk_test_short',
      'Bearer not-a-key-at-all',
      `Token ${secret}`,
    ];
    for (const authorization of malformed) {
      await expectUnauthorized(await t.request('GET', '/v1/me', { headers: { authorization } }));
    }
  });

  it('answers a well-formed but unknown key', async () => {
    await expectUnauthorized(await t.request('GET', '/v1/me', { key: `sk_test_${'A1b2C3d4E5'.repeat(3)}` }));
    await expectUnauthorized(await t.request('GET', '/v1/me', { key: `sk_live_${'Z9y8X7w6V5'.repeat(3)}` }));
  });

  it('answers a revoked key', async () => {
    const { secret, keyId } = await t.key();
    await revokeKey(t.pool, keyId);
    await expectUnauthorized(await t.request('GET', '/v1/me', { key: secret }));
  });

  it('answers an expired key, and accepts one expiring in the future', async () => {
    const expired = await t.key({ expiresAt: new Date(Date.now() - 60_000).toISOString() });
    await expectUnauthorized(await t.request('GET', '/v1/me', { key: expired.secret }));
    const valid = await t.key({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await t.request('GET', '/v1/me', { key: valid.secret })).status).toBe(200);
  });

  it('revokes at once even when the credential is cached', async () => {
    const { secret, keyId } = await t.key();
    // Warm the credential cache.
    expect((await t.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
    await revokeKey(t.pool, keyId);
    const refused = await pollResponse('the revoked key to be refused', () => t.request('GET', '/v1/me', { key: secret }), (r) => r.status !== 200);
    await expectUnauthorized(refused);
    // And it stays refused, on every route.
    await expectUnauthorized(await t.request('GET', '/v1/me', { key: secret }));
    await expectUnauthorized(await t.request('GET', '/v1/rooms', { key: secret }));
  });

  it('gives each error its own request id', async () => {
    const a = await expectUnauthorized(await t.request('GET', '/v1/me'));
    const b = await expectUnauthorized(await t.request('GET', '/v1/me'));
    expect(a.request_id).not.toBe(b.request_id);
  });
});

describe('403 insufficient_scope', () => {
  it('refuses POST /v1/rooms to a key without rooms:write and names the permission', async () => {
    const { secret } = await t.key({ permissions: 'rooms:read,usage:read' });
    const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { title: 'x' } });
    const p = await expectProblem(res, 403, 'insufficient_scope');
    expect(p.message).toContain('rooms:write');
    expect(res.headers.get('www-authenticate')).toContain('rooms:write');
    expectCommonHeaders(res);
    // Nothing was created.
    const list = await (await t.request('GET', '/v1/rooms', { key: secret })).json();
    expect(list.data).toEqual([]);
  });

  it('lets GET /v1/me through with any valid credential (only usage:read)', async () => {
    const { secret, keyId } = await t.key({ permissions: 'usage:read' });
    const res = await t.request('GET', '/v1/me', { key: secret });
    expect(res.status).toBe(200);
    const me = await res.json();
    expect(JSON.stringify(me)).toContain(keyId);
    // The same key cannot list rooms.
    await expectProblem(await t.request('GET', '/v1/rooms', { key: secret }), 403, 'insufficient_scope');
  });
});

describe('403 needs_review', () => {
  it('keeps a key read-only after its creator left', async () => {
    const { secret, keyId } = await t.key();
    const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} })).json();
    expect(room.id).toMatch(/^room_/);
    await markNeedsReview(t.pool, keyId);
    // The key is cached (it just created the room); wait for the NOTIFY with a write that changes nothing.
    const refused = await pollResponse('the key to become read-only', () => t.request('DELETE', '/v1/rooms/x', { key: secret }), (r) => r.status !== 404);
    await expectProblem(refused, 403, 'needs_review');
    expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
    expect((await t.request('GET', `/v1/rooms/${room.id}`, { key: secret })).status).toBe(200);
    expect((await t.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    await expectProblem(await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: {} }), 403, 'needs_review');
    await expectProblem(await t.request('DELETE', '/v1/rooms/x', { key: secret }), 403, 'needs_review');
    await expectProblem(await t.request('DELETE', `/v1/rooms/${room.id}`, { key: secret }), 403, 'needs_review');
    // The room was not ended.
    expect((await (await t.request('GET', `/v1/rooms/${room.id}`, { key: secret })).json()).status).toBe('live');
  });
});

describe('403 organization plan and status', () => {
  const cases = [
    { opts: { plan: 'free' as const }, code: 'paid_plan_required' },
    { opts: { status: 'blocked' as const }, code: 'org_blocked' },
    { opts: { status: 'suspended' as const }, code: 'org_suspended' },
  ];
  for (const { opts, code } of cases) {
    it(`answers ${code}, and works again at once after the organization is fixed`, async () => {
      const { secret, orgId } = await t.key(opts);
      const res = await t.request('GET', '/v1/me', { key: secret });
      await expectProblem(res, 403, code);
      expectCommonHeaders(res);
      await expectProblem(await t.request('GET', '/v1/rooms', { key: secret }), 403, code);
      await setOrg(t.pool, orgId, { status: 'active', plan: 'paid' });
      const ok = await pollResponse('the key to work again', () => t.request('GET', '/v1/me', { key: secret }), (r) => r.status !== 403);
      expect(ok.status).toBe(200);
      expect((await t.request('GET', '/v1/me', { key: secret })).status).toBe(200);
      expect((await t.request('GET', '/v1/rooms', { key: secret })).status).toBe(200);
    });
  }

  it('blocks a working key at once when its organization is blocked', async () => {
    const { secret, orgId } = await t.key();
    expect((await t.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    await setOrg(t.pool, orgId, { status: 'blocked' });
    const refused = await pollResponse('the key to be refused', () => t.request('GET', '/v1/me', { key: secret }), (r) => r.status !== 200);
    await expectProblem(refused, 403, 'org_blocked');
    await expectProblem(await t.request('GET', '/v1/me', { key: secret }), 403, 'org_blocked');
  });
});

describe('403 ip_not_allowed', () => {
  it('refuses a request from outside the allow-list', async () => {
    const { secret } = await t.key({ ipAllow: '10.0.0.0/8' });
    const res = await t.request('GET', '/v1/me', { key: secret });
    const p = await expectProblem(res, 403, 'ip_not_allowed');
    expect(p.message).toContain('127.0.0.1');
    expectCommonHeaders(res);
  });

  it('allows a request from inside a CIDR range or from a listed address', async () => {
    for (const ipAllow of ['127.0.0.0/8', '127.0.0.1', '10.0.0.0/8,127.0.0.1']) {
      const { secret } = await t.key({ ipAllow });
      expect((await t.request('GET', '/v1/me', { key: secret })).status, ipAllow).toBe(200);
    }
  });

  it('does not trust X-Forwarded-For', async () => {
    const { secret } = await t.key({ ipAllow: '10.0.0.0/8' });
    const res = await t.request('GET', '/v1/me', { key: secret, headers: { 'x-forwarded-for': '10.1.2.3' } });
    await expectProblem(res, 403, 'ip_not_allowed');
  });
});

describe('rate limits', () => {
  it('allows rpm requests per minute with RateLimit headers, then 429 rate_limited with Retry-After', async () => {
    await awayFromWindowEdge();
    const { secret } = await t.key({ rpm: 5 });
    for (const remaining of [4, 3, 2, 1, 0]) {
      const res = await t.request('GET', '/v1/me', { key: secret });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('5');
      expect(res.headers.get('ratelimit-remaining')).toBe(String(remaining));
      const reset = Number(res.headers.get('ratelimit-reset'));
      expect(Number.isInteger(reset)).toBe(true);
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(60);
      expectCommonHeaders(res);
    }
    const res = await t.request('GET', '/v1/me', { key: secret });
    await expectProblem(res, 429, 'rate_limited');
    const retry = res.headers.get('retry-after');
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThan(0);
    expect(Number(retry)).toBeLessThanOrEqual(60);
    expect(res.headers.get('ratelimit-limit')).toBe('5');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).toMatch(/^\d+$/);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    expectCommonHeaders(res);
    // Still limited on the next request, on any route.
    await expectProblem(await t.request('GET', '/v1/rooms', { key: secret }), 429, 'rate_limited');
  });

  it('counts each key separately', async () => {
    await awayFromWindowEdge();
    const a = await t.key({ rpm: 1 });
    const b = await t.key({ rpm: 1 });
    expect((await t.request('GET', '/v1/me', { key: a.secret })).status).toBe(200);
    await expectProblem(await t.request('GET', '/v1/me', { key: a.secret }), 429, 'rate_limited');
    expect((await t.request('GET', '/v1/me', { key: b.secret })).status).toBe(200);
  });

  it('puts rate headers, X-Request-Id and Service-Version on every response', async () => {
    const { secret } = await t.key();
    const ok = await t.request('GET', '/v1/me', { key: secret });
    expect(ok.status).toBe(200);
    expectCommonHeaders(ok);

    const unauth = await t.request('GET', '/v1/me');
    await expectProblem(unauth, 401, 'unauthorized');
    expectCommonHeaders(unauth);

    const missing = await t.request('GET', '/v1/no-such-route', { key: secret });
    await expectProblem(missing, 404, 'not_found');
    expectCommonHeaders(missing);

    const anonymousMissing = await t.request('GET', '/nope');
    await expectProblem(anonymousMissing, 404, 'not_found');
    expectCommonHeaders(anonymousMissing);

    const bad = await t.request('GET', '/v1/rooms?limit=0', { key: secret });
    await expectProblem(bad, 400, 'invalid_request');
    expectCommonHeaders(bad);

    const noIdem = await t.request('POST', '/v1/rooms', { key: secret, body: {} });
    await expectProblem(noIdem, 400, 'idempotency_key_required');
    expectCommonHeaders(noIdem);

    const scope = await t.request('GET', '/v1/rooms', { key: (await t.key({ permissions: 'usage:read' })).secret });
    await expectProblem(scope, 403, 'insufficient_scope');
    expectCommonHeaders(scope);
  });

  it('holds the limit across server processes sharing one database', async () => {
    const db = await createTestDatabase();
    const a = await startTestApp({ db });
    const b = await startTestApp({ db });
    try {
      await awayFromWindowEdge();
      const { secret } = await a.key({ rpm: 10 });
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).request('GET', '/v1/me', { key: secret })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(10);
      for (const r of responses) {
        expect(r.headers.get('ratelimit-limit')).toBe('10');
        if (r.status === 429) {
          expect((await r.json()).code).toBe('rate_limited');
          expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        } else {
          await r.arrayBuffer();
        }
      }
      // Remaining values of the allowed requests are 9..0, each once.
      const remaining = responses.filter((r) => r.status === 200).map((r) => Number(r.headers.get('ratelimit-remaining')));
      expect(remaining.sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // Both processes now refuse the key.
      expect((await a.request('GET', '/v1/me', { key: secret })).status).toBe(429);
      expect((await b.request('GET', '/v1/me', { key: secret })).status).toBe(429);
    } finally {
      await a.close();
      await b.close();
      await db.drop();
    }
  });
});

describe('429 test_daily_limit', () => {
  const preloadDay = async (keyId: string, count: number) => {
    await t.pool.query(
      `INSERT INTO rate_limit_counters (key_id, window_kind, window_start, count) VALUES ($1, 'day', $2, $3)`,
      [keyId, new Date(Math.floor(Date.now() / DAY) * DAY), count],
    );
  };

  it('allows a test key 1,000 requests per day', async () => {
    await awayFromWindowEdge(DAY, 10_000);
    const { secret, keyId } = await t.key({ mode: 'test' });
    await preloadDay(keyId, 999);
    const last = await t.request('GET', '/v1/me', { key: secret });
    expect(last.status).toBe(200);
    const res = await t.request('GET', '/v1/me', { key: secret });
    const p = await expectProblem(res, 429, 'test_daily_limit');
    expect(p.message).toContain('1000');
    const retry = res.headers.get('retry-after');
    expect(retry).toMatch(/^\d+$/);
    expect(Number(retry)).toBeGreaterThan(0);
    expect(Number(retry)).toBeLessThanOrEqual(86_400);
    // The headers describe the day window that refused.
    expect(res.headers.get('ratelimit-limit')).toBe('1000');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(res.headers.get('ratelimit-reset')).toBe(retry);
    expectCommonHeaders(res);
  });

  it('does not apply to a live key', async () => {
    await awayFromWindowEdge(DAY, 10_000);
    const { secret, keyId } = await t.key({ mode: 'live' });
    await preloadDay(keyId, 999);
    for (let i = 0; i < 3; i++) expect((await t.request('GET', '/v1/me', { key: secret })).status).toBe(200);
  });
});
