import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { CATALOG, MODEL_NAME, type ModelEntry, type ModelFile } from './catalog.ts';
import { DOWNLOADS, hiddenBeside, MANIFEST, ModelError } from './store.ts';
import { processAlive } from '../../process-alive.ts';

// `npx tolk models pull NAME...`: each model's files downloaded from where
// its publisher serves them (or TOLK_MODELS_MIRROR, a copy an operator
// serves inside their network), into DIR/downloads/NAME/, where an
// interrupted download stays to be resumed (an HTTP Range request from where
// it stopped; a server that ignores ranges sends it whole again). A
// connection cut midway is resumed at once, a few times. Each file is hashed
// once whole, and one whose SHA-256 is not the catalog's is deleted and
// nothing is installed. Only then is the model put together in a hidden
// folder beside the others and renamed into place: a process reading the
// models sees the model whole or not at all, the old one until then.
//
// A machine that cannot reach the address at all (no route, no name, refused)
// fails at once, with one sentence naming the address and saying how to copy
// the files in by hand: into the same downloads folder, where `pull` checks
// and installs them without the network.

export type PullProgress = { model: string; file: string; received: number; total: number };

export type PullOptions = {
  /** TOLK_MODELS_DIR. */
  dir: string;
  catalog?: readonly ModelEntry[];
  /** A base URL serving `NAME/FILE` for every file of the catalog (TOLK_MODELS_MIRROR). */
  mirror?: string;
  onProgress?: (p: PullProgress) => void;
  /** How many times a download cut midway is resumed before pull gives up (default 3). */
  resumes?: number;
  /** What an engine makes of a model's files once they are checked, in the folder being installed (prepare.ts). */
  prepare?: (m: ModelEntry, folder: string) => Promise<void>;
};

/** Where a file of a model is fetched from. */
export function addressOf(m: ModelEntry, f: ModelFile, mirror?: string): string {
  return mirror ? `${mirror.replace(/\/+$/, '')}/${m.name}/${downloadName(f)}` : f.url;
}

/** A file's name in downloads/NAME/ (as fetched: still compressed where it is gunzipped at install). */
export function downloadName(f: ModelFile): string {
  return f.gunzip ? `${f.path}.gz` : f.path;
}

/** The catalog's entries for `names`, or a ModelError naming the first unknown one and the known ones. */
export function entriesFor(names: string[], catalog: readonly ModelEntry[] = CATALOG): ModelEntry[] {
  if (names.length === 0) throw new ModelError('name the models to pull: `npx tolk models list` shows them');
  return [...new Set(names)].map((name) => {
    const m = catalog.find((c) => c.name === name);
    if (!m) throw new ModelError(`no model named '${name}' in the catalog: the known ones are ${catalog.map((c) => c.name).join(', ') || 'none'}`);
    return m;
  });
}

/** Pulls each model in turn; resolves with their names once all are installed. */
export async function pullModels(names: string[], o: PullOptions): Promise<string[]> {
  const entries = entriesFor(names, o.catalog);
  await fs.promises.mkdir(o.dir, { recursive: true });
  for (const m of entries) await pullOne(m, o);
  return entries.map((m) => m.name);
}

async function pullOne(m: ModelEntry, o: PullOptions): Promise<void> {
  if (!MODEL_NAME.test(m.name)) throw new ModelError(`'${m.name}' is not a model name`);
  const downloads = path.join(o.dir, DOWNLOADS, m.name);
  await fs.promises.mkdir(downloads, { recursive: true });
  const release = await lock(path.join(o.dir, DOWNLOADS, `${m.name}.lock`), m.name);
  try {
    for (const f of m.files) await fetchChecked(m, f, path.join(downloads, downloadName(f)), o);
    await install(m, downloads, o);
    await fs.promises.rm(downloads, { recursive: true, force: true });
  } finally {
    await release();
  }
}

/** One file, downloaded (or found) whole in `local` with the catalog's SHA-256; else a ModelError, and no file. */
async function fetchChecked(m: ModelEntry, f: ModelFile, local: string, o: PullOptions): Promise<void> {
  await fs.promises.mkdir(path.dirname(local), { recursive: true });
  const have = await sizeOf(local);
  if (have > f.size) await fs.promises.rm(local, { force: true });
  // Already whole (an earlier pull that stopped after it, or copied in by hand): checked, and fetched again only if it is not right.
  if (have === f.size && (await sha256Of(local)) === f.sha256) return;
  if (have === f.size) await fs.promises.rm(local, { force: true });
  await download(m, f, local, o);
  const got = await sha256Of(local);
  if (got !== f.sha256) {
    await fs.promises.rm(local, { force: true });
    throw new ModelError(`${m.name}: ${addressOf(m, f, o.mirror)} is not the file the catalog pins (its SHA-256 is ${got}, not ${f.sha256}); it was deleted and nothing was installed`);
  }
}

/** Network failures that say the address cannot be reached at all (as opposed to a transfer cut midway). */
const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  let e = err as { code?: string; cause?: unknown } | undefined;
  for (let i = 0; i < 4 && e; i++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

async function download(m: ModelEntry, f: ModelFile, local: string, o: PullOptions): Promise<void> {
  const url = addressOf(m, f, o.mirror);
  const resumes = o.resumes ?? 3;
  let cuts = 0;
  for (;;) {
    const from = await sizeOf(local);
    if (from === f.size) return;
    let res: Response;
    try {
      res = await fetch(url, { headers: from > 0 ? { range: `bytes=${from}-` } : {}, redirect: 'follow' });
    } catch (err) {
      const code = errorCode(err);
      if (code && UNREACHABLE.has(code)) throw offline(m, url, code, o);
      if (cuts++ >= resumes) throw cut(m, url, from, f.size, err);
      await pause(cuts);
      continue;
    }
    if (res.status === 416) {
      // The server has no such range: what is here is not a start of its file.
      await res.body?.cancel();
      await fs.promises.rm(local, { force: true });
      if (cuts++ >= resumes) throw new ModelError(`${m.name}: ${url} refused to resume the download (416); run the pull again to start it afresh`);
      continue;
    }
    if (res.status !== 200 && res.status !== 206) {
      await res.body?.cancel();
      throw new ModelError(`${m.name}: ${url} answered ${res.status} ${res.statusText}`.trimEnd());
    }
    // 206 from where it stopped: appended. 200: the server sends it whole (it ignores ranges), so it starts again.
    const append = res.status === 206 && contentRangeStart(res.headers.get('content-range')) === from;
    if (res.status === 206 && !append) {
      await res.body?.cancel();
      throw new ModelError(`${m.name}: ${url} answered a range that does not start at byte ${from}`);
    }
    let received = append ? from : 0;
    o.onProgress?.({ model: m.name, file: f.path, received, total: f.size });
    try {
      const out = fs.createWriteStream(local, { flags: append ? 'a' : 'w' });
      await pipeline(res.body!, async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const c of chunks) {
          received += c.byteLength;
          if (received > f.size) throw new ModelError(`${m.name}: ${url} sent more than the ${f.size} bytes the catalog says it has`);
          o.onProgress?.({ model: m.name, file: f.path, received, total: f.size });
          yield c;
        }
      }, out);
    } catch (err) {
      if (err instanceof ModelError) {
        await fs.promises.rm(local, { force: true });
        throw err;
      }
      // Cut midway: what came is kept, and the next request asks for the rest.
      if (cuts++ >= resumes) throw cut(m, url, await sizeOf(local), f.size, err);
      await pause(cuts);
      continue;
    }
    if (received < f.size) {
      // The server ended the body early without saying so.
      if (cuts++ >= resumes) throw cut(m, url, received, f.size, new Error('the body ended early'));
      await pause(cuts);
    }
  }
}

function contentRangeStart(h: string | null): number | null {
  const match = /^bytes\s+(\d+)-/i.exec(h ?? '');
  return match ? Number(match[1]) : null;
}

function offline(m: ModelEntry, url: string, code: string, o: PullOptions): ModelError {
  const folder = path.join(o.dir, DOWNLOADS, m.name);
  const files = m.files.map((f) => `${addressOf(m, f, o.mirror)} as ${downloadName(f)}`).join(', ');
  return new ModelError(
    `could not reach ${url} (${code}): to install ${m.name} without the network, download its files on a machine that can (${files}), copy them into ${folder}, and run \`npx tolk models pull ${m.name}\` again, which checks them against their SHA-256 and installs them`,
  );
}

function cut(m: ModelEntry, url: string, at: number, total: number, err: unknown): ModelError {
  return new ModelError(
    `${m.name}: the download of ${url} kept being cut (${at} of ${total} bytes here; last: ${(err as Error)?.message ?? String(err)}); run \`npx tolk models pull ${m.name}\` again to resume it`,
  );
}

const pause = (n: number) => new Promise((r) => setTimeout(r, Math.min(2000, 250 * 2 ** (n - 1))));

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.promises.stat(file)).size;
  } catch {
    return 0;
  }
}

export async function sha256Of(file: string): Promise<string> {
  const h = createHash('sha256');
  await pipeline(fs.createReadStream(file), h);
  return h.digest('hex');
}

/** The checked files put together in a hidden folder, prepared by the engine, and renamed into place (the old one, if any, renamed away first). */
async function install(m: ModelEntry, downloads: string, o: PullOptions): Promise<void> {
  const staging = hiddenBeside(o.dir, 'staging', m.name);
  try {
    for (const f of m.files) {
      const target = path.join(staging, f.path);
      if (!target.startsWith(staging + path.sep)) throw new ModelError(`${m.name}: the file path '${f.path}' leaves the model's folder`);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      const local = path.join(downloads, downloadName(f));
      if (f.gunzip) await pipeline(fs.createReadStream(local), createGunzip(), fs.createWriteStream(target));
      else await fs.promises.rename(local, target);
    }
    await o.prepare?.(m, staging);
    await fs.promises.writeFile(path.join(staging, MANIFEST), `${JSON.stringify({ ...m, installed_at: new Date().toISOString() }, null, 2)}\n`);
    const folder = path.join(o.dir, m.name);
    const old = hiddenBeside(o.dir, 'old', m.name);
    const hadOld = await fs.promises.rename(folder, old).then(() => true, (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    });
    await fs.promises.rename(staging, folder);
    if (hadOld) await fs.promises.rm(old, { recursive: true, force: true });
  } catch (err) {
    await fs.promises.rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/**
 * One pull of a model at a time on this machine: a lock file holding the
 * pulling process's pid, taken over when that process is gone.
 */
async function lock(file: string, name: string): Promise<() => Promise<void>> {
  for (let tries = 0; ; tries++) {
    try {
      await fs.promises.writeFile(file, String(process.pid), { flag: 'wx' });
      return () => fs.promises.rm(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries > 0) {
        throw new ModelError(`another pull of ${name} is under way (${file}); wait for it, or remove that file if no pull runs`);
      }
      const pid = Number(await fs.promises.readFile(file, 'utf8').catch(() => ''));
      if (pid > 0 && processAlive(pid)) throw new ModelError(`another pull of ${name} is under way (process ${pid})`);
      await fs.promises.rm(file, { force: true });
    }
  }
}

