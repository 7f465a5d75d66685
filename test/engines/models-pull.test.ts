import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ModelEntry } from '../../src/engines/models/catalog.ts';
import { pullModels, type PullProgress } from '../../src/engines/models/pull.ts';
import { installedModels, listModels, removeModel } from '../../src/engines/models/store.ts';
import { progressBar } from '../../src/cli/models.ts';
import { freePort } from '../helpers/process.ts';

// `tolk models pull`'s download path against a local HTTP server that behaves
// as a model's host can: with and without Range support, cutting the
// connection midway, serving the wrong bytes. What a user notices: the model
// installed whole and right, a download resumed rather than started again,
// nothing installed from a file that is not the one pinned, and a machine
// without the network told at once how to copy a model in by hand.

type Served = { body: Buffer; ranges: boolean; cutAfter?: number[] };

let server: http.Server;
let base = '';
const files = new Map<string, Served>();
/** Every request: its path, its Range header, and how many bytes of body were sent. */
const requests: Array<{ path: string; range: string | undefined; sent: number }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const f = files.get(req.url ?? '');
    const entry = { path: req.url ?? '', range: req.headers.range, sent: 0 };
    requests.push(entry);
    if (!f) {
      res.writeHead(404).end('not found');
      return;
    }
    let start = 0;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    if (f.ranges && m) {
      start = Number(m[1]);
      if (start >= f.body.length) {
        res.writeHead(416, { 'content-range': `bytes */${f.body.length}` }).end();
        return;
      }
      res.writeHead(206, { 'content-length': f.body.length - start, 'content-range': `bytes ${start}-${f.body.length - 1}/${f.body.length}`, 'accept-ranges': 'bytes' });
    } else {
      res.writeHead(200, { 'content-length': f.body.length, ...(f.ranges ? { 'accept-ranges': 'bytes' } : {}) });
    }
    const cut = f.cutAfter?.shift();
    const chunk = f.body.subarray(start, cut === undefined ? undefined : Math.min(f.body.length, start + cut));
    entry.sent = chunk.length;
    if (cut === undefined) {
      res.end(chunk);
      return;
    }
    // Half the file, then the connection drops (a proxy timing out, a laptop's wifi).
    res.write(chunk, () => setTimeout(() => res.socket?.destroy(), 20));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const dirs: string[] = [];
afterEach(async () => {
  requests.length = 0;
  files.clear();
  for (const d of dirs.splice(0)) await fs.promises.rm(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-models-'));
  dirs.push(d);
  return d;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A model of one or more files served at `base`, its catalog entry pinned to their real hashes. */
function model(name: string, parts: Array<{ path: string; body: Buffer; ranges?: boolean; cutAfter?: number[]; gunzip?: boolean; pinned?: string }>): ModelEntry {
  for (const p of parts) files.set(`/${name}/${p.path}`, { body: p.gunzip ? gzipSync(p.body) : p.body, ranges: p.ranges ?? true, cutAfter: p.cutAfter });
  return {
    name, kind: 'recognize', engine: 'whisper', languages: ['en'], license: 'MIT', source: 'https://example.org/model', about: 'a test model',
    files: parts.map((p) => {
      const served = files.get(`/${name}/${p.path}`)!.body;
      return { path: p.path.replace(/\.gz$/, ''), url: `${base}/${name}/${p.path}`, size: served.length, sha256: p.pinned ?? sha(served), ...(p.gunzip ? { gunzip: true } : {}) };
    }),
  };
}

describe('pulling a model', () => {
  it('installs every file whole, as the publisher serves it, and lists it installed with its size', async () => {
    const dir = tmp();
    const enc = randomBytes(300_000);
    const tokens = Buffer.from('a 0\nb 1\n');
    const m = model('tiny-test', [{ path: 'encoder.onnx', body: enc }, { path: 'tokens.txt', body: tokens }]);
    const seen: PullProgress[] = [];
    expect(await pullModels(['tiny-test'], { dir, catalog: [m], onProgress: (p) => seen.push({ ...p }) })).toEqual(['tiny-test']);
    expect(fs.readFileSync(path.join(dir, 'tiny-test', 'encoder.onnx')).equals(enc)).toBe(true);
    expect(fs.readFileSync(path.join(dir, 'tiny-test', 'tokens.txt'), 'utf8')).toBe('a 0\nb 1\n');
    expect(installedModels(dir).map((x) => x.name)).toEqual(['tiny-test']);
    expect(listModels(dir, [m])).toEqual([expect.objectContaining({ name: 'tiny-test', kind: 'recognize', languages: ['en'], size_bytes: enc.length + tokens.length, license: 'MIT', installed: true })]);
    // Progress reached the whole of each file; no download folder left behind.
    expect(seen.filter((p) => p.file === 'encoder.onnx').at(-1)).toMatchObject({ received: enc.length, total: enc.length });
    expect(fs.existsSync(path.join(dir, 'downloads', 'tiny-test'))).toBe(false);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('resumes a download cut midway with a Range request from where it stopped, and installs the right bytes', async () => {
    const dir = tmp();
    const body = randomBytes(1_000_000);
    const m = model('cut', [{ path: 'weights.bin', body, cutAfter: [400_000, 300_000] }]);
    await pullModels(['cut'], { dir, catalog: [m] });
    expect(fs.readFileSync(path.join(dir, 'cut', 'weights.bin')).equals(body)).toBe(true);
    expect(requests.map((r) => r.range)).toEqual([undefined, 'bytes=400000-', 'bytes=700000-']);
    // Nothing was sent twice.
    expect(requests.reduce((s, r) => s + r.sent, 0)).toBe(body.length);
  });

  it('a server without Range support sends it whole again after a cut, and the file is still right', async () => {
    const dir = tmp();
    const body = randomBytes(500_000);
    const m = model('noranges', [{ path: 'weights.bin', body, ranges: false, cutAfter: [200_000] }]);
    await pullModels(['noranges'], { dir, catalog: [m] });
    expect(fs.readFileSync(path.join(dir, 'noranges', 'weights.bin')).equals(body)).toBe(true);
    expect(requests.map((r) => r.sent)).toEqual([200_000, 500_000]);
  });

  it('a pull that gave up keeps what it downloaded, and the next pull asks only for the rest', async () => {
    const dir = tmp();
    const body = randomBytes(600_000);
    const m = model('later', [{ path: 'weights.bin', body, cutAfter: [250_000] }]);
    await expect(pullModels(['later'], { dir, catalog: [m], resumes: 0 })).rejects.toThrow(/kept being cut \(250000 of 600000 bytes here.*run `npx tolk models pull later` again to resume/);
    expect(installedModels(dir)).toEqual([]);
    expect(fs.statSync(path.join(dir, 'downloads', 'later', 'weights.bin')).size).toBe(250_000);
    await pullModels(['later'], { dir, catalog: [m] });
    expect(requests.at(-1)!.range).toBe('bytes=250000-');
    expect(fs.readFileSync(path.join(dir, 'later', 'weights.bin')).equals(body)).toBe(true);
  });

  it('a file that does not hash to the pinned SHA-256 is deleted, and nothing is installed, not even the files that were right', async () => {
    const dir = tmp();
    const good = randomBytes(1000);
    const m = model('tampered', [{ path: 'tokens.txt', body: good }, { path: 'weights.bin', body: randomBytes(50_000), pinned: sha(randomBytes(50_000)) }]);
    await expect(pullModels(['tampered'], { dir, catalog: [m] })).rejects.toThrow(/weights\.bin is not the file the catalog pins \(its SHA-256 is [0-9a-f]{64}, not [0-9a-f]{64}\); it was deleted and nothing was installed/);
    expect(installedModels(dir)).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'tampered'))).toBe(false);
    expect(fs.existsSync(path.join(dir, 'downloads', 'tampered', 'weights.bin'))).toBe(false);
  });

  it('a file the server serves compressed is installed decompressed, checked against the hash of what was downloaded', async () => {
    const dir = tmp();
    const vocab = Buffer.from('▁hola 0\n▁mundo 1\n'.repeat(1000));
    const m = model('zipped', [{ path: 'vocab.spm.gz', body: vocab, gunzip: true }]);
    await pullModels(['zipped'], { dir, catalog: [m] });
    expect(fs.readFileSync(path.join(dir, 'zipped', 'vocab.spm')).equals(vocab)).toBe(true);
  });

  it('offline, fails at once naming the address, and a model copied in by hand is then checked and installed without the network', async () => {
    const dir = tmp();
    const body = randomBytes(20_000);
    const m = model('handmade', [{ path: 'weights.bin', body }]);
    const closed = `http://127.0.0.1:${await freePort()}`;
    const away = { ...m, files: m.files.map((f) => ({ ...f, url: f.url.replace(base, closed) })) };
    const err = await pullModels(['handmade'], { dir, catalog: [away] }).then(() => null, (e: Error) => e);
    expect(err?.message).toMatch(new RegExp(`^could not reach ${closed}/handmade/weights\\.bin \\(ECONNREFUSED\\): .*copy them into ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/downloads/handmade, and run \`npx tolk models pull handmade\` again`));
    expect(err?.message.split(/\.\s/).length).toBe(1);
    // The operator copies the file where the sentence says, and pulls again: still no network.
    fs.writeFileSync(path.join(dir, 'downloads', 'handmade', 'weights.bin'), body);
    expect(await pullModels(['handmade'], { dir, catalog: [away] })).toEqual(['handmade']);
    expect(fs.readFileSync(path.join(dir, 'handmade', 'weights.bin')).equals(body)).toBe(true);
  });

  it('a mirror serves NAME/FILE in place of every publisher\'s address', async () => {
    const dir = tmp();
    const body = randomBytes(10_000);
    const m = model('mirrored', [{ path: 'weights.bin', body }]);
    const elsewhere = { ...m, files: m.files.map((f) => ({ ...f, url: 'https://models.invalid/x/weights.bin' })) };
    await pullModels(['mirrored'], { dir, catalog: [elsewhere], mirror: `${base}/` });
    expect(requests.map((r) => r.path)).toEqual(['/mirrored/weights.bin']);
    expect(installedModels(dir).map((x) => x.name)).toEqual(['mirrored']);
  });

  it('two pulls of one model at once: one installs it, the other says another pull is under way', async () => {
    const dir = tmp();
    const m = model('twice', [{ path: 'weights.bin', body: randomBytes(2_000_000) }]);
    const results = await Promise.allSettled([pullModels(['twice'], { dir, catalog: [m] }), pullModels(['twice'], { dir, catalog: [m] })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: expect.objectContaining({ message: expect.stringMatching(/another pull of twice is under way/) }) });
    expect(installedModels(dir).map((x) => x.name)).toEqual(['twice']);
  });

  it('pulled again, a model is replaced whole; removed, it is gone', async () => {
    const dir = tmp();
    const m = model('again', [{ path: 'weights.bin', body: randomBytes(1000) }]);
    await pullModels(['again'], { dir, catalog: [m] });
    const next = model('again', [{ path: 'weights.bin', body: randomBytes(1000) }]);
    await pullModels(['again'], { dir, catalog: [next] });
    expect(sha(fs.readFileSync(path.join(dir, 'again', 'weights.bin')))).toBe(next.files[0]!.sha256);
    await removeModel(dir, 'again');
    expect(installedModels(dir)).toEqual([]);
    expect(fs.readdirSync(dir).filter((n) => n !== 'downloads')).toEqual([]);
    await expect(removeModel(dir, 'again')).rejects.toThrow(/no model named 'again' is installed/);
  });

  it('an unknown name fails before anything is downloaded, naming the known ones', async () => {
    const dir = tmp();
    const m = model('known', [{ path: 'weights.bin', body: randomBytes(1000) }]);
    await expect(pullModels(['known', 'unknown'], { dir, catalog: [m] })).rejects.toThrow("no model named 'unknown' in the catalog: the known ones are known");
    expect(requests).toEqual([]);
  });
});

describe('progress on stderr', () => {
  it('piped, a line each tenth of a file; on a terminal, one line redrawn in place', () => {
    const lines: string[] = [];
    const piped = progressBar({ isTTY: false, write: (s: string) => lines.push(s) } as unknown as NodeJS.WriteStream);
    for (let r = 0; r <= 1000; r += 50) piped.draw({ model: 'm', file: 'f.bin', received: r * 1024, total: 1000 * 1024 });
    piped.done();
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['0%', '10%', '20%', '30%', '40%', '50%', '60%', '70%', '80%', '90%', '100%']);
    expect(lines[0]).toMatch(/^m\/f\.bin 0% 0\.0\/1\.0 MB\n$/);
    const drawn: string[] = [];
    const tty = progressBar({ isTTY: true, write: (s: string) => drawn.push(s) } as unknown as NodeJS.WriteStream);
    tty.draw({ model: 'm', file: 'f.bin', received: 1024 * 1024, total: 1024 * 1024 });
    tty.done();
    expect(drawn[0]).toMatch(/^\rm\/f\.bin \[=+\] 100% 1\.0\/1\.0 MB/);
    expect(drawn.at(-1)).toBe('\n');
  });
});

describe('npx tolk models', () => {
  const ROOT = path.resolve(import.meta.dirname, '../..');
  const tolk = (args: string[], env: Record<string, string>) => new Promise<{ code: number | null; json: any; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin/tolk.js'), 'models', ...args], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, json: JSON.parse(out.trim().split('\n').at(-1) || 'null'), stderr: err }));
  });

  it('list: the catalog with size, languages, licence and source, none installed; Whisper tiny to small, multilingual and quantized', async () => {
    const dir = tmp();
    const r = await tolk(['list'], { TOLK_MODELS_DIR: dir });
    expect(r.code).toBe(0);
    const names = r.json.data.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['whisper-tiny-int8', 'whisper-tiny', 'whisper-base-int8', 'whisper-small-int8', 'whisper-tiny.en-int8']));
    for (const m of r.json.data) {
      expect(Object.keys(m).sort()).toEqual(['about', 'engine', 'installed', 'kind', 'languages', 'license', 'name', 'size_bytes', 'source'].sort());
      expect(m.installed).toBe(false);
      expect(m.size_bytes).toBeGreaterThan(1_000_000);
      expect(m.source).toMatch(/^https:\/\//);
    }
    expect(r.json.data.find((m: { name: string }) => m.name === 'whisper-base-int8')).toMatchObject({ kind: 'recognize', license: 'MIT', languages: expect.arrayContaining(['en', 'es', 'pt', 'fr', 'de', 'it']) });
  });

  it('pull offline fails at once with one sentence naming the address, exit 1; remove of a model not installed says so', async () => {
    const dir = tmp();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const r = await tolk(['pull', 'whisper-tiny-int8'], { TOLK_MODELS_DIR: dir, TOLK_MODELS_MIRROR: closed });
    expect(r.code).toBe(1);
    expect(r.json.error).toMatch(new RegExp(`^could not reach ${closed}/whisper-tiny-int8/encoder\\.onnx \\(ECONNREFUSED\\): .*copy them into .*/downloads/whisper-tiny-int8`));
    const gone = await tolk(['remove', 'whisper-tiny-int8'], { TOLK_MODELS_DIR: dir });
    expect(gone.code).toBe(1);
    expect(gone.json.error).toMatch(/no model named 'whisper-tiny-int8' is installed/);
    const unknown = await tolk(['pull', 'whisper-huge'], { TOLK_MODELS_DIR: dir });
    expect(unknown.json.error).toMatch(/no model named 'whisper-huge' in the catalog: the known ones are whisper-tiny-int8, /);
  });
});
