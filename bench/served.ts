import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../src/db/embedded.ts';
import { serverNode } from '../test/helpers/process.ts';
import { sleep } from './stats.ts';

// The platform as a client meets it, for the `served_*` targets of npm run
// bench (bench/run.ts): `node src/server.ts` in a process of its own, started
// as an operator starts it (npm start's flags; workers on, so the outbox
// dispatcher and the jobs run beside the requests; the request log at its
// default level, info, one JSON line a request into a pipe this process
// drains, as a log shipper would), on the benchmark's database. The
// `platform_*` targets measure the same app built in the bench's own process
// with workers and logs off: the cost of the routes alone, and where a CPU
// profile of them is taken.

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type Served = { url: string; pid: number; close: () => Promise<void> };

export async function startServed(databaseUrl: string, log: (m: string) => void): Promise<Served> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: url,
    TOLK_DATA_DIR: dataDir, TOLK_DRAIN_SECONDS: '0',
    // No translation or recognition engine: the routes measured use none, and loading one takes the machine for seconds.
    TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '',
  };
  // The operator's log level, whatever the shell running the bench says (BENCH_SERVED_LOG_LEVEL to compare).
  if (process.env.BENCH_SERVED_LOG_LEVEL) env.LOG_LEVEL = process.env.BENCH_SERVED_LOG_LEVEL;
  else delete env.LOG_LEVEL;
  const child = spawn(serverNode(), ['--max-semi-space-size=16', ...(process.env.BENCH_SERVED_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []), 'src/server.ts'], {
    cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let lines = 0;
  child.stdout!.on('data', (d: Buffer) => { for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) lines++; });
  child.stderr!.on('data', (d: Buffer) => { if (stderr.length < 100_000) stderr += d; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    // SIGINT: a graceful close, so a --cpu-prof in BENCH_SERVED_NODE_OPTIONS is written.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
    await Promise.race([exited, sleep(20_000)]);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
    log(`served: ${lines} lines of request log`);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the served platform exited (${child.exitCode}): ${stderr}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`the served platform did not answer in 60 s: ${stderr}`);
    }
    await sleep(200);
  }
  return { url, pid: child.pid!, close };
}
