import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';

// Rate limits under concurrency (src/http/rate-limit.ts): 64 connections at
// once on keys with limits from 5 to 10,000,000 a minute, in one server
// process and across two real server processes on one database. A process
// reserves budget in leases of max(1, limit/1000); the promise to a customer:
// no 429 before the requests really sent reach the limit (less at most one
// lease per process), never more than the limit, and RateLimit-Remaining
// within one lease per process of the truth.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const CONNECTIONS = 64;
const lease = (limit: number) => Math.max(1, Math.floor(limit / 1000));

type Answer = { status: number; code: string | null; remaining: number; limit: number };

/**
 * Sends `total` GET /v1/me over CONNECTIONS concurrent connections, spread
 * round-robin over the servers; resolves with every answer.
 */
async function hammer(bases: string[], secret: string, total: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const res = await fetch(`${bases[i % bases.length]}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
      const body = (await res.json()) as { code?: string };
      answers.push({
        status: res.status,
        code: res.status === 200 ? null : (body.code ?? null),
        remaining: Number(res.headers.get('ratelimit-remaining')),
        limit: Number(res.headers.get('ratelimit-limit')),
      });
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return answers;
}

const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

/** Waits until the current minute (or day) has at least `margin` ms left, so a run stays in one window. */
async function awayFromWindowEdge(size: number, margin: number): Promise<void> {
  while (size - (Date.now() % size) < margin) await new Promise((r) => setTimeout(r, 100));
}

/** Limits whose whole budget is spent in a test (the others are only started); 5,000 reserves leases of 5. */
const SPENT_LIMITS = [5, 60, 1_000, 5_000];

describe('one server process, 64 concurrent connections', () => {
  let t: TestApp;
  // A frozen clock: every request of a test falls in one minute and one day,
  // whenever the suite runs.
  let at = Date.parse('2026-11-23T12:00:20.000Z');
  beforeAll(async () => {
    t = await startTestApp({ clock: () => new Date(at) });
  });
  afterAll(async () => {
    await t?.close();
  });

  for (const limit of SPENT_LIMITS) {
    it(`rpm ${limit}: every request up to the limit is allowed, then 429 rate_limited`, async () => {
      const { secret } = await t.key({ mode: 'live', rpm: limit });
      const extra = Math.max(64, Math.ceil(limit / 20));
      const answers = await hammer([t.url], secret, limit + extra);
      const ok = count(answers, 200);
      expect(ok).toBeLessThanOrEqual(limit);
      expect(ok).toBeGreaterThanOrEqual(limit - lease(limit));
      expect(count(answers, 429)).toBe(limit + extra - ok);
      expect(answers.filter((a) => a.status === 429).every((a) => a.code === 'rate_limited' && a.remaining === 0)).toBe(true);
      expect(answers.every((a) => a.limit === limit)).toBe(true);
      // Each allowed request saw a distinct remaining value (none was counted twice).
      const remaining = answers.filter((a) => a.status === 200).map((a) => a.remaining);
      expect(new Set(remaining).size).toBe(remaining.length);
      expect(Math.min(...remaining)).toBeGreaterThanOrEqual(0);
    });
  }

  for (const limit of [1_000_000, 10_000_000]) {
    it(`rpm ${limit.toLocaleString('en')}: no 429, and RateLimit-Remaining within one lease of the truth`, async () => {
      const { secret } = await t.key({ mode: 'live', rpm: limit });
      const sent = 5_000;
      const answers = await hammer([t.url], secret, sent);
      expect(count(answers, 200)).toBe(sent);
      const probe = await t.request('GET', '/v1/me', { key: secret });
      expect(probe.status).toBe(200);
      const remaining = Number(probe.headers.get('ratelimit-remaining'));
      const truth = limit - sent - 1;
      expect(remaining).toBeLessThanOrEqual(truth);
      expect(remaining).toBeGreaterThanOrEqual(truth - lease(limit));
    });
  }

  it('rpm 20,000, 1,501 requests 32 at a time: RateLimit-Remaining is 18,499 give or take one lease', async () => {
    const { secret } = await t.key({ mode: 'live', rpm: 20_000 });
    let last: Answer | null = null;
    for (let sent = 0; sent < 1_501; sent += 32) {
      const batch = Math.min(32, 1_501 - sent);
      const answers = await Promise.all(Array.from({ length: batch }, async () => {
        const res = await t.request('GET', '/v1/me', { key: secret });
        await res.arrayBuffer();
        return { status: res.status, remaining: Number(res.headers.get('ratelimit-remaining')) };
      }));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      last = { status: 200, code: null, limit: 20_000, remaining: Math.min(...answers.map((a) => a.remaining)) };
    }
    expect(last!.remaining).toBeLessThanOrEqual(20_000 - 1_501);
    expect(last!.remaining).toBeGreaterThanOrEqual(20_000 - 1_501 - lease(20_000));
  });

  it('a test key: 1,000 requests a day, then 429 test_daily_limit, whatever its per-minute limit', async () => {
    const { secret } = await t.key({ mode: 'test', rpm: 100_000 });
    const answers = await hammer([t.url], secret, 1_100);
    expect(count(answers, 200)).toBe(1_000);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(100);
    expect(refused.every((a) => a.code === 'test_daily_limit' && a.limit === 1_000 && a.remaining === 0)).toBe(true);
  });

  it('a window boundary: the last request of a minute is refused, the first of the next is allowed with a fresh budget', async () => {
    const { secret } = await t.key({ mode: 'live', rpm: 5 });
    at = Date.parse('2026-11-23T12:05:59.500Z');
    const answers = await hammer([t.url], secret, 20);
    expect(count(answers, 200)).toBe(5);
    const refused = await t.request('GET', '/v1/me', { key: secret });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    at = Date.parse('2026-11-23T12:06:00.000Z');
    const next = await t.request('GET', '/v1/me', { key: secret });
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-remaining')).toBe('4');
    expect(next.headers.get('ratelimit-reset')).toBe('60');
    const fresh = await hammer([t.url], secret, 20);
    expect(count(fresh, 200)).toBe(4);
  });
});

describe('two server processes on one database, 64 concurrent connections', () => {
  let db: TestDb;
  let pool: pg.Pool;
  let orgId: string;
  let servers: ServerProcess[] = [];
  const bases = () => servers.map((s) => s.base);
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url, 2);
    orgId = (await createOrg(pool, { name: 'Two processes' })).id;
    servers = await Promise.all([startServerProcess(db.url), startServerProcess(db.url)]);
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.kill()));
    await pool?.end();
    await db?.drop();
  });

  for (const limit of SPENT_LIMITS) {
    it(`rpm ${limit}: the two processes together allow the limit, less at most a lease each, never more`, async () => {
      await awayFromWindowEdge(60_000, limit >= 5_000 ? 10_000 : 5_000);
      const { secret } = await createKey(pool, { org: orgId, mode: 'live', rpm: limit });
      const extra = Math.max(64, Math.ceil(limit / 20));
      const answers = await hammer(bases(), secret, limit + extra);
      const ok = count(answers, 200);
      expect(ok).toBeLessThanOrEqual(limit);
      expect(ok).toBeGreaterThanOrEqual(limit - 2 * lease(limit));
      expect(answers.filter((a) => a.status !== 200).every((a) => a.status === 429 && a.code === 'rate_limited')).toBe(true);
    });
  }

  it('rpm 1,000,000: no 429, and RateLimit-Remaining within one lease per process of the truth', async () => {
    await awayFromWindowEdge(60_000, 8_000);
    const limit = 1_000_000;
    const { secret } = await createKey(pool, { org: orgId, mode: 'live', rpm: limit });
    const sent = 4_000;
    const answers = await hammer(bases(), secret, sent);
    expect(count(answers, 200)).toBe(sent);
    for (const base of bases()) {
      const res = await fetch(`${base}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
      await res.arrayBuffer();
      const remaining = Number(res.headers.get('ratelimit-remaining'));
      expect(remaining).toBeLessThanOrEqual(limit - sent);
      expect(remaining).toBeGreaterThanOrEqual(limit - sent - 2 - 2 * lease(limit));
    }
  });

  it('a test key: 1,000 requests a day between both processes', async () => {
    await awayFromWindowEdge(86_400_000, 60_000);
    const { secret } = await createKey(pool, { org: orgId, mode: 'test', rpm: 100_000 });
    const answers = await hammer(bases(), secret, 1_100);
    expect(count(answers, 200)).toBe(1_000);
    expect(answers.filter((a) => a.status === 429).every((a) => a.code === 'test_daily_limit')).toBe(true);
  });
});
