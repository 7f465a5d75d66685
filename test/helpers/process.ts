import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { until } from './wait.ts';
import { freePort } from '../../src/db/embedded.ts';

// `until` lives in wait.ts (the one poll helper) and `freePort` beside the
// embedded PostgreSQL that also needs one; re-exported for the files that import them from here.
export { until, freePort };

/** The project root, wherever the checkout is. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The node that runs src/server.ts: this one when it is Node 24 (type
 * stripping), else the project's `node` devDependency, as bin/tolk.js does.
 */
export function serverNode(): string {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  return createRequire(import.meta.url).resolve('node/bin/node');
}


export type ServerProcess = {
  child: ChildProcess;
  base: string;
  stderr: () => string;
  /** Everything it wrote, stdout (the request log) and stderr, in the order it arrived. */
  output: () => string;
  /** Its TOLK_DATA_DIR: a folder of its own, so a first start never writes into the checkout's `.data/`. */
  dataDir: string;
  exited: Promise<void>;
  kill: () => Promise<void>;
};

/** `node src/server.ts` as an operator starts it, on `databaseUrl`; resolves once it answers. */
export async function startServerProcess(databaseUrl: string, env: Record<string, string> = {}, port?: number, o: { unset?: string[] } = {}): Promise<ServerProcess> {
  port ??= await freePort();
  const base = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-data-'));
  // No translation or recognition engine unless the test names one (TOLK_TRANSLATE, TOLK_RECOGNIZE), or unsets it to test the default.
  const full: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: base, LOG_LEVEL: 'silent', TOLK_DATA_DIR: dataDir, TOLK_TRANSLATE: '', TOLK_RECOGNIZE: '', TOLK_MEDIA_SERVER: 'off', ...env };
  for (const k of o.unset ?? []) delete full[k];
  const child = spawn(serverNode(), ['src/server.ts'], {
    cwd: ROOT,
    env: full,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let output = '';
  child.stdout!.on('data', (d) => { output += d; });
  child.stderr!.on('data', (d) => { stderr += d; output += d; });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await until('the child server to answer', async () => {
    if (child.exitCode !== null) return 'exited';
    const res = await fetch(`${base}/v1/openapi.json`);
    await res.arrayBuffer();
    return res.ok && 'up';
  }, 90_000).then(
    (state) => { if (state === 'exited') throw new Error(`child server exited (${child.exitCode})`); },
  ).catch((err) => {
    child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${err.message}; child stderr: ${stderr}`);
  });
  return {
    child,
    base,
    stderr: () => stderr,
    output: () => output,
    dataDir,
    exited,
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A request to a server process with an API key; a body goes as JSON. */
export function requestTo(s: ServerProcess, secret: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A response's JSON, or an error naming its status and what it said. */
export async function jsonOf(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${res.status}: ${text}`);
  }
}
