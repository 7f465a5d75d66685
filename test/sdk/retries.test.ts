import net from 'node:net';
import { pgRelay, type PgRelay } from '../helpers/pg-relay.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { until } from '../helpers/wait.ts';
import { Tolk, TolkConnectionError, TolkInvalidRequestError, TolkNotAvailableError, TolkRateLimitError } from '../../sdk/src/index.ts';

// api.md's retry rule, as the client keeps it, against the real server:
// "retry 429 and 5xx with exponential backoff and jitter; do not retry other
// 4xx except 409 idempotency_in_progress", Retry-After honoured, and a
// create's Idempotency-Key the same on every attempt. The failures are the
// server's own: its database out of reach (503 api_disabled), its rate limit
// (429 rate_limited, test_daily_limit), a create still running under the same
// key (409 idempotency_in_progress).

vi.setConfig({ testTimeout: 60_000 });

type Attempt = { method: string; path: string; key: string | null; status: number; at: number };

/** A client whose requests are written down, with a hook that sees each answer. */
function recorded(secret: string, o: { onAnswer?: (a: Attempt) => void; baseUrl?: string } = {}) {
  const attempts: Attempt[] = [];
  const tolk = new Tolk(secret, {
    baseUrl: o.baseUrl ?? t.url,
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      const res = await fetch(input, init);
      const a = { method: init?.method ?? 'GET', path: new URL(String(input)).pathname, key: headers.get('idempotency-key'), status: res.status, at: Date.now() };
      attempts.push(a);
      o.onAnswer?.(a);
      return res;
    },
  });
  return { tolk, attempts };
}

// The service's clock: real time from today's 12:00:57 UTC on, reset by each test that needs it
// (a fixed place in the minute and the day, so Retry-After is known).
let offset = 0;
const clock = () => new Date(Date.now() + offset);
function atNoonSecond(s: number) {
  const d = new Date();
  offset = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 12, 0, s) - Date.now();
}

let db: TestDb;
let pg: PgRelay;
let t: TestApp;
let direct: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  // The app reaches its database through a relay the first test shuts: the database out of reach.
  pg = await pgRelay(db.url);
  await pg.open();
  t = await startTestApp({ db: { ...db, url: pg.url(db.url) }, clock });
  direct = createPool(db.url, 2);
});
afterAll(async () => {
  await t?.close();
  await direct?.end();
  await pg?.shut();
  await db?.drop();
});

const rooms = async (orgId: string) => (await direct.query(`SELECT count(*)::int AS n FROM rooms WHERE org_id = $1`, [orgId])).rows[0].n as number;

describe('the retry rule', () => {
  it('a 503 (the database out of reach) then 201: the create waits Retry-After, keeps its key, and makes one room', async () => {
    const { secret, orgId } = await t.key({ rpm: 100_000 });
    const { tolk, attempts } = recorded(secret, { onAnswer: (a) => { if (a.status === 503) void pg.open(); } });
    await tolk.me.retrieve();
    await pg.shut();
    const room = await tolk.rooms.create({ title: 'Survivor' });
    expect(room.title).toBe('Survivor');
    const creates = attempts.filter((a) => a.path === '/v1/rooms');
    expect(creates.map((a) => a.status)).toEqual([503, 201]);
    expect(creates[1]!.key).toBe(creates[0]!.key);
    expect(creates[0]!.key).toBe(room.lastResponse.idempotencyKey);
    // Retry-After: 2 (the service's answer while its database is away), honoured.
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(await rooms(orgId)).toBe(1);
  });

  it('a 429 with Retry-After: waited out, then the request passes in the next window', async () => {
    atNoonSecond(58);
    const { secret } = await t.key({ rpm: 1 });
    const { tolk, attempts } = recorded(secret);
    await tolk.me.retrieve();
    const list = await tolk.rooms.list();
    expect(list).toEqual([]);
    expect(attempts.map((a) => a.status)).toEqual([200, 429, 200]);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(900);
    expect(list.lastResponse.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
  });

  it('a 429 whose Retry-After is beyond a minute (a test key\'s spent day) is thrown at once', async () => {
    atNoonSecond(10);
    const { secret, keyId } = await t.key({ rpm: 100_000 });
    const day = Math.floor(clock().getTime() / 86_400_000) * 86_400_000;
    await direct.query(`INSERT INTO rate_limit_counters (key_id, window_kind, window_start, count) VALUES ($1, 'day', $2, 1000)`, [keyId, new Date(day)]);
    const { tolk, attempts } = recorded(secret);
    const err = await tolk.rooms.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TolkRateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'test_daily_limit' });
    expect((err as TolkRateLimitError).retryAfter).toBeGreaterThan(60);
    expect(attempts).toHaveLength(1);
  });

  it('a 400 and a 501 are not retried', async () => {
    const { secret, orgId } = await t.key({ rpm: 100_000 });
    const { tolk, attempts } = recorded(secret);
    const bad = await tolk.rooms.create({ title: 'x'.repeat(121) }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(TolkInvalidRequestError);
    expect(attempts.map((a) => a.status)).toEqual([400]);

    const live = await t.key({ org: orgId, mode: 'live', rpm: 100_000 });
    const liveClient = recorded(live.secret);
    const room = await liveClient.tolk.rooms.create({ title: 'Live' });
    const refused = await liveClient.tolk.sessions.join(room.id, { speak_lang: 'en', hear_lang: 'es' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TolkNotAvailableError);
    expect(refused).toMatchObject({ status: 501, code: 'not_available_yet' });
    expect(liveClient.attempts.map((a) => a.status)).toEqual([201, 501]);
  });

  it('409 idempotency_in_progress is retried with the same key, and answers the first request\'s room', async () => {
    const { secret, orgId } = await t.key({ rpm: 100_000 });
    const key = crypto.randomUUID();
    const body = { title: 'Once', langs: ['en'] };
    // Hold the rooms table, so a create with this key blocks inside its transaction, holding the key.
    const locker = await direct.connect();
    let locked = true;
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE rooms IN ACCESS EXCLUSIVE MODE');
      const first = fetch(`${t.url}/v1/rooms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'idempotency-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      await until('the first create to wait on the rooms lock', async () => {
        const { rows } = await direct.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query ILIKE '%rooms%'`, [db.name]);
        return rows.length > 0;
      });
      const release = async () => {
        if (!locked) return;
        locked = false;
        await locker.query('ROLLBACK');
      };
      // The lock goes once the client has been told the first request is still running.
      const { tolk, attempts } = recorded(secret, { onAnswer: (a) => { if (a.status === 409) void release(); } });
      const room = await tolk.rooms.create(body, { idempotencyKey: key });
      const original = (await (await first).json()) as { id: string };
      expect(attempts.map((a) => a.status)).toEqual([409, 201]);
      expect(attempts.map((a) => a.key)).toEqual([key, key]);
      expect(room.id).toBe(original.id);
      expect(room.lastResponse.idempotentReplayed).toBe(true);
      expect(await rooms(orgId)).toBe(1);
    } finally {
      if (locked) await locker.query('ROLLBACK');
      locker.release();
    }
  });

  it('no answer: a read is retried and then throws a timeout; a say, which might be done twice, is sent once', async () => {
    // A server that takes requests and never answers.
    let requests = 0;
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((c) => { sockets.add(c); c.once('data', () => requests++); c.on('error', () => {}); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
    try {
      const tolk = new Tolk('tolk_test_unused', { baseUrl: base, timeout: 300 });
      const read = await tolk.rooms.retrieve('room_x', { maxRetries: 1 }).catch((e: unknown) => e);
      expect(read).toBeInstanceOf(TolkConnectionError);
      expect(read).toMatchObject({ code: 'timeout', status: 0, request_id: null });
      expect(requests).toBe(2);
      requests = 0;
      const say = await tolk.sessions.say('ses_x', { text: 'Hello' }, { maxRetries: 2 }).catch((e: unknown) => e);
      expect(say).toMatchObject({ code: 'timeout' });
      expect(requests).toBe(1);
    } finally {
      for (const c of sockets) c.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    // A port nothing listens on: a refused connection never sent the request, so it is retried, whatever the operation.
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    let tries = 0;
    const refused = new Tolk('tolk_test_unused', { baseUrl: `http://127.0.0.1:${port}`, maxRetries: 1, fetch: (input, init) => { tries++; return fetch(input, init); } });
    const err = await refused.sessions.say('ses_x', { text: 'Hello' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TolkConnectionError);
    expect(err).toMatchObject({ code: 'connection_error', status: 0 });
    expect(tries).toBe(2);
  });
});
