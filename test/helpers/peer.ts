// A SIP peer from a Debian package (baresip, Kamailio) as a child of a test:
// the binary must be there (a test that cannot run must not pass by being
// skipped), it runs from a throwaway folder with its output kept, it is ready
// when its output says so, and stopping it removes the folder.

import { spawn } from 'node:child_process';
import { access, constants, rm } from 'node:fs/promises';
import { until } from './wait.ts';

/** Throws, naming the package to install, when `bin` is not an executable. */
export async function requireBinary(bin: string, pkg: string, name: string): Promise<void> {
  try {
    await access(bin, constants.X_OK);
  } catch {
    throw new Error(`${name} is not installed at ${bin}: install Debian's ${pkg} package (apt-get install ${pkg}); this test needs it`);
  }
}

export type PeerProcess = {
  /** Its output so far (stdout and stderr). */
  log(): string;
  /** Stops it (SIGTERM, then SIGKILL after 3 s) and removes its folder. Idempotent. */
  stop(): Promise<void>;
};

/**
 * Runs `bin args` and resolves once its output matches `ready`; fails at
 * once if it exits first, or after 10 s. Its folder `dir` is removed when it
 * stops, or when it fails to start.
 */
export async function startPeerProcess(o: { name: string; bin: string; args: string[]; dir: string; ready: RegExp }): Promise<PeerProcess> {
  let out = '';
  const child = spawn(o.bin, o.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { out += String(d); });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  try {
    await until(`${o.name} ready`, async () => {
      if (child.exitCode !== null) throw new Error(`${o.name} exited: ${out}`);
      return o.ready.test(out);
    }, { timeoutMs: 10_000, retryErrors: false });
  } catch (err) {
    child.kill('SIGKILL');
    await rm(o.dir, { recursive: true, force: true });
    throw err;
  }
  let stopped = false;
  return {
    log: () => out,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      await rm(o.dir, { recursive: true, force: true });
    },
  };
}
