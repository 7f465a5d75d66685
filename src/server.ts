import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadConfig, type Config } from './config.ts';
import { startPlatform, type Platform } from './platform.ts';
import { buildApp } from './app.ts';
import { drain } from './ops/routes.ts';
import { keepFirstKeys, seedIfEmpty, type Seeded } from './cli/seed.ts';
import { StartupError } from './startup.ts';
import type { Translation } from './engines/translate/index.ts';
import { baseLang } from './engines/translate/engine.ts';
import type { Pool } from './db/pool.ts';

// Listens and closes gracefully; everything else is in buildApp and startPlatform.
// A start that cannot go on says why in one line on stderr and exits 1.

function fatal(err: unknown): never {
  const sentence = err instanceof StartupError ? err.message : `could not start: ${(err as Error)?.message ?? String(err)}`;
  process.stderr.write(`tolk: ${sentence}\n`);
  if (!(err instanceof StartupError) && process.env.LOG_LEVEL === 'debug') process.stderr.write(`${(err as Error)?.stack}\n`);
  process.exit(1);
}

function listenFailure(err: NodeJS.ErrnoException, config: Config): StartupError {
  const where = `${config.host}:${config.port}`;
  if (err.code === 'EADDRINUSE') return new StartupError(`port ${config.port} is already in use (${where}); stop what holds it or set PORT to a free port`);
  if (err.code === 'EACCES') return new StartupError(`not allowed to listen on ${where}; use a PORT above 1023 or run with the right to bind it`);
  if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') return new StartupError(`HOST ${config.host} is not an address of this machine`);
  return new StartupError(`cannot listen on ${where}: ${err.message}`);
}

/**
 * The organization a restart's banner names, with why: the one whose data
 * changed last (its newest event: a room, a meeting, a key's work), which is
 * the one whose keys the person has been using and need not be the first
 * start's demo organization once `npx tolk seed` made others; else the one
 * whose keys made requests last (request_counts, by day, then by count); else
 * the one the first start seeded (its keys in first-keys.json); else the oldest.
 */
async function bannerOrg(pool: Pool, dataDir: string): Promise<{ id: string; why: string } | null> {
  const none = { rows: [] as Array<{ id: string }> };
  const changed = await pool.query(`SELECT org_id AS id FROM outbox ORDER BY created_at DESC LIMIT 1`).catch(() => none);
  if (changed.rows[0]) return { id: changed.rows[0].id, why: 'the organization whose data changed last' };
  const used = await pool.query(`SELECT org_id AS id FROM request_counts ORDER BY day DESC, requests DESC LIMIT 1`).catch(() => none);
  if (used.rows[0]) return { id: used.rows[0].id, why: 'the organization whose keys were used last' };
  const first = firstKeysOrg(dataDir);
  if (first) {
    const { rows } = await pool.query(`SELECT id FROM organizations WHERE id = $1`, [first]).catch(() => none);
    if (rows[0]) return { id: first, why: `the first start's, keys in ${shellPath(path.join(dataDir, 'first-keys.json'))}` };
  }
  const { rows } = await pool.query(`SELECT id FROM organizations ORDER BY created_at LIMIT 1`).catch(() => none);
  return rows[0] ? { id: rows[0].id, why: 'the oldest organization' } : null;
}

function firstKeysOrg(dataDir: string): string | null {
  try {
    const kept = JSON.parse(fs.readFileSync(path.join(dataDir, 'first-keys.json'), 'utf8')) as { org_id?: unknown };
    return typeof kept.org_id === 'string' ? kept.org_id : null;
  } catch {
    return null;
  }
}

/**
 * Keeps the address this server answers at in the database (settings
 * `server_base_url`), which the CLI of the same database reads when
 * PUBLIC_BASE_URL is unset, so the urls it prints (event-type create) open
 * this server, not :8080. The database rather than a file of the data folder:
 * the CLI and the server always share the database (the data folder is
 * theirs only without DATABASE_URL). The last server to start wins.
 */
async function recordBaseUrl(pool: Pool, base: string): Promise<void> {
  await pool
    .query(`INSERT INTO settings (name, value) VALUES ('server_base_url', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, [base])
    .catch(() => {});
}

/** A path as a shell command takes it: relative to here when inside, quoted when it needs to be. */
function shellPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  const p = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : path.resolve(file);
  return /^[\w./-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`;
}

/** How many characters of the live key the banner shows: `sk_live_` and four more, enough to tell keys apart. */
const LIVE_KEY_SHOWN = 12;

type FirstStart = { seeded: Seeded; kept: ReturnType<typeof keepFirstKeys> };

/** The banner's translation line: each engine and the languages it brings, or how to get one. */
function translationLine(t: Translation): string {
  if (t.engines.length === 0) return '  translation: none (install apertium-apy and its pairs, or set TOLK_TRANSLATE; README, Translation)';
  const parts = t.engines.map((e) => {
    if (!t.loaded.has(e)) return `${e.name} (not answering yet)`;
    const langs = [...new Set(e.pairs().flat().map(baseLang))].sort();
    return langs.length > 0 ? `${e.name} (${langs.join(', ')})` : e.name;
  });
  return `  translation: ${parts.join(', then ')}`;
}

function banner(base: string, database: string, first: FirstStart | null, org: { id: string; why: string } | null, translation: Translation, voices: string): string {
  const lines = [``, `Tolk is listening on ${base}`, `  API reference: ${base}/docs`, `  database: ${database}`, translationLine(translation), `  live voices in rooms: ${voices}`];
  if (first) {
    const { seeded, kept } = first;
    // The live key spends real money: the banner (terminal scrollback, CI logs) shows only its
    // beginning, and the whole key is in a file only this user can read.
    const live = `${seeded.live_key.slice(0, LIVE_KEY_SHOWN)}…`;
    lines.push(
      `  first start: seeded a demo organization (${seeded.org_id})`,
      `  test key: ${seeded.test_key}`,
      kept.error === null
        ? `  live key: ${live}   (whole key: cat ${shellPath(kept.path)})`
        : `  live key: ${live}   (not kept: cannot write ${shellPath(kept.path)}: ${kept.error}; ` +
            `make one with npx tolk key create --org ${seeded.org_id} --mode live)`,
      `  (the server stores keys only as hashes)`,
      ``,
      `  curl -s -X POST ${base}/v1/rooms -H "Authorization: Bearer ${seeded.test_key}" ` +
        `-H "Idempotency-Key: hello-1" -H "Content-Type: application/json" -d '{"title":"Hello"}'`,
    );
  } else {
    lines.push(
      org
        ? `  a test key: npx tolk key create --org ${org.id} --mode test   (${org.why}; or npx tolk seed: a new demo organization with keys)`
        : `  keys: npx tolk seed   (a demo organization with a test and a live key)`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  fatal(new StartupError((err as Error).message));
}

let platform: Platform;
try {
  platform = await startPlatform(config);
} catch (err) {
  fatal(err);
}

let app: Awaited<ReturnType<typeof buildApp>> | undefined;
let closing = false;
async function shutdown(code: number): Promise<never> {
  closing = true;
  // /readyz answers 503 first; requests keep being served while load balancers notice (TOLK_DRAIN_SECONDS).
  if (app) drain(app);
  if (app && config.drainSeconds > 0) await new Promise((r) => setTimeout(r, config.drainSeconds * 1000));
  await app?.close().catch(() => {});
  await platform.close();
  process.exit(code);
}
// A terminal's Ctrl-C reaches only this process (the embedded PostgreSQL runs
// in its own process group): close requests, jobs and pools, then the
// database if no other process uses it. The same signal often arrives twice
// (from the terminal and forwarded by npm), so repeats are ignored; a close
// that hangs is cut short after 20 s.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (closing) return;
    setTimeout(() => process.exit(1), 20_000).unref();
    void shutdown(0);
  });
}

try {
  app = await buildApp({ config, pool: platform.pool, boss: platform.boss, databaseUrl: platform.databaseUrl, gateway: platform.gateway, translation: platform.translation, recognizer: platform.recognizer, media: platform.media });
  const seeded = await seedIfEmpty(platform.pool, config);
  const first = seeded && { seeded, kept: keepFirstKeys(config.dataDir, seeded) };
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    throw listenFailure(err as NodeJS.ErrnoException, config);
  }
  const { port } = app.server.address() as AddressInfo;
  const base = config.port === port ? config.publicBaseUrl : config.publicBaseUrl.replace(/:\d+$/, `:${port}`);
  await recordBaseUrl(platform.pool, base);
  process.stderr.write(banner(base, platform.database, first, first ? null : await bannerOrg(platform.pool, config.dataDir), platform.translation, platform.media.describe()));
} catch (err) {
  closing = true;
  await app?.close().catch(() => {});
  await platform.close().catch(() => {});
  fatal(err);
}
