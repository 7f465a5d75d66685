import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../db/embedded.ts';
import { Supervisor, type BackoffOptions, type ChildExit } from '../engines/supervisor.ts';
import { findOnPath, spawnWatched } from '../engines/watched-child.ts';

// TOLK_MEDIA_SERVER=janus (the default where Debian's `janus` is installed):
// the service runs Janus itself, as it runs apertium-apy: its own process
// group, its API (WebSockets) on a free loopback port with an api_secret of
// its own, stopped with the server, and started again if it dies
// (supervisor.ts). Only the two plugins rooms use are loaded (VideoRoom: each
// person's voice, forwarded to us as RTP; Streaming: each language's
// interpretation channel), with string ids (a Janus room is named by its
// Tolk room id) and an admin_key, so nothing but the service makes rooms or
// forwarders. Its media (ICE) uses the machine's interfaces, or only
// `ICE_ONLY` where the caller says so (tests keep it to loopback), and
// announces TOLK_MEDIA_PUBLIC_IP where set (nat_1_1_mapping).

/** Where Debian's package puts Janus's plugins and transports. */
const LIB = '/usr/lib/x86_64-linux-gnu/janus';
const PLUGINS = ['libjanus_videoroom.so', 'libjanus_streaming.so'];
const TRANSPORTS = ['libjanus_websockets.so'];

/** The janus executable on PATH, or null. */
export function findJanus(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  return findOnPath('janus', env);
}

export type JanusOptions = {
  /** Announced in Janus's candidates (TOLK_MEDIA_PUBLIC_IP). */
  publicIp?: string | undefined;
  /** Interfaces (or address prefixes) ICE may use, comma-separated; all when unset. */
  iceOnly?: string | undefined;
  /** STUN server Janus asks its own public address of ("host:port"). */
  stun?: string | undefined;
  timeoutMs?: number;
};

export type JanusProcess = {
  /** Its API, ws://127.0.0.1:PORT. */
  url: string;
  apiSecret: string;
  adminKey: string;
  /** janus's own pid, once it said it. */
  pid: number | undefined;
  exited: Promise<ChildExit>;
  stop: () => Promise<void>;
};

/** Janus's configuration files (libconfig), in a folder of their own. */
async function writeConfig(dir: string, port: number, apiSecret: string, adminKey: string, o: JanusOptions): Promise<void> {
  const q = (s: string) => JSON.stringify(s);
  const others = async (folder: string, keep: string[]) =>
    (await readdir(path.join(LIB, folder)).catch(() => [] as string[])).filter((f) => f.endsWith('.so') && !keep.includes(f)).join(',');
  const nat = [
    'nice_debug = false',
    'ignore_mdns = true',
    ...(o.iceOnly ? [`ice_enforce_list = ${q(o.iceOnly)}`] : []),
    ...(o.publicIp ? [`nat_1_1_mapping = ${q(o.publicIp)}`] : []),
    ...(o.stun ? [`stun_server = ${q(o.stun.split(':')[0]!)}`, `stun_port = ${Number(o.stun.split(':')[1] ?? 3478)}`] : []),
  ];
  await writeFile(path.join(dir, 'janus.jcfg'), `general: {
  configs_folder = ${q(dir)}
  plugins_folder = ${q(path.join(LIB, 'plugins'))}
  transports_folder = ${q(path.join(LIB, 'transports'))}
  events_folder = ${q(path.join(LIB, 'events'))}
  loggers_folder = ${q(path.join(LIB, 'loggers'))}
  debug_level = ${Number(process.env.TOLK_JANUS_DEBUG ?? 3)}
  api_secret = ${q(apiSecret)}
  session_timeout = 60
  server_name = "tolk"
}
media: {
  ipv6 = false
  no_media_timer = 2
}
nat: {
  ${nat.join('\n  ')}
}
plugins: { disable = ${q(await others('plugins', PLUGINS))} }
transports: { disable = ${q(await others('transports', TRANSPORTS))} }
events: { broadcast = false }
loggers: { disable = ${q(await others('loggers', []))} }
`);
  await writeFile(path.join(dir, 'janus.transport.websockets.jcfg'), `general: {
  json = "compact"
  ws = true
  ws_port = ${port}
  ws_ip = "127.0.0.1"
  wss = false
  ws_logging = "err,warn"
}
admin: { admin_ws = false, admin_wss = false }
`);
  // Rooms and mountpoints are made by the service alone (admin_key), named by strings, and
  // forwarders too (lock_rtp_forward): a page never talks to Janus.
  const plugin = `general: {
  admin_key = ${q(adminKey)}
  lock_rtp_forward = true
  string_ids = true
}
`;
  await writeFile(path.join(dir, 'janus.plugin.videoroom.jcfg'), plugin);
  await writeFile(path.join(dir, 'janus.plugin.streaming.jcfg'), plugin);
}

/** Starts Janus on a free loopback port and waits until its API answers; rejects with a sentence for the operator. */
export async function startJanus(o: JanusOptions = {}): Promise<JanusProcess> {
  const bin = await findJanus();
  if (!bin) throw new Error('TOLK_MEDIA_SERVER=janus, and janus is not installed: install Debian\'s janus (apt-get install janus), name one you run (TOLK_MEDIA_SERVER=janus=ws://HOST:8188), or turn voices off (TOLK_MEDIA_SERVER=off)');
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(bin, await freePort(), o);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 5) throw err;
    }
  }
}

class PortTaken extends Error {}

async function startOn(bin: string, port: number, o: JanusOptions): Promise<JanusProcess> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'tolk-janus-'));
  const apiSecret = randomBytes(18).toString('base64url');
  const adminKey = randomBytes(18).toString('base64url');
  await writeConfig(dir, port, apiSecret, adminKey, o);
  // Watched (watched-child.ts): a service killed outright leaves no Janus behind.
  const w = spawnWatched(bin, ['-F', dir, '-C', path.join(dir, 'janus.jcfg'), '--disable-colors'], {
    onLine: (line) => { if (process.env.TOLK_JANUS_DEBUG) process.stderr.write(line + '\n'); },
  });
  void w.exited.then(() => rm(dir, { recursive: true, force: true }));
  const url = `ws://127.0.0.1:${port}`;
  const { stop } = w;
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  for (;;) {
    const out = w.output();
    if (w.exitCode() !== null) {
      if (/address already in use|Error starting WebSockets server|Couldn't bind/i.test(out)) throw new PortTaken(out);
      throw new Error(`janus stopped as it started (exit ${w.exitCode()}): ${out.trim().split('\n').slice(-3).join(' / ')}`);
    }
    if (await answers(port, apiSecret)) return { url, apiSecret, adminKey, get pid() { return w.pid(); }, exited: w.exited, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`janus did not answer on ${url} within ${(o.timeoutMs ?? 20_000) / 1000} s: ${w.output().trim().split('\n').slice(-3).join(' / ')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Janus's `info` over its WebSocket API: whether ours answers there. */
async function answers(port: number, apiSecret: string): Promise<boolean> {
  const { WebSocket } = await import('ws');
  return new Promise<boolean>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, 'janus-protocol');
    const done = (ok: boolean) => { ws.removeAllListeners(); ws.on('error', () => {}); ws.terminate(); resolve(ok); };
    const timer = setTimeout(() => done(false), 1000);
    ws.once('error', () => { clearTimeout(timer); done(false); });
    ws.once('open', () => ws.send(JSON.stringify({ janus: 'info', transaction: 'up', apisecret: apiSecret })));
    ws.once('message', (m) => {
      clearTimeout(timer);
      try {
        const r = JSON.parse(String(m)) as { janus?: string; plugins?: Record<string, unknown> };
        done(r.janus === 'server_info' && Boolean(r.plugins?.['janus.plugin.videoroom']));
      } catch {
        done(false);
      }
    });
  });
}

export type SupervisedJanus = {
  current: () => JanusProcess | null;
  stop: () => Promise<void>;
};

/** startJanus(), kept running: a Janus that dies is logged and started again; its rooms' audio ends (onDown), and pages join again on the new one (onUp). */
export async function superviseJanus(o: JanusOptions & {
  log?: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };
  onDown?: () => void;
  onUp?: (j: JanusProcess) => void | Promise<void>;
  backoff?: BackoffOptions;
}): Promise<SupervisedJanus> {
  const sup = new Supervisor<JanusProcess>({
    what: 'janus',
    kind: 'media',
    engine: 'janus',
    start: () => startJanus(o),
    onUp: (c, restarted) => { if (restarted) return o.onUp?.(c); },
    ...(o.onDown ? { onDown: o.onDown } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
  });
  const first = await sup.start();
  o.log?.info({ pid: first.pid, url: first.url }, `janus runs (pid ${first.pid})`);
  return { current: () => sup.child, stop: () => sup.stop() };
}
