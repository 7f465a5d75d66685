import { spawn, type ChildProcess } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildExit } from './supervisor.ts';

// The servers the service runs itself (apertium-apy, Janus): one way to start
// and stop them. A small shell runs the server in the background while this
// process lives, in a process group of its own: a service killed outright
// (kill -9) leaves no server behind (it goes within a second), and stop() ends
// the whole group (what the server started goes with it).

/** An executable on PATH, or null. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  for (const dir of (env.PATH ?? '/usr/bin:/bin').split(':')) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {
      // Not here.
    }
  }
  return null;
}

/**
 * Runs "$@" while process $1 lives. Its first line out is the server's pid; once the server has
 * ended (killed, or crashed), it ends with the server's own exit status (128+n for signal n).
 */
const WATCH = [
  'p=$1; shift',
  '"$@" & c=$!',
  'echo "$c"',
  "trap 'kill $c 2>/dev/null; exit 0' TERM INT",
  'while kill -0 "$p" 2>/dev/null && kill -0 "$c" 2>/dev/null; do sleep 1; done',
  'kill "$c" 2>/dev/null',
  'wait "$c"',
].join('\n');

export type WatchedChild = {
  child: ChildProcess;
  /** The server's own pid (what an operator would kill), once the shell said it. */
  pid: () => number | undefined;
  /** Its exit status once it has ended (-1: by a signal), else null. */
  exitCode: () => number | null;
  /** Resolves once it has ended, whoever ended it; its whole group is killed then. */
  exited: Promise<ChildExit>;
  /** The last few thousand characters it wrote on stderr, and on both (its stdout after the pid). */
  stderr: () => string;
  output: () => string;
  /** Ends its group: SIGTERM, SIGKILL after 3 s; waits for it. */
  stop: () => Promise<void>;
};

export function spawnWatched(bin: string, args: string[], o: { onLine?: (line: string) => void } = {}): WatchedChild {
  const child = spawn('sh', ['-c', WATCH, 'watch', String(process.pid), bin, ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pid: number | undefined;
  let stderr = '';
  let output = '';
  let first = true;
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (first) {
      first = false;
      pid = Number(line) || undefined;
      return;
    }
    output = (output + line + '\n').slice(-4000);
    o.onLine?.(line);
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-2000);
    output = (output + d.toString()).slice(-4000);
  });
  let code: number | null = null;
  const exited = new Promise<ChildExit>((resolve) => child.once('exit', (c, signal) => {
    code = c ?? -1;
    try { if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    resolve({ code: c, signal });
  }));
  const stop = async () => {
    if (code !== null || child.pid === undefined) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      return;
    }
    const killer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 3000);
    await gone;
    clearTimeout(killer);
  };
  return { child, pid: () => pid, exitCode: () => code, exited, stderr: () => stderr, output: () => output, stop };
}
