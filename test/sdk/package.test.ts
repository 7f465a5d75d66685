import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { ROOT } from '../helpers/process.ts';
import { Tolk } from '../../sdk/src/index.ts';

// The package as a user gets it: `npm pack` of sdk/ (its prepack builds
// dist/ with sdk/tsconfig.json: the platform's types only, so anything
// Node-only fails the build), unpacked into a project's node_modules, then
// - run by Node 20 (the machines' own /usr/bin/node), against the real server;
// - type-checked as a TypeScript user's code is (wrong fields fail);
// - run by Deno (the npm package `deno`), from its TypeScript sources;
// - loaded in Chromium, where verifying a webhook makes sense.

vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);
const NODE20 = '/usr/bin/node';

let t: TestApp;
let rx: Receiver;
let key: string;
let dir: string;
let installed: string;
let files: string[];
/** A real delivery: its raw body, Service-Signature and the endpoint's secret. */
let hook: { body: string; sig: string; secret: string };

beforeAll(async () => {
  rx = await startReceiver();
  // Workers and the simulator on, fast, for the READMEs' examples (robots that talk, a test call).
  t = await startTestApp({ workers: true, config: { simSpeed: 20, webhookAllowOrigins: [rx.origin] } });
  key = (await t.key({ rpm: 100_000 })).secret;
  const tolk = new Tolk(key, { baseUrl: t.url });
  const endpoint = await tolk.webhookEndpoints.create({ url: rx.url, events: ['meeting.created'] });
  await tolk.webhookEndpoints.test(endpoint.id);
  const [got] = await rx.waitFor(1);
  hook = { body: got!.body, sig: got!.headers['service-signature'] as string, secret: endpoint.secret };

  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-sdk-'));
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: path.join(ROOT, 'sdk') });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  files = packed!.files.map((f) => f.path).sort();
  installed = path.join(dir, 'project', 'node_modules', '@tolk', 'client');
  fs.mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', path.join(dir, packed!.filename), '-C', installed, '--strip-components=1']);
  fs.writeFileSync(path.join(dir, 'project', 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
}, 180_000);
afterAll(async () => {
  await t?.close();
  await rx?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** What the user's script prints: a room made, the list, a typed 404 and a verified webhook. */
const SCRIPT = (from: string) => `
import { Tolk, TolkNotFoundError } from '${from}';
const env = (k) => (globalThis.Deno ? Deno.env.get(k) : process.env[k]);
const tolk = new Tolk(env('KEY'), { baseUrl: env('BASE') });
const room = await tolk.rooms.create({ title: 'From a user' });
const listed = await tolk.rooms.list();
let notFound = null;
try { await tolk.rooms.retrieve('room_doesNotExist1'); } catch (e) { notFound = e instanceof TolkNotFoundError ? e.code : String(e); }
const event = await Tolk.webhooks.verify(env('BODY'), env('SIG'), env('SECRET'));
let tampered = null;
try { await Tolk.webhooks.verify(env('BODY') + ' ', env('SIG'), env('SECRET')); } catch (e) { tampered = e.code; }
console.log(JSON.stringify({ room: room.id, listed: listed.map((r) => r.id), notFound, event: event.type, tampered, remaining: tolk.rateLimit.remaining }));
`;

function env() {
  return { ...process.env, KEY: key, BASE: t.url, BODY: hook.body, SIG: hook.sig, SECRET: hook.secret };
}

async function expectUserRun(stdout: string) {
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(out).toMatchObject({ notFound: 'not_found', event: 'meeting.created', tampered: 'signature_verification_failed' });
  expect(out.listed).toContain(out.room);
  const { rows } = await t.pool.query(`SELECT title FROM rooms WHERE id = $1`, [out.room]);
  expect(rows[0]?.title).toBe('From a user');
  expect(out.remaining).toBeGreaterThan(0);
}

describe('the @tolk/client package', () => {
  it('packs its build and nothing else: ESM with declarations', () => {
    expect(files).toContain('dist/index.js');
    expect(files).toContain('dist/index.d.ts');
    expect(files.filter((f) => !f.startsWith('dist/'))).toEqual(['README.md', 'package.json']);
    const pkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ type: 'module', exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' } } });
    expect(pkg.dependencies ?? {}).toEqual({});
  });

  it('runs on Node 20, installed in a project', async () => {
    const { stdout: version } = await run(NODE20, ['--version']);
    expect(Number(/^v(\d+)/.exec(version)![1])).toBeGreaterThanOrEqual(20);
    fs.writeFileSync(path.join(dir, 'project', 'app.mjs'), SCRIPT('@tolk/client'));
    const { stdout } = await run(NODE20, ['app.mjs'], { cwd: path.join(dir, 'project'), env: env() });
    await expectUserRun(stdout);
  });

  it('types a TypeScript user\'s code from the declarations: results, errors, and wrong fields refused', async () => {
    const project = path.join(dir, 'project');
    fs.writeFileSync(path.join(project, 'check.ts'), `
import { Tolk, TolkError, type Room, type SessionEvent, type WebhookEvent } from '@tolk/client';
const tolk = new Tolk('key', { baseUrl: 'http://localhost:8080', maxRetries: 3, timeout: 5000 });
const room: Room = await tolk.rooms.create({ title: 'Typed', langs: ['en'] }, { idempotencyKey: 'k1' });
const status: 'scheduled' | 'live' | 'ended' | 'canceled' = room.status;
const made = await tolk.rooms.create();
const remaining: number | undefined = made.lastResponse.rateLimit?.remaining;
const ids: string[] = (await tolk.rooms.list({ limit: 5 })).map((r) => r.id);
for await (const r of tolk.rooms.list()) console.log(r.url);
for await (const e of tolk.sessions.listen('ses_1')) { const ev: SessionEvent = e; console.log(ev.untrusted_content.text_in_hear_lang); }
const call = await tolk.calls.create({ to: '+14155550123', purpose: 'support', consent: { kind: 'prior_express' } });
const q = await tolk.calls.quote({ to: '+14155550123', purpose: 'marketing' });
const allowed: boolean = q.allowed;
try { await tolk.sessions.say('ses_1', { text: 'Hi' }); } catch (e) { if (e instanceof TolkError) { const c: string = e.code; const s: number = e.status; console.log(c, s, e.request_id); } }
const ev: WebhookEvent = await Tolk.webhooks.verify('{}', 't=1,v1=00', 'whsec_x');
// @ts-expect-error: not a field of a room create
await tolk.rooms.create({ titel: 'x' });
// @ts-expect-error: not a purpose
await tolk.calls.create({ to: '+14155550123', purpose: 'sales' });
// @ts-expect-error: a call has no title
console.log(call.title);
// @ts-expect-error: say needs text
await tolk.sessions.say('ses_1', {});
console.log(status, ids, allowed, ev.data.object.id, remaining);
`);
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2022', 'DOM'], types: [] },
      files: ['check.ts'],
    }));
    const tsc = path.join(ROOT, 'node_modules', '.bin', 'tsc');
    const res = await run(tsc, ['-p', project]).then(() => ({ code: 0, out: '' }), (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }));
    expect(res).toEqual({ code: 0, out: '' });
  });

  it('runs on Deno, from its TypeScript sources', async () => {
    const deno = path.join(ROOT, 'node_modules', '.bin', 'deno');
    const script = path.join(dir, 'deno-app.ts');
    fs.writeFileSync(script, SCRIPT(path.join(ROOT, 'sdk', 'src', 'index.ts')));
    const { stdout } = await run(deno, ['run', '--no-prompt', '--allow-net=127.0.0.1', '--allow-env', '--no-lock', script], {
      env: { ...env(), DENO_DIR: path.join(dir, 'deno-cache'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
    });
    await expectUserRun(stdout);
  });

  it('the READMEs\' client examples run as written, in a project with the package installed', async () => {
    const project = path.join(dir, 'project');
    const example = async (file: string, block: RegExp) => {
      const code = block.exec(fs.readFileSync(path.join(ROOT, file), 'utf8'))?.[1];
      expect(code, `${file} has the example`).toBeTruthy();
      fs.writeFileSync(path.join(project, 'example.ts'), code!.replaceAll('http://localhost:8080', t.url));
      // This Node (24): it runs TypeScript as written.
      const { stdout } = await run(process.execPath, ['example.ts'], { cwd: project, env: { ...process.env, KEY: key, TOLK_KEY: key, NO_COLOR: '1' } });
      return stdout;
    };
    const readme = await example('README.md', /```ts\n(import \{ Tolk \} from '@tolk\/client';[\s\S]*?)```/);
    expect(readme).toContain(`url: '${t.url}/r/room_`);
    expect(readme).toMatch(/type: 'segment\.final'/);
    expect(readme).toMatch(/organization: \{ id: 'org_\w+'/);

    const quick = await example('sdk/README.md', /## Quick start\n+```ts\n([\s\S]*?)```/);
    expect(quick.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(quick).toContain(`open ${t.url}/r/room_`);
    expect(quick).toMatch(/^Robot B /m);
    // The call: hung up by the agent, or refused outside the destination's calling hours (the clock is real here).
    expect(quick.trim().split('\n').at(-1)).toMatch(/^\w+ agent_hangup$|^blocked /);
  });

  it('verifies a webhook in a browser (Chromium), from the package\'s files', async () => {
    const dist = path.join(installed, 'dist');
    const server = http.createServer((req, res) => {
      const file = path.join(dist, path.basename(req.url ?? ''));
      if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>verify</title>');
      if (!fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let browser: Browser | undefined;
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      // A string, so the test runner leaves its import() alone: the page imports the package's own file.
      const out = await page.evaluate(`(async () => {
        const { Tolk } = await import('/index.js');
        const [body, sig, secret] = ${JSON.stringify([hook.body, hook.sig, hook.secret])};
        const event = await Tolk.webhooks.verify(body, sig, secret);
        const tampered = await Tolk.webhooks.verify(body.replace('meeting', 'meetinG'), sig, secret).then(() => 'verified', (e) => e.code);
        return { type: event.type, tampered };
      })()`);
      expect(out).toEqual({ type: 'meeting.created', tampered: 'signature_verification_failed' });
    } finally {
      await browser?.close();
      server.close();
    }
  });
});
