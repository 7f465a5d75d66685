import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { until } from './wait.ts';

// A network namespace of a test's own, for what gathers every
// interface's address (WebRTC: Janus and Chromium): inside it there is only
// loopback, and a veth pair whose both ends are inside it too (10.77.0.1), as
// Janus leaves loopback out of its ICE candidates. Nothing sent there leaves
// the namespace. The test reaches what runs inside through unix sockets (a
// file is seen from both sides): HTTP through a small bridge process inside,
// and the service inside reaches PostgreSQL through a bridge of the test's.
//
// Made with util-linux's `unshare --net` (a process holds it; it goes when the
// last process inside ends) and entered with `nsenter --net`, not `ip netns`:
// that one mounts under /run/netns and remounts / as a slave, which fails in a
// chroot (CI's fresh machine) and leaves mounts behind when it does.

/** The address of the namespace's own interface (ICE candidates: Janus's and the browsers'). */
export const NETNS_ADDRESS = '10.77.0.1';
export const NETNS_INTERFACE = 'tolk0';

export type Netns = {
  name: string;
  /** A folder of the test's own (sockets, the browser wrapper). */
  dir: string;
  /** Spawns a command inside. */
  spawn: (cmd: string, args: string[], o?: { env?: NodeJS.ProcessEnv; cwd?: string }) => ChildProcess;
  /** An executable that runs Chromium inside (playwright-core's executablePath). */
  chromium: string;
  /** A PostgreSQL URL the service inside can use for `url` (through a unix socket of ours). */
  database: (url: string) => Promise<string>;
  /** HTTP to 127.0.0.1:port inside: a request through the bridge. */
  request: (port: number, method: string, p: string, o?: { headers?: Record<string, string>; body?: unknown }) => Promise<{ status: number; body: any; text: string }>;
  close: () => Promise<void>;
};

export async function createNetns(): Promise<Netns> {
  if (process.getuid?.() !== 0) throw new Error('this test makes a network namespace: run it as root (CI does)');
  const name = `tolk-${randomBytes(4).toString('hex')}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-netns-'));
  // The namespace's holder: `sleep`, exec'd by unshare inside it (same pid).
  const holder = spawn('unshare', ['--net', 'sleep', '1000000'], { stdio: 'ignore', detached: true });
  const nsPath = `/proc/${holder.pid}/ns/net`;
  await until('the namespace', async () => {
    if (holder.exitCode !== null) throw new Error('unshare --net failed (util-linux, as root)');
    try {
      return fs.readlinkSync(nsPath) !== fs.readlinkSync('/proc/self/ns/net');
    } catch {
      return false;
    }
  }, 5000);
  const ours = fs.readlinkSync(nsPath, { encoding: 'utf8' });
  const inside = (...args: string[]) => execFileSync('nsenter', [`--net=${nsPath}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    inside('ip', 'link', 'set', 'lo', 'up');
    inside('ip', 'link', 'add', NETNS_INTERFACE, 'type', 'veth', 'peer', 'name', 'tolk1');
    inside('ip', 'addr', 'add', `${NETNS_ADDRESS}/32`, 'dev', NETNS_INTERFACE);
    inside('ip', 'link', 'set', 'tolk1', 'up');
    inside('ip', 'link', 'set', NETNS_INTERFACE, 'up');
  } catch (err) {
    holder.kill('SIGKILL');
    throw new Error(`the test's network namespace could not be set up: ${String((err as { stderr?: Buffer }).stderr ?? err)}`);
  }
  const children: ChildProcess[] = [];
  const servers: net.Server[] = [];
  const run: Netns['spawn'] = (cmd, args, o = {}) => {
    const c = spawn('nsenter', [`--net=${nsPath}`, cmd, ...args], { env: o.env ?? process.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.push(c);
    return c;
  };
  const chromium = path.join(dir, 'chromium');
  fs.writeFileSync(chromium, `#!/bin/sh\nexec nsenter --net=${nsPath} /usr/bin/chromium "$@"\n`, { mode: 0o755 });

  const bridges = new Map<number, string>();
  /** A unix socket whose connections go to 127.0.0.1:port inside (a node process inside). */
  const bridge = async (port: number): Promise<string> => {
    const known = bridges.get(port);
    if (known) return known;
    const sock = path.join(dir, `http-${port}.sock`);
    const script = `require('net').createServer((c) => { const u = require('net').connect(${port}, '127.0.0.1'); c.pipe(u).pipe(c); u.on('error', () => c.destroy()); c.on('error', () => u.destroy()); }).listen(${JSON.stringify(sock)});`;
    run(process.execPath, ['-e', script]);
    await until('the namespace\'s HTTP bridge', async () => fs.existsSync(sock), 10_000);
    bridges.set(port, sock);
    return sock;
  };

  return {
    name,
    dir,
    spawn: run,
    chromium,
    database: async (url) => {
      const u = new URL(url);
      const pgPort = Number(u.port || 5432);
      const sockDir = fs.mkdtempSync(path.join(dir, 'pg-'));
      const srv = net.createServer((c) => {
        const up = net.connect(pgPort, u.hostname);
        c.pipe(up).pipe(c);
        up.on('error', () => c.destroy());
        c.on('error', () => up.destroy());
      });
      await new Promise<void>((r) => srv.listen(path.join(sockDir, `.s.PGSQL.${pgPort}`), r));
      servers.push(srv);
      const auth = u.username ? `${encodeURIComponent(decodeURIComponent(u.username))}${u.password ? `:${u.password}` : ''}@` : '';
      return `postgres://${auth}/${u.pathname.slice(1)}?host=${encodeURIComponent(sockDir)}&port=${pgPort}`;
    },
    request: async (port, method, p, o = {}) => {
      const socketPath = await bridge(port);
      const body = o.body === undefined ? undefined : JSON.stringify(o.body);
      return new Promise((resolve, reject) => {
        const req = http.request({
          socketPath, method, path: p,
          headers: { host: `127.0.0.1:${port}`, ...(body ? { 'content-type': 'application/json' } : {}), ...o.headers },
        }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => { text += d; });
          res.on('end', () => {
            let parsed: any = null;
            try { parsed = JSON.parse(text); } catch { /* not JSON */ }
            resolve({ status: res.statusCode ?? 0, body: parsed, text });
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    close: async () => {
      for (const c of children) {
        try { if (c.pid) process.kill(-c.pid, 'SIGKILL'); } catch { /* gone */ }
      }
      for (const s of servers) s.close();
      // Whatever still runs inside (a browser, Janus) goes with it, then the holder: the namespace is gone.
      for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
          if (Number(pid) !== holder.pid && fs.readlinkSync(`/proc/${pid}/ns/net`) === ours) process.kill(Number(pid), 'SIGKILL');
        } catch { /* gone, or not ours to read */ }
      }
      holder.kill('SIGKILL');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
