import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp } from '../helpers/app.ts';
import { BARESIP, wavPcm } from '../helpers/baresip.ts';
import { requireBinary, startPeerProcess } from '../helpers/peer.ts';
import { until } from '../helpers/wait.ts';
import { freeUdpPort } from '../../gateway/sip-stack.ts';

// The softphone recipe for a server (docs/calling.md), run as written: its
// shell lines up to `baresip -f` run by bash with a folder of the test's own
// as HOME, so they make the silence file, the config and the account there;
// then baresip is started on that folder as the recipe says, the server with
// the recipe's TOLK_SIM_SIP_PEER, and the documented example call is placed.
// The one change: a free address of 127.0.0.2 instead of 127.0.0.1:5062 (and
// the RTP ports baresip may use), so that several runs never collide.

vi.setConfig({ testTimeout: 60_000 });

const DOC = readFileSync(new URL('../../docs/calling.md', import.meta.url), 'utf8');

/** The server recipe's shell block (its lines before `baresip -f`), and the peer the server is given. */
function recipe() {
  const block = /On a server, with no sound card[\s\S]*?```sh\n([\s\S]*?)```/.exec(DOC)?.[1]?.replace(/^ {2}/gm, '');
  if (!block) throw new Error('docs/calling.md has no softphone recipe for a server');
  const lines = block.split('\n');
  const start = lines.findIndex((l) => l.startsWith('baresip -f ~/.tolk-phone'));
  const peer = /TOLK_SIM_SIP_PEER=(\S+) npm start/.exec(block)?.[1];
  if (start < 0 || !peer) throw new Error(`the softphone recipe is not in the expected shape:\n${block}`);
  return { setup: lines.slice(0, start).join('\n'), peer };
}

/** The documented example call (its JSON body, from the Calling page). */
function exampleCall(): Record<string, unknown> {
  const m = /curl -s -X POST localhost:8080\/v1\/calls[\s\S]*?-d '(\{[^']+\})'/.exec(DOC);
  if (!m) throw new Error('docs/calling.md has no example call');
  return JSON.parse(m[1]!);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function phone(o: { account?: (a: string) => string } = {}) {
  await requireBinary(BARESIP, 'baresip-core', 'baresip');
  await requireBinary('/usr/bin/sox', 'sox', 'sox');
  const r = recipe();
  const host = '127.0.0.2';
  const port = await freeUdpPort(host);
  const home = await mkdtemp(path.join(tmpdir(), 'tolk-recipe-'));
  cleanups.push(() => rm(home, { recursive: true, force: true }));
  const setup = spawnSync('bash', ['-euo', 'pipefail', '-c', r.setup.replaceAll('127.0.0.1:5062', `${host}:${port}`)], {
    env: { ...process.env, HOME: home }, encoding: 'utf8',
  });
  if (setup.status !== 0) throw new Error(`the recipe's lines failed: ${setup.stderr}`);
  const dir = path.join(home, '.tolk-phone');
  const rec = path.join(dir, 'heard');
  const rtpBase = 20000 + 2 * Math.floor(Math.random() * 10000);
  await appendFile(path.join(dir, 'config'), `rtp_ports ${rtpBase}-${rtpBase + 40}\n`);
  if (o.account) await writeFile(path.join(dir, 'accounts'), `${o.account((await readFile(path.join(dir, 'accounts'), 'utf8')).trim())}\n`);
  const p = await startPeerProcess({ name: 'baresip', bin: BARESIP, args: ['-f', dir], dir, ready: /baresip is ready/ });
  cleanups.push(() => p.stop());
  return {
    peer: r.peer.replace('127.0.0.1:5062', `${host}:${port}`),
    log: p.log,
    heard: () => until('baresip to close its recording', async () => {
      const files = (await readdir(rec)).filter((f) => f.endsWith('-dec.wav'));
      if (files.length === 0) return null;
      const pcm = wavPcm(await readFile(path.join(rec, files[0]!)));
      return pcm.length > 0 ? pcm : null;
    }, { timeoutMs: 10_000, intervalMs: 100 }),
  };
}

async function app(peer: string) {
  const db = await createTestDatabase();
  const offset = Date.parse('2026-11-18T17:00:00Z') - Date.now();
  const t = await startTestApp({ db, workers: true, clock: () => new Date(Date.now() + offset), config: { simSipPeer: peer } });
  cleanups.push(async () => { await t.close(); await db.drop(); });
  return { t, key: (await t.key({ rpm: 100_000 })).secret };
}

describe('the softphone recipe for a server', () => {
  it('as written: the phone answers the documented example call and hears the disclosure in Spanish', async () => {
    const ph = await phone();
    const { t, key } = await app(ph.peer);
    const body = exampleCall();
    expect(body).toMatchObject({ to: '+14155550142', remote_lang: 'es' });
    const res = await t.request('POST', '/v1/calls', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body });
    const c = await res.json();
    expect(res.status, JSON.stringify(c)).toBe(201);
    const answered = await until('answered', async () => {
      const x = await (await t.request('GET', `/v1/calls/${c.id}`, { key })).json();
      return ['answered', 'failed', 'completed', 'busy', 'no_answer', 'voicemail'].includes(x.status) ? x : null;
    }, { timeoutMs: 15_000, intervalMs: 100, detail: ph.log });
    expect(answered, ph.log()).toMatchObject({ status: 'answered', sip_code: 200 });
    // It hears the disclosure (Pico speaks Spanish): seconds of sound, not silence.
    const spoken = new Promise<void>((ok) => t.services.gateway!.media.on('finished', (k, u) => { if (k === c.id && u === 'disclosure') ok(); }));
    await spoken;
    await t.request('POST', `/v1/calls/${c.id}/hangup`, { key });
    const heard = await ph.heard();
    const loud = heard.filter((x) => Math.abs(x) > 500).length;
    expect(loud / 8000).toBeGreaterThan(2);
  });

  it('an account not named as the number: the call fails with the phone\'s 404 in sip_code, not only in a log', async () => {
    const ph = await phone({ account: (a) => a.replace('+14155550142', 'someone') });
    const { t, key } = await app(ph.peer);
    const res = await t.request('POST', '/v1/calls', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: exampleCall() });
    const c = await res.json();
    const ended = await until('ended', async () => {
      const x = await (await t.request('GET', `/v1/calls/${c.id}`, { key })).json();
      return x.status === 'failed' ? x : null;
    }, { timeoutMs: 15_000, intervalMs: 100, detail: ph.log });
    expect(ended).toMatchObject({ status: 'failed', sip_code: 404 });
    expect(ended.sip_reason).toMatch(/not found/i);
  });
});
