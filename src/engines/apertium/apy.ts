import net from 'node:net';
import { Supervisor, type BackoffOptions, type ChildExit } from '../supervisor.ts';
import { findOnPath, spawnWatched } from '../watched-child.ts';

// `apertium` without a URL in TOLK_TRANSLATE: the service runs Apertium's
// HTTP server (apertium-apy, Debian's package of that name, with the pairs
// installed beside it) itself, like the embedded PostgreSQL: its own process
// group, on a free loopback port, stopped with the server. A machine without
// it gets one clear line, never a silent fallback.

/** Where Debian's pairs put their modes (apertium-eng-spa, apertium-es-pt, ...). */
export const APERTIUM_MODES = '/usr/share/apertium/modes';

/** The apertium-apy executable on PATH, or null. */
export function findApy(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  return findOnPath('apertium-apy', env);
}

/** A free loopback port, none of `avoid` (the server's own PORT, which it binds after this: it must not find it taken). */
async function freePort(avoid: readonly number[] = []): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = net.createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    if (!avoid.includes(port)) return port;
  }
}

export type ApyProcess = {
  url: string;
  /** apertium-apy's own pid (what an operator would kill), once it said it. */
  pid: number | undefined;
  /** Resolves once it has ended, whoever ended it: its exit status (128+n: signal n). */
  exited: Promise<ChildExit>;
  stop: () => Promise<void>;
};

/**
 * Starts apertium-apy on a free loopback port and waits until it lists its
 * pairs. Rejects with a sentence for the operator when it is not installed
 * or does not come up within timeoutMs.
 */
export async function startApy(o: { timeoutMs?: number; modes?: string; avoidPorts?: readonly number[]; port?: number } = {}): Promise<ApyProcess> {
  const bin = await findApy();
  if (!bin) {
    throw new Error('TOLK_TRANSLATE names apertium without a URL, and apertium-apy is not installed: install Debian\'s apertium-apy and pairs (apt-get install apertium-apy apertium-eng-spa apertium-es-pt), or give its address: TOLK_TRANSLATE=apertium=http://HOST:2737');
  }
  // The port was free when picked; another process may bind it before apertium-apy does: then another port.
  // A port asked for (the one a restarted apertium-apy had) first.
  if (o.port !== undefined) {
    try {
      return await startOn(bin, o.port, o);
    } catch (err) {
      if (!(err instanceof PortTaken)) throw err;
    }
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(bin, await freePort(o.avoidPorts), o);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 5) throw err;
    }
  }
}

class PortTaken extends Error {}

async function startOn(bin: string, port: number, o: { timeoutMs?: number; modes?: string }): Promise<ApyProcess> {
  const modes = o.modes ?? APERTIUM_MODES;
  // -j1: one HTTP process (it forks its translation pipelines per pair as they are used); -t: its own
  // per-request limit. Watched (watched-child.ts): a server killed outright (kill -9) leaves no
  // apertium-apy behind, and what apertium-apy started (its translation pipelines) goes with its group.
  const w = spawnWatched(bin, ['-p', String(port), '-j', '1', '-t', '20', modes]);
  const url = `http://127.0.0.1:${port}`;
  const { stop } = w;
  const deadline = Date.now() + (o.timeoutMs ?? 30_000);
  for (;;) {
    if (w.exitCode() !== null) {
      const last = w.stderr().trim().split('\n').pop() ?? '';
      if (/address already in use/i.test(w.stderr())) throw new PortTaken(last);
      throw new Error(`apertium-apy stopped as it started (exit ${w.exitCode()}): ${last}`);
    }
    try {
      const res = await fetch(`${url}/listPairs`, { signal: AbortSignal.timeout(1000) });
      // Answered by ours only if ours still runs (another process may hold the port).
      if (res.ok && w.exitCode() === null) return { url, get pid() { return w.pid(); }, exited: w.exited, stop };
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`apertium-apy did not answer on ${url} within ${(o.timeoutMs ?? 30_000) / 1000} s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type SupervisedApy = {
  /** Where the running apertium-apy answers now (a restarted one keeps its port when it is free). */
  url: () => string;
  /** The running apertium-apy's pid; undefined while it is being restarted. */
  pid: () => number | undefined;
  stop: () => Promise<void>;
};

/**
 * startApy(), kept running: an apertium-apy that dies (killed, crashed) is
 * logged and started again (supervisor.ts: 0.5 s doubling to 30 s), on its
 * port when still free; onDown and onUp tell the engine that uses it.
 */
export async function superviseApy(o: {
  avoidPorts?: readonly number[];
  log?: { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };
  onDown?: () => void;
  onUp?: () => void | Promise<void>;
  backoff?: BackoffOptions;
}): Promise<SupervisedApy> {
  let url = '';
  const sup = new Supervisor<ApyProcess>({
    what: 'apertium-apy',
    kind: 'translation',
    engine: 'apertium',
    start: () => startApy({ avoidPorts: o.avoidPorts ?? [], ...(url ? { port: Number(new URL(url).port) } : {}) }),
    onUp: (c, restarted) => {
      url = c.url;
      if (restarted) return o.onUp?.();
    },
    ...(o.onDown ? { onDown: o.onDown } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
  });
  const first = await sup.start();
  url = first.url;
  o.log?.info({ engine: 'apertium', pid: first.pid, url }, `apertium-apy runs (pid ${first.pid})`);
  return { url: () => url, pid: () => sup.child?.pid, stop: () => sup.stop() };
}
