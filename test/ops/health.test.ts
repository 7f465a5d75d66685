import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, createTestDatabase, type TestApp, type TestDb } from '../helpers/app.ts';
import { startServerProcess, freePort, until } from '../helpers/process.ts';
import { buildApp } from '../../src/app.ts';
import { createPool } from '../../src/db/pool.ts';
import { drain } from '../../src/ops/routes.ts';
import { breakers } from '../../src/ops/metrics.ts';
import { Breaker } from '../../src/engines/breaker.ts';
import { EngineError } from '../../src/engines/errors.ts';

// GET /healthz and GET /readyz (operator.md, Health and metrics): what a load
// balancer or an orchestrator asks, without a key, in milliseconds, with
// named checks and their state in the body and nothing else.

vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('healthz and readyz', () => {
  it('healthz: 200 without a key; readyz: 200 with the database reachable and every migration applied', async () => {
    const live = await t.request('GET', '/healthz');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('answer in milliseconds, are not rate limited, and are not in the /v1 OpenAPI document', async () => {
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 50 }, () => t.request('GET', '/readyz')));
    expect(answers.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect((performance.now() - started) / 50).toBeLessThan(100);
    expect(answers[0]!.headers.get('ratelimit-limit')).toBeNull();
    const doc = await (await t.request('GET', '/v1/openapi.json')).json();
    expect(Object.keys(doc.paths).filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
  });

  it('a migration missing: not ready (migrations pending), still alive', async () => {
    const db = await createTestDatabase();
    const pool = createPool(db.url, 2);
    try {
      const { rows } = await pool.query(`DELETE FROM pgmigrations WHERE id = (SELECT max(id) FROM pgmigrations) RETURNING name`);
      expect(rows).toHaveLength(1);
      const other = await startTestApp({ db });
      try {
        const ready = await other.request('GET', '/readyz');
        expect(ready.status).toBe(503);
        expect(await ready.json()).toEqual({ status: 'not_ready', checks: { database: 'ok', migrations: 'pending' } });
        expect((await other.request('GET', '/healthz')).status).toBe(200);
      } finally {
        await other.close();
      }
    } finally {
      await pool.end();
      await db.drop();
    }
  });

  it('the database unreachable: 503 within about a second, naming the check, with no address or error text', async () => {
    const closed = await freePort();
    const pool = createPool(`postgres://postgres@127.0.0.1:${closed}/nowhere`, 2);
    // The app's listeners use the real database; its pool points at a closed port.
    const app = await buildApp({ ...t.services, pool, databaseUrl: t.db.url });
    try {
      const started = performance.now();
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(performance.now() - started).toBeLessThan(1500);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'not_ready', checks: { database: 'down', migrations: 'down' } });
      expect(res.body).not.toContain(String(closed));
      expect(res.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|postgres/);
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await pool.end();
    }
  });

  it('a process with a gateway reports it bound', async () => {
    const w = await startTestApp({ workers: true });
    try {
      const res = await w.request('GET', '/readyz');
      expect(res.status).toBe(200);
      // The gateway's speech engines are reported beside it.
      expect((await res.json()).checks).toEqual({ database: 'ok', migrations: 'ok', gateway: 'ok', engines_speech: 'ok' });
    } finally {
      await w.close();
    }
  });

  it('engines: one of a kind down is reported (degraded, still ready); every one of a kind down is not ready', async () => {
    const o = { breakerFailures: 1, breakerOpenMs: 60_000, now: Date.now };
    const first = new Breaker('translation engine first', o, { kind: 'translation', engine: 'first' });
    const second = new Breaker('translation engine second', o, { kind: 'translation', engine: 'second' });
    try {
      expect((await (await t.request('GET', '/readyz')).json()).checks.engines_translation).toBe('ok');
      first.failure(new EngineError('connection refused'));
      const one = await t.request('GET', '/readyz');
      expect(one.status).toBe(200);
      expect((await one.json()).checks.engines_translation).toBe('degraded');
      second.failure(new EngineError('connection refused'));
      const both = await t.request('GET', '/readyz');
      expect(both.status).toBe(503);
      const body = await both.json();
      expect(body).toMatchObject({ status: 'not_ready', checks: { database: 'ok', migrations: 'ok', engines_translation: 'down' } });
      expect(Object.values(body.checks).every((v) => ['ok', 'degraded', 'down', 'pending'].includes(v as string))).toBe(true);
      expect(JSON.stringify(body)).not.toContain('refused');
      second.success();
      expect((await t.request('GET', '/readyz')).status).toBe(200);
    } finally {
      breakers.delete('translation\0first');
      breakers.delete('translation\0second');
    }
  });

  it('draining: readyz 503 shutting_down while healthz and the API still answer', async () => {
    const db = await createTestDatabase();
    const d = await startTestApp({ db });
    try {
      drain(d.app);
      const ready = await d.request('GET', '/readyz');
      expect(ready.status).toBe(503);
      expect((await ready.json()).status).toBe('shutting_down');
      expect((await d.request('GET', '/healthz')).status).toBe(200);
      const { secret } = await d.key();
      expect((await d.request('GET', '/v1/me', { key: secret })).status).toBe(200);
    } finally {
      await d.close();
      await db.drop();
    }
  });
});

describe('a server process told to stop', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('answers readyz 503 first, keeps serving through TOLK_DRAIN_SECONDS, then exits; probes are not logged at info', async () => {
    const server = await startServerProcess(db.url, { TOLK_DRAIN_SECONDS: '2', LOG_LEVEL: 'info' });
    try {
      expect((await fetch(`${server.base}/readyz`)).status).toBe(200);
      const signalled = performance.now();
      server.child.kill('SIGTERM');
      const res = await until('readyz to answer 503', async () => {
        const r = await fetch(`${server.base}/readyz`);
        return r.status === 503 ? r : null;
      }, 1500);
      expect(((await res.json()) as { status: string }).status).toBe('shutting_down');
      // Still serving while the load balancer notices.
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      await server.exited;
      expect(performance.now() - signalled).toBeGreaterThanOrEqual(1900);
      expect(server.child.exitCode).toBe(0);
      // Requests are logged at info, the probes' are not (they come every few seconds from every balancer).
      expect(server.output()).toContain('/v1/openapi.json');
      expect(server.output()).not.toMatch(/\/readyz|\/healthz/);
    } finally {
      await server.kill();
    }
  });
});
