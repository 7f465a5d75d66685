import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp } from '../helpers/app.ts';
import { BARESIP, wavPcm } from '../helpers/baresip.ts';
import { requireBinary, startPeerProcess } from '../helpers/peer.ts';
import { until } from '../helpers/wait.ts';
import { freeUdpPort } from '../../gateway/sip-stack.ts';

// The README's softphone recipe, run as written: its baresip config and
// account (read from README.md), the server started with its
// TOLK_SIM_SIP_PEER, and the README's example call. The one change: this
// machine has no sound card, so the three `alsa` lines become files (what
// baresip hears is recorded, what it sends is silence), and the address is
// a free one of 127.0.0.2 instead of 127.0.0.1:5062.

vi.setConfig({ testTimeout: 60_000 });

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The recipe's shell block, its config, its account line and the peer the server is given. */
function recipe() {
  const block = /With baresip[\s\S]*?```sh\n([\s\S]*?)```/.exec(README)?.[1]?.replace(/^ {2}/gm, '');
  if (!block) throw new Error('the README has no baresip recipe');
  const config = /cat > ~\/\.tolk-phone\/config <<'EOF'\n([\s\S]*?)\nEOF/.exec(block)?.[1];
  const account = /echo '([^']+)' > ~\/\.tolk-phone\/accounts/.exec(block)?.[1];
  const peer = /TOLK_SIM_SIP_PEER=(\S+) npm start/.exec(block)?.[1];
  if (!config || !account || !peer) throw new Error(`the README's baresip recipe is not in the expected shape:\n${block}`);
  return { config, account, peer };
}

/** The README's example call (its JSON body, from the Calling section). */
function exampleCall(): Record<string, unknown> {
  const m = /curl -s -X POST localhost:8080\/v1\/calls[\s\S]*?-d '(\{[^']+\})'/.exec(README);
  if (!m) throw new Error('the README has no example call');
  return JSON.parse(m[1]!);
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function phone(o: { account?: (a: string) => string } = {}) {
  await requireBinary(BARESIP, 'baresip-core', 'baresip');
  const r = recipe();
  const host = '127.0.0.2';
  const port = await freeUdpPort(host);
  const dir = await mkdtemp(path.join(tmpdir(), 'tolk-recipe-'));
  const rec = path.join(dir, 'rec');
  await mkdir(rec);
  // 60 s of silence, 8 kHz mono: what it sends instead of a microphone.
  const n = 60 * 8000;
  const head = Buffer.alloc(44);
  head.write('RIFF', 0); head.writeUInt32LE(36 + n * 2, 4); head.write('WAVEfmt ', 8); head.writeUInt32LE(16, 16); head.writeUInt16LE(1, 20);
  head.writeUInt16LE(1, 22); head.writeUInt32LE(8000, 24); head.writeUInt32LE(16000, 28); head.writeUInt16LE(2, 32); head.writeUInt16LE(16, 34);
  head.write('data', 36); head.writeUInt32LE(n * 2, 40);
  await writeFile(path.join(dir, 'silence.wav'), Buffer.concat([head, Buffer.alloc(n * 2)]));
  const noSoundCard = (line: string): string[] => {
    if (line === 'module alsa.so') return ['module aubridge.so', 'module aufile.so', 'module sndfile.so', `snd_path ${rec}`];
    if (line.startsWith('audio_player alsa')) return ['audio_player aubridge,heard'];
    if (line.startsWith('audio_source alsa')) return [`audio_source aufile,${path.join(dir, 'silence.wav')}`];
    if (line.startsWith('audio_alert alsa')) return ['audio_alert aubridge,alert'];
    return [line.replaceAll('127.0.0.1:5062', `${host}:${port}`)];
  };
  const config = r.config.split('\n').flatMap(noSoundCard);
  const rtpBase = 20000 + 2 * Math.floor(Math.random() * 10000);
  await writeFile(path.join(dir, 'config'), [...config, `rtp_ports ${rtpBase}-${rtpBase + 40}`, ''].join('\n'));
  const account = (o.account ?? ((a) => a))(r.account.replaceAll('127.0.0.1:5062', `${host}:${port}`));
  await writeFile(path.join(dir, 'accounts'), `${account}\n`);
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

describe('the README\'s softphone recipe', () => {
  it('as written: the phone answers the README\'s example call and hears the disclosure in Spanish', async () => {
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
