import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { ROOT, freePort, serverNode } from '../helpers/process.ts';
import { createTestDatabase } from '../helpers/app.ts';
import { adminQuery, withDatabase } from '../helpers/pg.ts';
import { until } from '../helpers/wait.ts';
import { ensureEmbeddedPostgres } from '../../src/db/embedded.ts';
import { binaries, runAs } from '../../src/db/pg-ctl.ts';
import { runnableBinaries } from '../../src/db/cluster-home.ts';

// `npm start` as a new user meets it: the real server as a process, in a
// folder of its own (a clone), with the embedded PostgreSQL of that folder.
// Each server runs in its own process group, as under a terminal, so a
// "Ctrl-C" is a SIGINT to the whole group.

const SERVER = path.join(ROOT, 'src/server.ts');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-start-'));
// As root the cluster runs as `postgres`, which must be able to enter the clones.
fs.chmodSync(tmp, 0o755);
const running = new Set<Server>();

type Server = {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  /** Exit code once exited. */
  exit: Promise<number | null>;
  /** The signal to the whole process group, as a terminal's Ctrl-C sends it. */
  ctrlC: () => void;
};

function launch(cwd: string, env: Record<string, string>): Server {
  const port = env.PORT ?? '0';
  const child = spawn(serverNode(), [SERVER], {
    cwd,
    detached: true,
    env: { ...process.env, DATABASE_URL: '', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env, PORT: port },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const s: Server = {
    child,
    base: `http://127.0.0.1:${port}`,
    stderr: () => stderr,
    exit,
    ctrlC: () => process.kill(-child.pid!, 'SIGINT'),
  };
  running.add(s);
  void exit.then(() => running.delete(s));
  return s;
}

/** A server started in `cwd` that answers; its banner has been printed. */
async function start(cwd: string, env: Record<string, string> = {}): Promise<Server> {
  const port = String(await freePort());
  const s = launch(cwd, { PORT: port, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env });
  await until('the server to print its banner', async () => {
    if (s.child.exitCode !== null) throw new Error(`the server exited (${s.child.exitCode}): ${s.stderr()}`);
    return s.stderr().includes('Tolk is listening') && 'up';
  }, 60_000);
  return s;
}

/** A start that must fail: its exit code and what it printed. */
async function failedStart(cwd: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const s = launch(cwd, env);
  const code = await Promise.race([s.exit, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  if (code === 'hung') {
    s.child.kill('SIGKILL');
    throw new Error(`the start did not fail: ${s.stderr()}`);
  }
  return { code, stderr: s.stderr() };
}

function clone(name: string, mode = 0o755): string {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true, mode });
  return dir;
}

const bannerLine = (s: Server, label: string) => s.stderr().split('\n').find((l) => l.trim().startsWith(`${label}:`))?.trim();
const testKey = (s: Server) => /test key: (sk_test_\S+)/.exec(s.stderr())?.[1];
const pidFile = (cwd: string) => path.join(cwd, '.data/pg/postmaster.pid');
const clusterPid = (cwd: string) => {
  try {
    return Number(fs.readFileSync(pidFile(cwd), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
};
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const me = (s: Server, key: string) => fetch(`${s.base}/v1/me`, { headers: { Authorization: `Bearer ${key}` } });
const noStackTrace = (text: string) => expect(text).not.toMatch(/^\s+at .+\(.+:\d+:\d+\)$|Unhandled|node:internal|Error:/m);

afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all([...running].map((s) => s.exit));
  // Whatever cluster a failed test left: stop it, then remove the folders.
  for (const name of fs.readdirSync(tmp)) {
    const pid = clusterPid(path.join(tmp, name));
    if (pid && alive(pid)) process.kill(pid, 'SIGQUIT');
  }
  fs.rmSync(tmp, { recursive: true, force: true });
}, 60_000);

describe('the embedded PostgreSQL belongs to its data folder', () => {
  it('two clones on one default port each get their own cluster, keys and banner', async () => {
    const pgPort = String(await freePort());
    const a = await start(clone('clone-a'), { TOLK_EMBEDDED_PG_PORT: pgPort });
    const b = await start(clone('clone-b'), { TOLK_EMBEDDED_PG_PORT: pgPort });

    // One line each says which database it uses; the second clone found the port taken and used another.
    expect(bannerLine(a, 'database')).toBe(`database: embedded PostgreSQL in .data/pg on 127.0.0.1:${pgPort} (started)`);
    expect(bannerLine(b, 'database')).toMatch(/^database: embedded PostgreSQL in \.data\/pg on 127\.0\.0\.1:\d+ \(started\)$/);
    expect(bannerLine(b, 'database')).not.toContain(`:${pgPort} `);
    expect(fs.existsSync(path.join(tmp, 'clone-b/.data/pg/PG_VERSION'))).toBe(true);

    // Each seeded its own organization: a key of one is unknown to the other.
    const keyA = testKey(a)!;
    const keyB = testKey(b)!;
    expect(keyA).toMatch(/^sk_test_/);
    expect(keyB).toMatch(/^sk_test_/);
    expect((await me(a, keyA)).status).toBe(200);
    expect((await me(b, keyB)).status).toBe(200);
    expect((await me(b, keyA)).status).toBe(401);
    expect((await me(a, keyB)).status).toBe(401);

    for (const s of [a, b]) {
      expect(bannerLine(s, 'API reference')).toBe(`API reference: ${s.base}/docs`);
      expect(s.stderr()).toContain(`Tolk is listening on ${s.base}`);
      s.ctrlC();
      expect(await s.exit).toBe(0);
    }
  }, 120_000);

  it('servers of one folder share its cluster: Ctrl-C stops one cleanly, the cluster stays while another runs, and the last one out stops it', async () => {
    const cwd = clone('shared');
    const pgPort = String(await freePort());
    const first = await start(cwd, { TOLK_EMBEDDED_PG_PORT: pgPort });
    const key = testKey(first)!;
    const second = await start(cwd, { TOLK_EMBEDDED_PG_PORT: pgPort });
    expect(bannerLine(second, 'database')).toBe(`database: embedded PostgreSQL in .data/pg on 127.0.0.1:${pgPort} (already running)`);
    // Every start, not only the first, says how to get a key.
    expect(second.stderr()).toMatch(/npx tolk key create --org org_\w+ --mode test/);
    expect(testKey(second)).toBeUndefined();

    const cluster = clusterPid(cwd)!;
    first.ctrlC();
    expect(await first.exit).toBe(0);
    noStackTrace(first.stderr());
    // The cluster was not in the server's process group, and another server still uses it.
    expect(alive(cluster)).toBe(true);
    for (let i = 0; i < 5; i++) expect((await me(second, key)).status).toBe(200);

    second.ctrlC();
    expect(await second.exit).toBe(0);
    noStackTrace(second.stderr());
    await until('the cluster to stop with its last server', async () => !alive(cluster) && !fs.existsSync(pidFile(cwd)), 20_000);
  }, 120_000);

  it('a cluster orphaned by kill -9 of its server is found and reused by the next start', async () => {
    const cwd = clone('orphan');
    const pgPort = String(await freePort());
    const first = await start(cwd, { TOLK_EMBEDDED_PG_PORT: pgPort });
    const key = testKey(first)!;
    first.child.kill('SIGKILL');
    await first.exit;
    const cluster = clusterPid(cwd)!;
    expect(alive(cluster)).toBe(true);

    const next = await start(cwd, { TOLK_EMBEDDED_PG_PORT: pgPort });
    expect(bannerLine(next, 'database')).toBe(`database: embedded PostgreSQL in .data/pg on 127.0.0.1:${pgPort} (already running)`);
    expect(clusterPid(cwd)).toBe(cluster);
    expect((await me(next, key)).status).toBe(200);
    next.ctrlC();
    expect(await next.exit).toBe(0);
    await until('the reused cluster to stop with its last server', async () => !alive(cluster), 20_000);
  }, 120_000);

  it('a cluster stopped under a running server: 503 with Retry-After meanwhile, never a 500, and the server starts it again', async () => {
    const cwd = clone('vanish');
    const s = await start(cwd, { TOLK_EMBEDDED_PG_PORT: String(await freePort()) });
    const key = testKey(s)!;
    const cluster = clusterPid(cwd)!;
    // Stopped from outside, at once (as a crash or an operator would).
    process.kill(cluster, 'SIGQUIT');
    const seen = new Set<number>();
    await until('the server to answer again after restarting its cluster', async () => {
      const res = await me(s, key);
      const body = (await res.json()) as { code: string };
      seen.add(res.status);
      if (res.status === 503) {
        expect(body.code).toBe('api_disabled');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      return res.status === 200 && clusterPid(cwd) !== cluster;
    }, 30_000);
    expect([...seen].filter((x) => x !== 200 && x !== 503)).toEqual([]);
    noStackTrace(s.stderr());
    s.ctrlC();
    expect(await s.exit).toBe(0);
  }, 120_000);
});

describe('a DATABASE_URL that goes away', () => {
  it('answers 503 with Retry-After while it is down and reconnects by itself', async () => {
    const dataDir = path.join(clone('external'), 'db');
    const port = await freePort();
    const db = await ensureEmbeddedPostgres(dataDir, port, () => {}, { restart: false });
    const pgCtl = async (...args: string[]) => {
      // The programs the cluster runs from (a copy under /var/lib/tolk when `postgres` cannot reach node_modules).
      const found = await binaries();
      const who = runAs();
      const bin = runnableBinaries(found, who, found.version, () => {});
      const r = spawnSync(bin.pg_ctl, [...args, '-D', db.dir], { uid: who.uid, gid: who.gid, detached: true, stdio: 'ignore' } as never);
      expect(r.status).toBe(0);
    };
    const s = await start(clone('external-server'), { DATABASE_URL: db.url });
    expect(bannerLine(s, 'database')).toBe(`database: postgres://tolk@127.0.0.1:${port}/tolk (DATABASE_URL)`);
    const key = testKey(s)!;
    expect((await me(s, key)).status).toBe(200);

    await pgCtl('stop', '-w', '-m', 'immediate');
    for (let i = 0; i < 3; i++) {
      const res = await me(s, key);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(((await res.json()) as { code: string }).code).toBe('api_disabled');
    }
    await pgCtl('start', '-w', '-l', path.join(db.dir, 'postgresql.log'), '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''`);
    await until('the server to reconnect by itself', async () => (await me(s, key)).status === 200, 20_000);
    s.ctrlC();
    expect(await s.exit).toBe(0);
    noStackTrace(s.stderr());
    await db.stop();
  }, 120_000);
});

describe('a start that cannot go on says why in one line and exits non-zero', () => {
  const oneLine = (r: { code: number | null; stderr: string }, pattern: RegExp) => {
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(pattern);
    noStackTrace(r.stderr);
  };

  it('a busy API port', async () => {
    const db = await createTestDatabase();
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const port = (holder.address() as net.AddressInfo).port;
    try {
      oneLine(await failedStart(clone('busy'), { DATABASE_URL: db.url, PORT: String(port) }), new RegExp(`^tolk: port ${port} is already in use .*set PORT to a free port$`));
    } finally {
      holder.close();
      await db.drop();
    }
  }, 60_000);

  it('a DATABASE_URL where nothing listens, and one that is not a URL', async () => {
    const port = await freePort();
    oneLine(await failedStart(clone('bad-url'), { DATABASE_URL: `postgres://tolk:secret@127.0.0.1:${port}/tolk` }),
      new RegExp(`^tolk: cannot connect to DATABASE_URL \\(postgres://tolk@127\\.0\\.0\\.1:${port}/tolk\\): ECONNREFUSED`));
    const notUrl = await failedStart(clone('bad-url'), { DATABASE_URL: 'not a url' });
    oneLine(notUrl, /^tolk: invalid environment: DATABASE_URL: must be a PostgreSQL URL/);
    expect(notUrl.stderr).not.toContain('secret');
  }, 60_000);

  it('a migration that fails', async () => {
    // An empty database where a table of the first migration already exists, made by someone else.
    const adminUrl = inject('adminUrl');
    const name = `tolk_t_migfail_${process.pid}`;
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name}`);
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    const url = withDatabase(adminUrl, name);
    await adminQuery(url, `CREATE TABLE organizations (something_else int)`);
    try {
      oneLine(await failedStart(clone('migration'), { DATABASE_URL: url, PORT: String(await freePort()) }),
        /^tolk: database migration failed on DATABASE_URL \(.*\): .*organizations.* already exists/);
    } finally {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  }, 60_000);

  it('an environment variable out of range', async () => {
    oneLine(await failedStart(clone('bad-env'), { PORT: 'eighty' }), /^tolk: invalid environment: PORT: /);
  }, 60_000);

});

describe('a clone in a private folder', () => {
  /** `node bin/tolk.js ...` run in `cwd`, as an operator runs the CLI there. */
  const cli = (cwd: string, ...args: string[]) => {
    const r = spawnSync(serverNode(), [path.join(ROOT, 'bin/tolk.js'), ...args], {
      cwd, encoding: 'utf8', env: { ...process.env, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    });
    return { code: r.status, json: JSON.parse(r.stdout || '{}') as Record<string, unknown>, stderr: r.stderr };
  };

  it(os.userInfo().uid === 0
    ? 'as root: the cluster lives under /var/lib/tolk, linked from .data/pg and named by the banner; the CLI of the folder shares it, a copy of the folder gets its own'
    : 'as a normal user: the cluster runs as this user, in the folder', async () => {
    const privateDir = clone('private/home', 0o700);
    fs.chmodSync(path.dirname(privateDir), 0o700);
    const before = new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('pg-password-')));
    const homes = new Set<string>();
    const cleanup = () => {
      for (const home of homes) {
        const pid = (() => {
          try { return Number(fs.readFileSync(path.join(home, 'pg/postmaster.pid'), 'utf8').split('\n')[0]); } catch { return null; }
        })();
        if (pid && alive(pid)) {
          process.kill(pid, 'SIGQUIT');
          // Gone before its folder is removed (it writes there until it exits).
          for (let i = 0; i < 100 && alive(pid); i++) spawnSync('sleep', ['0.1']);
        }
        fs.rmSync(home, { recursive: true, force: true });
      }
    };
    try {
      const s = await start(privateDir, { TOLK_EMBEDDED_PG_PORT: String(await freePort()) });
      expect((await me(s, testKey(s)!)).status).toBe(200);
      const link = path.join(privateDir, '.data/pg');
      if (os.userInfo().uid === 0) {
        // The postgres user cannot enter the folder: the cluster is kept where it can, and the banner says where and why.
        const target = fs.readlinkSync(link);
        homes.add(path.dirname(target));
        expect(target).toMatch(/^\/var\/lib\/tolk\/[0-9a-f]{16}\/pg$/);
        expect(bannerLine(s, 'database')).toMatch(new RegExp(
          `^database: embedded PostgreSQL in ${target} \\(\\.data/pg links there: the postgres user it runs as cannot enter ${path.dirname(privateDir)}\\) on 127\\.0\\.0\\.1:\\d+ \\(started\\)$`,
        ));
        expect(fs.readFileSync(path.join(path.dirname(target), 'data-folder'), 'utf8').trim()).toBe(path.join(privateDir, '.data'));
        expect(fs.statSync(target).uid).toBe(Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout));

        // The CLI of the folder uses the same cluster: a key it makes works on the server.
        const org = /first start: seeded a demo organization \((org_\w+)\)/.exec(s.stderr())![1]!;
        const made = cli(privateDir, 'key', 'create', '--org', org, '--mode', 'test');
        expect(made.code, made.stderr).toBe(0);
        expect((await me(s, made.json.secret as string)).status).toBe(200);

        // A copy of the folder (its link included) gets a cluster of its own: two clones never share one.
        const copy = path.join(path.dirname(privateDir), 'copy');
        expect(spawnSync('cp', ['-a', privateDir, copy]).status).toBe(0);
        const c = await start(copy, { TOLK_EMBEDDED_PG_PORT: String(await freePort()) });
        const copyTarget = fs.readlinkSync(path.join(copy, '.data/pg'));
        homes.add(path.dirname(copyTarget));
        expect(copyTarget).not.toBe(target);
        expect(bannerLine(c, 'database')).toContain(`in ${copyTarget} `);
        expect(testKey(c)).toMatch(/^sk_test_/);
        expect((await me(c, testKey(s)!)).status).toBe(401);
        // The original still links to its own cluster.
        expect(fs.readlinkSync(link)).toBe(target);
        c.ctrlC();
        expect(await c.exit).toBe(0);

        s.ctrlC();
        expect(await s.exit).toBe(0);
        await until('the cluster to stop with its server', async () => !fs.existsSync(path.join(target, 'postmaster.pid')), 20_000);

        // Removing .data starts over, as with a cluster kept inside: a new cluster, a new first start.
        fs.rmSync(path.join(privateDir, '.data'), { recursive: true });
        const again = await start(privateDir, { TOLK_EMBEDDED_PG_PORT: String(await freePort()) });
        expect(bannerLine(again, 'database')).toContain(`in ${target} `);
        expect(testKey(again)).toMatch(/^sk_test_/);
        expect((await me(again, testKey(s)!)).status).toBe(401);
        again.ctrlC();
        expect(await again.exit).toBe(0);
      } else {
        expect(fs.lstatSync(link).isDirectory()).toBe(true);
        s.ctrlC();
        expect(await s.exit).toBe(0);
      }
      // No password file anywhere.
      const after = fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('pg-password-') && !before.has(f));
      expect(after).toEqual([]);
      for (const f of fs.readdirSync(path.join(tmp, 'private'), { recursive: true }) as string[]) {
        expect(path.basename(f)).not.toMatch(/password/);
      }
      for (const home of homes) {
        for (const f of fs.readdirSync(home)) expect(f).not.toMatch(/password/);
      }
    } finally {
      cleanup();
    }
  }, 180_000);
});

describe('the first start keeps the live key out of the banner', () => {
  it('shows the live key as a prefix and keeps the whole key in .data/first-keys.json, readable by its owner only', async () => {
    const db = await createTestDatabase();
    const s = await start(clone('first-keys'), { DATABASE_URL: db.url });
    const live = bannerLine(s, 'live key')!;
    expect(live).toMatch(/^live key: sk_live_\w{4}… {3}\(whole key: cat \.data\/first-keys\.json\)$/);
    const file = path.join(tmp, 'first-keys/.data/first-keys.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { org_id: string; test_key: string; live_key: string };
    expect(kept.live_key).toMatch(/^sk_live_\w{40}$/);
    expect(live).toContain(`${kept.live_key.slice(0, 12)}…`);
    expect(s.stderr()).not.toContain(kept.live_key);
    // The test key stays whole in the banner and its curl line (the README's first steps use it).
    expect(testKey(s)).toBe(kept.test_key);
    expect(s.stderr()).toContain(`Authorization: Bearer ${kept.test_key}`);
    expect(s.stderr()).toContain(`first start: seeded a demo organization (${kept.org_id})`);
    expect((await me(s, kept.live_key)).status).toBe(200);
    s.ctrlC();
    expect(await s.exit).toBe(0);
    await db.drop();
  }, 60_000);

  it('a data folder it cannot write: the banner says how to make a live key instead', async () => {
    const db = await createTestDatabase();
    const cwd = clone('first-keys-read-only');
    // A file where the folder should be: not writable even as root.
    fs.writeFileSync(path.join(cwd, 'not-a-folder'), '');
    const s = await start(cwd, { DATABASE_URL: db.url, TOLK_DATA_DIR: 'not-a-folder/data' });
    const org = /first start: seeded a demo organization \((org_\w+)\)/.exec(s.stderr())?.[1];
    expect(org).toBeTruthy();
    expect(bannerLine(s, 'live key')).toBe(
      `live key: ${/live key: (sk_live_\w{4}…)/.exec(s.stderr())![1]}   (not kept: cannot write not-a-folder/data/first-keys.json: ENOTDIR; ` +
        `make one with npx tolk key create --org ${org} --mode live)`,
    );
    expect(s.stderr()).not.toMatch(/sk_live_\w{5}/);
    s.ctrlC();
    expect(await s.exit).toBe(0);
    await db.drop();
  }, 60_000);
});
