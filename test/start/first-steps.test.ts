import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, freePort } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';

// The README's first steps on a fresh clone, start to finish, as a person
// runs them: `git clone` of this repository into a private folder (mode 700),
// `npm start` with no DATABASE_URL (the embedded PostgreSQL), the first keys
// file, then the README's "Using the API" lines run by bash as written, and
// Ctrl-C. Once as root in a folder under /root (the usual first try on a
// fresh server) and once as a normal user in their home.
//
// `npm ci` runs in the clone as the person runs it, so node_modules (and
// PostgreSQL's programs inside it) sit in the private folder, where the
// `postgres` user cannot go. The npm cache is the runner's own for root (npm
// reads it instead of downloading again); the normal user gets a copy of it
// in their home, so neither run downloads again what the checkout's did.
// The clone is of the last commit, what a clone gets.

// It holds the real-time turn (run-order.ts) so no call's audio runs beside its `npm ci` runs, and
// yields the processor like the files that do run beside it: at nice 0 it starved them (a call in
// another file not answered in 20 s). Its own steps wait minutes, not moments.
try {
  os.setPriority(19);
} catch {
  // Refused: it runs as it is; only the other files' length changes.
}

const IS_ROOT = os.userInfo().uid === 0;
/** The normal user of the second run (as root: made when missing); else whoever runs the tests. */
const USER = IS_ROOT ? 'tolk-first-steps' : os.userInfo().username;
const cleanups: Array<() => void> = [];

afterAll(() => {
  for (const c of cleanups.reverse()) {
    try { c(); } catch { /* already gone */ }
  }
}, 240_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function sh(cmd: string, args: string[], opts: { cwd?: string } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The account's uid, gid and home, making it when missing (as root). */
function account(name: string): { uid: number; gid: number; home: string } {
  if (spawnSync('id', ['-u', name]).status !== 0) sh('useradd', ['--create-home', '--shell', '/bin/bash', name]);
  const [, , uid, gid, , home] = sh('getent', ['passwd', name]).trim().split(':');
  fs.mkdirSync(home!, { recursive: true, mode: 0o700 });
  fs.chownSync(home!, Number(uid), Number(gid));
  return { uid: Number(uid), gid: Number(gid), home: home! };
}

/** A fresh clone in a new private folder under `parent`, owned by `owner`. */
function freshClone(parent: string, owner?: { uid: number; gid: number; name?: string }): string {
  const folder = fs.mkdtempSync(path.join(parent, 'tolk-first-steps-'));
  fs.chmodSync(folder, 0o700);
  cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
  const clone = path.join(folder, 'tolk');
  sh('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone]);
  if (owner) sh('chown', ['-R', '-h', `${owner.uid}:${owner.gid}`, folder]);
  return clone;
}

type Run = { child: ChildProcess; out: () => string; exit: Promise<number | null> };

/** A command in its own process group, as a terminal runs it (`as`: run as that user). */
function run(cwd: string, as: string | null, env: Record<string, string>, ...command: string[]): Run {
  const base: NodeJS.ProcessEnv = { ...process.env, ...env };
  delete base.DATABASE_URL;
  // What `npx vitest` put there (npm_config_cache: the runner's cache, not the person's) is not in a person's shell.
  for (const k of Object.keys(base)) if (/^npm_/i.test(k)) delete base[k];
  const [file, args] = as ? ['runuser', ['-u', as, '--', ...command]] : [command[0]!, command.slice(1)];
  const child = spawn(file, args, { cwd, env: base, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d) => { out += d; });
  child.stderr!.setEncoding('utf8').on('data', (d) => { out += d; });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, exit };
}

/** The README's "Using the API" block, as written but for the port. */
function usingTheApi(clone: string, port: number): string {
  const readme = fs.readFileSync(path.join(clone, 'README.md'), 'utf8');
  const block = /## Using the API\n+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block, 'the README has a "Using the API" shell block').toBeTruthy();
  return block!.replaceAll('localhost:8080', `localhost:${port}`);
}

async function firstSteps(parent: string, as: { name: string; uid: number; gid: number; home: string } | null): Promise<void> {
  const clone = freshClone(parent, as ?? undefined);
  const port = await freePort();
  const env: Record<string, string> = {
    PORT: String(port),
    TOLK_EMBEDDED_PG_PORT: String(await freePort()),
    // Fewer things to start: no translation or recognition engine (they are not part of the first steps).
    TOLK_TRANSLATE: '',
    TOLK_RECOGNIZE: '',
    LOG_LEVEL: 'warn',
    ...(as ? { HOME: as.home, USER: as.name, LOGNAME: as.name } : {}),
  };
  // The runner's npm cache, copied for another user (npm writes to its cache, so it is not shared as is).
  const runnerCache = path.join(os.homedir(), '.npm', '_cacache');
  if (as && fs.existsSync(runnerCache) && !fs.existsSync(path.join(as.home, '.npm', '_cacache'))) {
    fs.mkdirSync(path.join(as.home, '.npm'), { recursive: true });
    sh('cp', ['-a', runnerCache, path.join(as.home, '.npm', '_cacache')]);
    sh('chown', ['-R', `${as.uid}:${as.gid}`, path.join(as.home, '.npm')]);
  }
  // The README's first command, as written: npm ci, then npm start.
  const install = run(clone, as?.name ?? null, env, 'npm', 'ci', '--no-audit', '--no-fund');
  expect(await install.exit, install.out()).toBe(0);
  expect(fs.existsSync(path.join(clone, 'node_modules/.bin/node'))).toBe(true);
  const server = run(clone, as?.name ?? null, env, 'npm', 'start');
  let cluster: string | null = null;
  cleanups.push(() => {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      try { process.kill(-server.child.pid!, 'SIGKILL'); } catch { /* gone meanwhile */ }
    }
    // A cluster the run left behind (a failed test): stop it, and remove one kept outside the clone.
    const target = cluster ?? path.join(clone, '.data/pg');
    try {
      const pid = Number(fs.readFileSync(path.join(target, 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0) {
        process.kill(pid, 'SIGQUIT');
        // Gone before its folder is removed (it writes there until it exits).
        for (let i = 0; i < 100 && alive(pid); i++) spawnSync('sleep', ['0.1']);
      }
    } catch { /* not running */ }
    if (cluster?.startsWith('/var/lib/tolk/')) fs.rmSync(path.dirname(cluster), { recursive: true, force: true });
  });

  await until('npm start to print its banner', async () => {
    if (server.child.exitCode !== null) throw new Error(`npm start exited (${server.child.exitCode}): ${server.out()}`);
    return server.out().includes('Tolk is listening') && server.out().includes('curl -s');
  }, 90_000);
  const out = server.out();
  expect(out).toContain(`Tolk is listening on http://localhost:${port}`);
  expect(out).toMatch(/first start: seeded a demo organization \(org_\w+\)/);
  const link = path.join(clone, '.data/pg');
  if (as === null && IS_ROOT) {
    // Root in a private folder: the cluster is where `postgres` can reach it, and the banner says where.
    cluster = fs.readlinkSync(link);
    expect(out).toContain(`database: embedded PostgreSQL in ${cluster} (.data/pg links there`);
    // PostgreSQL's programs too: the clone's node_modules is out of its reach, so they run from a copy.
    const postmaster = Number(fs.readFileSync(path.join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(fs.readlinkSync(`/proc/${postmaster}/exe`)).toMatch(/^\/var\/lib\/tolk\/postgresql-[^/]+\/bin\/postgres$/);
  } else {
    expect(fs.lstatSync(link).isDirectory()).toBe(true);
    expect(out).toMatch(/database: embedded PostgreSQL in \.data\/pg on 127\.0\.0\.1:\d+ \(started\)/);
  }

  // The first keys file: there, the runner's own, readable by them only; its test key is the banner's.
  const keysFile = path.join(clone, '.data/first-keys.json');
  const st = fs.statSync(keysFile);
  expect(st.mode & 0o777).toBe(0o600);
  expect(st.uid).toBe(as?.uid ?? os.userInfo().uid);
  const keys = JSON.parse(fs.readFileSync(keysFile, 'utf8')) as { test_key: string; live_key: string };
  expect(out).toContain(`test key: ${keys.test_key}`);
  const me = await fetch(`http://127.0.0.1:${port}/v1/me`, { headers: { Authorization: `Bearer ${keys.live_key}` } });
  expect(me.status).toBe(200);

  // The banner's own curl line, then the README's block by bash as written: a key from `npx tolk seed`
  // (the CLI on the same cluster), a room, its join link, /v1/me.
  const bannerCurl = /^\s*(curl -s -X POST .*)$/m.exec(out)![1]!;
  const first = run(clone, as?.name ?? null, env, 'bash', '-c', bannerCurl);
  expect(await first.exit).toBe(0);
  expect(JSON.parse(first.out())).toMatchObject({ id: expect.stringMatching(/^room_/), title: 'Hello' });

  const steps = run(clone, as?.name ?? null, env, 'bash', '-euo', 'pipefail', '-c', usingTheApi(clone, port));
  expect(await steps.exit, steps.out()).toBe(0);
  const joinLink = /"url":"(http:\/\/localhost:\d+\/r\/room_[^"]+)"/.exec(steps.out())?.[1];
  expect(joinLink, steps.out()).toBeTruthy();
  // The last line, /v1/me, answers the seeded organization.
  expect(steps.out()).toMatch(/"organization":\{"id":"org_\w+"/);
  // The join link opens the room's page.
  const page = await fetch(joinLink!.replace('localhost', '127.0.0.1'));
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);

  // Ctrl-C: the server and npm exit, and the cluster stops with its last user.
  process.kill(-server.child.pid!, 'SIGINT');
  await server.exit;
  const pidFile = path.join(cluster ?? link, 'postmaster.pid');
  await until('the cluster to stop', async () => !fs.existsSync(pidFile), 30_000);
}

describe('the README\'s first steps on a fresh clone', () => {
  it.runIf(IS_ROOT)('as root, in a private folder under /root', async () => {
    await firstSteps('/root', null);
  }, 420_000);

  it('as a normal user, in a private folder of their home', async () => {
    if (IS_ROOT) {
      const a = account(USER);
      await firstSteps(a.home, { name: USER, ...a });
    } else {
      await firstSteps(os.homedir(), null);
    }
  }, 420_000);
});
