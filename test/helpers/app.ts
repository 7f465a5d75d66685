import type { RecognizerChain } from '../../src/engines/speech/recognizers.ts';
import { inject } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../../src/config.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { startBoss, startWorkers, type Boss, type Workers } from '../../src/jobs-registry.ts';
import { startCallGateway } from '../../src/platform.ts';
import { buildApp } from '../../src/app.ts';
import { startTranslation } from '../../src/engines/translate/index.ts';
import { startRecognizers } from '../../src/engines/speech/index.ts';
import { createKey, createOrg, type KeyOptions } from '../../src/cli/admin.ts';
import { adminQuery, withDatabase } from './pg.ts';
import { releaseDatabase } from './databases.ts';
import type { Lookup } from '../../src/webhooks/outbound.ts';
import type { Services } from '../../src/services.ts';
import type { MediaServers } from '../../src/media/servers.ts';
import { REACTIONS } from '../../src/reactions.ts';

export type TestDb = {
  name: string;
  url: string;
  /**
   * Releases the database: dropped once its file has passed, kept (and its
   * name printed on stderr) when the file failed or TOLK_TEST_KEEP_DB=1 is set
   * (see databases.ts).
   */
  drop: () => Promise<void>;
};

/** A fresh database cloned from the migrated template. */
export async function createTestDatabase(): Promise<TestDb> {
  const adminUrl = inject('adminUrl');
  const name = `tolk_t_${randomBytes(6).toString('hex')}`;
  // FILE_COPY copies the template's files as they are (after a checkpoint):
  // a tenth of the processor time of the default (WAL_LOG), which writes each
  // of its pages through the write-ahead log.
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${inject('template')} STRATEGY FILE_COPY`);
  const url = withDatabase(adminUrl, name);
  return {
    name,
    url,
    drop: () => releaseDatabase({ name, url, drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) }),
  };
}

export type TestResponse = Omit<Response, 'json'> & { json: () => Promise<any> };

export type TestApp = {
  app: FastifyInstance;
  /** Base URL of the listening server (real HTTP on 127.0.0.1). */
  url: string;
  pool: Pool;
  boss: Boss;
  db: TestDb;
  config: Config;
  reactions: Services['reactions'];
  /** fetch() against the server with optional bearer key and JSON body. */
  request: (method: string, path: string, opts?: { key?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string }) => Promise<TestResponse>;
  /** Background workers (dispatcher, delivery) when started with workers: true. */
  workers: Workers | null;
  services: Services;
  /** A new organization and key (defaults: paid, active, test mode, all permissions). */
  key: (o?: Partial<KeyOptions> & { plan?: 'paid' | 'free'; status?: 'active' | 'blocked' | 'suspended'; minutes?: number }) => Promise<{ orgId: string; keyId: string; secret: string }>;
  close: () => Promise<void>;
};

/**
 * The production app (buildApp) on its own database, listening on a random
 * port. Workers are off unless asked for, so tests drive timers themselves.
 */
export async function startTestApp(
  opts: { workers?: boolean; db?: TestDb; config?: Partial<Config>; clock?: () => Date; dnsLookup?: Lookup; recognizer?: RecognizerChain; media?: MediaServers } = {},
): Promise<TestApp> {
  const db = opts.db ?? (await createTestDatabase());
  const config = loadConfig(
    // No translation engine unless the test names one (config.translate: test/helpers/apertium.ts).
    { LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent', PORT: '0', TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', TOLK_MEDIA_SERVER: 'off' },
    // The SIP gateway on a free port: test apps run side by side.
    { databaseUrl: db.url, workers: opts.workers ?? false, sipListen: '127.0.0.1:0', ...opts.config },
  );
  const pool = createPool(db.url, 10);
  const boss = await startBoss(db.url, { workers: config.workers, monitorSeconds: config.jobMonitorSeconds, onError: () => {} });
  const translation = config.translate.length > 0 ? await startTranslation(config, { warn: () => {}, info: () => {} }) : undefined;
  // A test's own chain (engines with options TOLK_RECOGNIZE does not set), else TOLK_RECOGNIZE's.
  const recognizer = opts.recognizer ?? (config.recognize.length > 0 ? startRecognizers(config) : undefined);
  const services: Services = { config, pool, boss, reactions: REACTIONS, clock: opts.clock, dnsLookup: opts.dnsLookup, translation, recognizer, ...(opts.media ? { media: opts.media } : {}) };
  const quiet = { error: () => {}, warn: () => {}, info: () => {} };
  if (config.workers) services.gateway = await startCallGateway(services, db.url, quiet);
  const workers = config.workers ? await startWorkers(services, db.url, quiet) : null;
  const app = await buildApp({ ...services, databaseUrl: db.url });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  config.publicBaseUrl = address;
  const request: TestApp['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    return fetch(`${address}${path}`, { method, headers, body }) as never;
  };
  return {
    app,
    url: address,
    pool,
    boss,
    db,
    config,
    reactions: REACTIONS,
    request,
    key: async (o = {}) => {
      const org = await createOrg(pool, { name: 'Test org', plan: o.plan, status: o.status, minutes: o.minutes });
      const k = await createKey(pool, { mode: 'test', ...o, org: o.org ?? org.id });
      return { orgId: o.org ?? org.id, keyId: k.id, secret: k.secret };
    },
    workers,
    services,
    close: async () => {
      await services.gateway?.stop();
      await workers?.stop();
      await app.close();
      await translation?.close();
      await recognizer?.close();
      await boss.stop({ graceful: false }).catch(() => {});
      await pool.end();
      // A database passed in is the caller's to release. This one is dropped
      // once the file has passed; kept for inspection if it failed, or always
      // with TOLK_TEST_KEEP_DB=1 (TestDb.drop).
      if (!opts.db) await db.drop();
    },
  };
}
