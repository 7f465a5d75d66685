import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import decode from 'audio-decode';
import { launchChromium } from '../helpers/chromium.ts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startSynthesizers } from '../../src/engines/speech/index.ts';
import { CLONE_RETRY, cloneVoice, speechVoice } from '../../src/voices/cloning.ts';
import { voiceInUse } from '../../src/voices/usable.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startSmtp, type SmtpServer } from '../helpers/smtp.ts';
import { until } from '../helpers/wait.ts';

// Live voice cloning (src/voices/cloning.ts) against a local server that
// answers as ElevenLabs documents its API:
//  - https://elevenlabs.io/docs/api-reference/voices/add (POST /v1/voices/add,
//    multipart/form-data: name, files (the audio), description, labels as a
//    JSON string; header xi-api-key → {"voice_id", "requires_verification"})
//  - https://elevenlabs.io/docs/api-reference/voices/delete (DELETE
//    /v1/voices/{voice_id} → {"status": "ok"})
//  - https://elevenlabs.io/docs/api-reference/text-to-speech/convert (POST
//    /v1/text-to-speech/{voice_id}?output_format=pcm_16000, JSON {text,
//    model_id} → headerless 16 kHz 16-bit mono PCM)
//  - errors as the docs' "Error messages" page gives them: {"detail":
//    {"status", "message"}} (401 invalid_api_key, 404 voice_not_found, 429,
//    503 system_busy), and FastAPI's 422 {"detail": [{loc, msg, type}]} for a
//    request it cannot validate.
// The person's side is the consent page's own endpoints (code, verify,
// recording) with a recording made by Chromium's MediaRecorder from its fake
// microphone, as the page records it.

vi.setConfig({ testTimeout: 60_000 });

const KEY = `sk_${randomBytes(16).toString('hex')}`;
/** George, a default voice of every account. */
const PREMADE = 'JBFqnCBsd6RMkjVDRZzb';

type Got = { method: string; path: string; headers: IncomingHttpHeaders; form?: FormData; json?: any };

/** The local ElevenLabs: its voices, what it received, and how it fails when told to. */
function fakeElevenLabs() {
  const voices = new Map<string, { name: string; labels: Record<string, string>; audio: Buffer; type: string }>();
  const got: Got[] = [];
  const state = { down: false, status: null as null | { code: number; status: string; message: string }, requiresVerification: false };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://x');
    const g: Got = { method: req.method ?? '', path: url.pathname, headers: req.headers };
    got.push(g);
    const detail = (code: number, status: string, message: string) => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: { status, message } }));
    };
    // Down: the connection is dropped without an answer.
    if (state.down) return req.socket.destroy();
    if (req.headers['xi-api-key'] !== KEY) return detail(401, 'invalid_api_key', 'Invalid API key');
    if (state.status) return detail(state.status.code, state.status.status, state.status.message);
    if (req.method === 'POST' && url.pathname === '/v1/voices/add') {
      if (!/^multipart\/form-data; *boundary=/.test(String(req.headers['content-type']))) {
        return detail(400, 'invalid_content_type', 'Expected multipart/form-data');
      }
      const form = await new Request('http://x', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body }).formData();
      g.form = form;
      const name = form.get('name');
      const files = form.getAll('files').filter((f): f is File => typeof f !== 'string');
      const missing = !name ? 'name' : files.length === 0 ? 'files' : null;
      if (missing) {
        res.writeHead(422, { 'content-type': 'application/json' })
          .end(JSON.stringify({ detail: [{ loc: ['body', missing], msg: 'field required', type: 'value_error.missing' }] }));
        return;
      }
      const labels = form.get('labels');
      const id = randomBytes(10).toString('base64url').replace(/[-_]/g, 'x');
      voices.set(id, {
        name: String(name), labels: typeof labels === 'string' ? JSON.parse(labels) : {}, audio: Buffer.from(await files[0]!.arrayBuffer()), type: files[0]!.type,
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ voice_id: id, requires_verification: state.requiresVerification }));
      return;
    }
    const del = /^\/v1\/voices\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'DELETE' && del) {
      if (!voices.delete(decodeURIComponent(del[1]!))) return detail(404, 'voice_not_found', `A voice with voice_id ${del[1]} was not found.`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: 'ok' }));
      return;
    }
    const tts = /^\/v1\/text-to-speech\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && tts) {
      const id = decodeURIComponent(tts[1]!);
      g.json = JSON.parse(body.toString('utf8'));
      if (id !== PREMADE && !voices.has(id)) return detail(404, 'voice_not_found', `A voice with voice_id ${id} was not found.`);
      if (url.searchParams.get('output_format') !== 'pcm_16000') return detail(400, 'invalid_output_format', 'unsupported');
      // Half a second of a 440 Hz tone, 16 kHz 16-bit mono, no header.
      const n = 8000;
      const pcm = Buffer.alloc(n * 2);
      for (let i = 0; i < n; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / 16_000) * 12_000), i * 2);
      res.writeHead(200, { 'content-type': 'audio/pcm' }).end(pcm);
      return;
    }
    detail(404, 'not_found', 'Not found');
  });
  return { server, voices, got, state, url: '' };
}

let el: ReturnType<typeof fakeElevenLabs>;
let smtp: SmtpServer;
let t: TestApp;
/** A WebM/Opus recording of Chromium's fake microphone, made by MediaRecorder as the consent page makes it. */
let recording: Buffer;
let tmp: string;

beforeAll(async () => {
  el = fakeElevenLabs();
  await new Promise<void>((r) => el.server.listen(0, '127.0.0.1', r));
  el.url = `http://127.0.0.1:${(el.server.address() as AddressInfo).port}`;
  smtp = await startSmtp();
  const base = loadConfig({});
  t = await startTestApp({
    workers: true,
    config: { speechEngines: ['pico', `elevenlabs=${el.url}`], speechKeys: { ...base.speechKeys, elevenlabs: KEY }, smtpUrl: smtp.url },
  });
  // The fake microphone plays a WAV of ours: a 440 Hz tone, 5 s, in a loop (sound throughout, as a voice reading).
  const rate = 48_000;
  const n = rate * 5;
  const wav = Buffer.alloc(44 + n * 2);
  wav.write('RIFF', 0); wav.writeUInt32LE(36 + n * 2, 4); wav.write('WAVE', 8); wav.write('fmt ', 12);
  wav.writeUInt32LE(16, 16); wav.writeUInt16LE(1, 20); wav.writeUInt16LE(1, 22); wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28); wav.writeUInt16LE(2, 32); wav.writeUInt16LE(16, 34); wav.write('data', 36); wav.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 16_000), 44 + i * 2);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tolk-cloning-'));
  writeFileSync(path.join(tmp, 'tone.wav'), wav);
  const args = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${path.join(tmp, 'tone.wav')}`];
  const browser = await launchChromium(args);
  try {
    const ctx = await browser.newContext({ permissions: ['microphone'] });
    const page = await ctx.newPage();
    await page.goto(`${t.url}/docs`);
    // In the page (a string: this project's TypeScript has no DOM types), as consent.js records.
    const bytes = await page.evaluate<number[]>(`(async () => {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const rec = new MediaRecorder(stream, { mimeType: 'audio/webm;codecs=opus' });
      const chunks = [];
      rec.ondataavailable = (e) => chunks.push(e.data);
      const stopped = new Promise((r) => { rec.onstop = r; });
      rec.start();
      await new Promise((r) => setTimeout(r, 4000));
      rec.stop();
      await stopped;
      stream.getTracks().forEach((tr) => tr.stop());
      return Array.from(new Uint8Array(await new Blob(chunks).arrayBuffer()));
    })()`);
    recording = Buffer.from(bytes);
  } finally {
    await browser.close();
  }
}, 60_000);

afterAll(async () => {
  await t?.close();
  await smtp?.close();
  await new Promise((r) => el?.server.close(r));
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const idem = () => ({ 'idempotency-key': randomUUID() });

type Asked = { id: string; consentUrl: string; email: string; secret: string; orgId: string; livemode: boolean };

async function ask(mode: 'live' | 'test', app: TestApp = t): Promise<Asked> {
  const k = await app.key({ mode, rpm: 100_000 });
  const email = `person-${randomUUID().slice(0, 8)}@example.org`;
  const res = await app.request('POST', '/v1/voices', {
    key: k.secret, headers: idem(), body: { name: 'Ana support', language: 'pt-BR', person: { name: 'Ana Souza', email }, purpose: 'Our support line' },
  });
  expect(res.status, await res.clone().text()).toBe(202);
  const v = await res.json();
  expect(v).toMatchObject({ status: 'awaiting_consent', livemode: mode === 'live' });
  return { id: v.id, consentUrl: v.consent_url, email, secret: k.secret, orgId: k.orgId, livemode: mode === 'live' };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** The person on the consent page: a code to their address, the code entered, their recording sent. */
async function consent(a: Asked): Promise<void> {
  expect((await post(`${a.consentUrl}/code`, {})).status).toBe(200);
  const mail = await until('the code mail', async () => {
    const { rows } = await t.pool.query(`SELECT subject FROM mail_outbox WHERE lower(to_addr) = lower($1) AND subject ~ ': [0-9]{6}$'`, [a.email]);
    return rows[0] as { subject: string } | undefined;
  });
  const code = /(\d{6})/.exec(mail.subject)![1]!;
  const verified = await post(`${a.consentUrl}/verify`, { code });
  expect(verified.status).toBe(200);
  const { secret } = (await verified.json()) as { secret: string };
  const res = await fetch(`${a.consentUrl}/recording`, {
    method: 'POST', headers: { 'content-type': 'audio/webm', 'x-consent-secret': secret }, body: recording,
  });
  expect(res.status, await res.clone().text()).toBe(202);
  expect(((await res.json()) as { status: string }).status).toBe('processing');
}

async function voice(a: Asked) {
  return (await t.request('GET', `/v1/voices/${a.id}`, { key: a.secret })).json();
}

async function waitStatus(a: Asked, status: string, timeoutMs = 20_000) {
  let last = '';
  return until(`voice ${a.id} ${status}`, async () => {
    const v = await voice(a);
    last = `${v.status} ${v.failure_code ?? ''}`;
    return v.status === status ? v : null;
  }, { timeoutMs, intervalMs: 50, detail: () => `last: ${last}` });
}

async function providerOf(id: string) {
  const { rows } = await t.pool.query(`SELECT provider, provider_voice_id, provider_error, provider_deleted_at FROM voices WHERE id = $1`, [id]);
  return rows[0] as { provider: string | null; provider_voice_id: string | null; provider_error: string | null; provider_deleted_at: Date | null };
}

const addsFor = (id: string) => el.got.filter((g) => g.path === '/v1/voices/add' && g.form && JSON.parse(String(g.form.get('labels') ?? '{}')).tolk_voice === id);
const deletesOf = (providerId: string) => el.got.filter((g) => g.method === 'DELETE' && g.path === `/v1/voices/${providerId}`);

/** A live voice consented and made at the provider. */
async function readyLiveVoice(): Promise<Asked & { providerId: string }> {
  const a = await ask('live');
  await consent(a);
  await waitStatus(a, 'ready');
  return { ...a, providerId: (await providerOf(a.id)).provider_voice_id! };
}

describe('live cloning with ElevenLabs configured', () => {
  it('a live request mails the consent link through SMTP; the consent makes the voice at ElevenLabs from the recording; ready with its id', async () => {
    const a = await ask('live');
    // Live mail leaves through SMTP_URL (and stays in the outbox).
    await until('the consent link at the SMTP server', async () => smtp.messages.find((m) => m.envelope.to.includes(a.email) && m.parsed.text?.includes(a.consentUrl)));
    expect(addsFor(a.id)).toHaveLength(0);
    await consent(a);
    const ready = await waitStatus(a, 'ready');
    expect(ready).toMatchObject({ status: 'ready', active: true, failure_code: null, livemode: true });

    const adds = addsFor(a.id);
    expect(adds).toHaveLength(1);
    const form = adds[0]!.form!;
    expect(form.get('name')).toBe('Ana support');
    expect(JSON.parse(String(form.get('labels')))).toMatchObject({ language: 'pt-BR', tolk_voice: a.id });
    // The file that arrived is the person's recording, byte for byte, and decodes as more than 3 s of audio.
    const file = form.get('files') as File;
    expect(file.type).toBe('audio/webm');
    const sent = Buffer.from(await file.arrayBuffer());
    expect(sent.equals(recording)).toBe(true);
    expect(sent.subarray(0, 4).toString('hex')).toBe('1a45dfa3');
    const audio = await decode(new Uint8Array(sent));
    expect(audio.channelData[0]!.length / audio.sampleRate).toBeGreaterThanOrEqual(3);

    const p = await providerOf(a.id);
    expect(p.provider).toBe('elevenlabs');
    expect(el.voices.has(p.provider_voice_id!)).toBe(true);
    // The event log says so.
    const events = await (await t.request('GET', '/v1/events?type=voice.*', { key: a.secret })).json();
    expect(events.data.filter((e: any) => e.data.object.id === a.id).map((e: any) => e.type)).toEqual(['voice.ready', 'voice.consent_completed']);
  });

  it('the synthesizer speaks the ready voice with its provider id at ElevenLabs, even where another engine comes first for the language', async () => {
    const a = await readyLiveVoice();
    const owner = { orgId: a.orgId, livemode: true };
    const inUse = await voiceInUse(t.pool, owner, a.id);
    expect(inUse).toBe(a.id);
    const voiceRef = await speechVoice(t.pool, owner, inUse);
    expect(voiceRef).toBe(`elevenlabs:${a.providerId}`);
    // pico first, as in the app's configuration: English would be pico's.
    const speech = startSynthesizers(t.config);
    try {
      const before = el.got.length;
      const said = await speech.synthesize('Good morning, how can I help?', 'en', voiceRef);
      const tts = el.got.slice(before).filter((g) => g.path.startsWith('/v1/text-to-speech/'));
      expect(tts.map((g) => g.path)).toEqual([`/v1/text-to-speech/${a.providerId}`]);
      expect(tts[0]!.json.text).toBe('Good morning, how can I help?');
      // The fake's half second of audio, at the line's 8 kHz.
      expect(said.ms).toBeGreaterThanOrEqual(480);
      expect(said.ms).toBeLessThanOrEqual(520);
      // Without the clone the phrase is pico's: nothing goes to ElevenLabs.
      const n = el.got.length;
      await speech.synthesize('Good morning, how can I help?', 'en');
      expect(el.got.length).toBe(n);
    } finally {
      await speech.close();
    }
    // Another organization cannot speak it.
    const other = await t.key({ mode: 'live' });
    expect(await speechVoice(t.pool, { orgId: other.orgId, livemode: true }, a.id)).toBeUndefined();
  });

  it('a guest whose clone is ready, joining through their own invitation, is read aloud to the others in it; another guest, and the voice once revoked, in the engine\'s own', async () => {
    const a = await readyLiveVoice();
    const bea = `bea-${randomUUID().slice(0, 8)}@example.org`;
    // A meeting a few seconds ahead, inviting the voice's person and Bea (no voice of hers).
    const made = await t.request('POST', '/v1/meetings', {
      key: a.secret, headers: idem(),
      body: { title: 'Weekly', starts_at: new Date(Date.now() + 3000).toISOString(), invitees: [a.email, bea], langs: ['en', 'es'] },
    });
    expect(made.status, await made.clone().text()).toBe(201);
    const roomId = (await made.json()).id as string;
    // Each one's own link, from their invitation mail.
    const linkOf = (email: string) => until(`${email}'s invitation`, async () => {
      const { rows } = await t.pool.query<{ text: string }>(`SELECT text FROM mail_outbox WHERE lower(to_addr) = lower($1) AND text LIKE $2`, [email, `%/r/${roomId}?t=%`]);
      return rows[0] ? new URL(new RegExp(`\\S+/r/${roomId}\\?t=\\S+`).exec(rows[0].text)![0]).searchParams.get('t')! : null;
    });
    const [anaLink, beaLink] = [await linkOf(a.email), await linkOf(bea)];
    await until('the meeting live', async () => (await (await t.request('GET', `/v1/rooms/${roomId}`, { key: a.secret })).json()).status === 'live', { timeoutMs: 20_000 });
    const join = async (name: string, speak: string, hear: string, tok: string) => {
      const res = await post(`${t.url}/r/${roomId}/participants`, { name, speak, hear, t: tok });
      expect(res.status, await res.clone().text()).toBe(201);
      return (await res.json()) as { id: string; secret: string };
    };
    const ana = await join('Ana', 'en', 'en', anaLink);
    const b = await join('Bea', 'en', 'en', beaLink);
    const say = async (who: { id: string; secret: string }, text: string) => {
      const res = await post(`${t.url}/r/${roomId}/say`, { participant: who.id, secret: who.secret, text });
      expect(res.status).toBe(202);
      return ((await res.json()) as { seq: number }).seq;
    };
    const readAloud = async (to: { id: string; secret: string }, seq: number) => {
      const before = el.got.length;
      const res = await fetch(`${t.url}/r/${roomId}/speech?seq=${seq}&participant=${to.id}&secret=${to.secret}`);
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(44);
      return el.got.slice(before).filter((g) => g.path.startsWith('/v1/text-to-speech/'));
    };
    // Ana's phrase, read aloud to Bea: in Ana's own voice, at ElevenLabs.
    const tts = await readAloud(b, await say(ana, 'Good morning, everyone.'));
    expect(tts.map((g) => g.path)).toEqual([`/v1/text-to-speech/${a.providerId}`]);
    expect(tts[0]!.json.text).toBe('Good morning, everyone.');
    // Bea's, read to Ana: the engine's own voice (pico), nothing at ElevenLabs.
    expect(await readAloud(ana, await say(b, 'Good morning, Ana.'))).toEqual([]);
    // Ana withdraws her voice: her next phrase is no longer spoken in it.
    expect((await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret })).status).toBe(200);
    expect(await readAloud(b, await say(ana, 'Shall we begin?'))).toEqual([]);
  });

  it('DELETE revokes the voice at once and deletes the provider\'s voice; it is no longer spoken', async () => {
    const a = await readyLiveVoice();
    const res = await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret });
    expect(res.status).toBe(200);
    expect((await res.json()).status).toBe('revoked');
    await until('the provider deletion', async () => (await providerOf(a.id)).provider_deleted_at);
    const dels = deletesOf(a.providerId);
    expect(dels.length).toBeGreaterThanOrEqual(1);
    expect(dels.at(-1)!.headers['xi-api-key']).toBe(KEY);
    expect(el.voices.has(a.providerId)).toBe(false);
    expect(await speechVoice(t.pool, { orgId: a.orgId, livemode: true }, a.id)).toBeUndefined();
  });

  it('the person withdrawing on the page deletes the provider\'s voice too', async () => {
    const a = await readyLiveVoice();
    const { rows } = await t.pool.query(`SELECT revoke_token FROM voices WHERE id = $1`, [a.id]);
    const page = await fetch(`${t.url}/consent/revoke/${rows[0].revoke_token}`, { method: 'POST' });
    expect(page.status).toBe(200);
    // A pt-BR voice: the page is in Portuguese.
    expect(await page.text()).toContain('Autorização retirada');
    await until('the provider deletion', async () => !el.voices.has(a.providerId) && (await providerOf(a.id)).provider_deleted_at);
    expect(deletesOf(a.providerId).length).toBeGreaterThanOrEqual(1);
  });

  it('a provider down while cloning: the voice stays processing, and is made once the provider is back', async () => {
    const a = await ask('live');
    el.state.down = true;
    try {
      await consent(a);
      await until('a first try that failed', async () => (await providerOf(a.id)).provider_error);
      expect(addsFor(a.id)).toHaveLength(0);
      expect((await voice(a)).status).toBe('processing');
    } finally {
      el.state.down = false;
    }
    await waitStatus(a, 'ready', 30_000);
    expect(addsFor(a.id)).toHaveLength(1);
    expect((await providerOf(a.id)).provider_voice_id).toBeTruthy();
  });

  it('a provider down while deleting: the voice is revoked at once, and the provider\'s voice is deleted once it is back', async () => {
    const a = await readyLiveVoice();
    el.state.down = true;
    try {
      const res = await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret });
      expect((await res.json()).status).toBe('revoked');
      await until('a deletion that failed', async () => deletesOf(a.providerId).length >= 1);
      expect(el.voices.has(a.providerId)).toBe(true);
      expect((await providerOf(a.id)).provider_deleted_at).toBeNull();
    } finally {
      el.state.down = false;
    }
    await until('the provider deletion', async () => !el.voices.has(a.providerId) && (await providerOf(a.id)).provider_deleted_at, 30_000);
    expect(deletesOf(a.providerId).length).toBeGreaterThanOrEqual(2);
  });

  it('a provider that refuses the key (401): the voice fails at once with a reason, not retried, never stuck in processing', async () => {
    const a = await ask('live');
    el.state.status = { code: 401, status: 'invalid_api_key', message: 'Invalid API key' };
    try {
      await consent(a);
      const failed = await waitStatus(a, 'failed');
      expect(failed).toMatchObject({ active: false, failure_code: 'provider_rejected' });
    } finally {
      el.state.status = null;
    }
    expect((await providerOf(a.id)).provider_error).toContain('401');
    // Not made, so it cannot be used, and its recording is gone.
    const { rows } = await t.pool.query(`SELECT 1 FROM voice_recordings WHERE voice_id = $1`, [a.id]);
    expect(rows).toHaveLength(0);
    // Tried once: the job is done, with no retry pending.
    const jobs = await t.pool.query(`SELECT state, retry_count FROM pgboss.job WHERE name = 'voice-clone' AND data->>'voiceId' = $1`, [a.id]);
    expect(jobs.rows).toEqual([{ state: 'completed', retry_count: 0 }]);
  });

  it('a provider still down at the last try: the voice fails as provider_unavailable', async () => {
    const a = await ask('live');
    el.state.down = true;
    try {
      await consent(a);
      // The job's last try, as pg-boss runs it after the earlier ones failed.
      await cloneVoice(t.services, { voiceId: a.id }, { retryCount: CLONE_RETRY.retryLimit, retryLimit: CLONE_RETRY.retryLimit });
      expect(await voice(a)).toMatchObject({ status: 'failed', failure_code: 'provider_unavailable' });
    } finally {
      el.state.down = false;
    }
  });

  it('a voice the provider would verify first cannot be spoken: failed, and the provider\'s voice is deleted', async () => {
    const a = await ask('live');
    el.state.requiresVerification = true;
    try {
      await consent(a);
      expect(await waitStatus(a, 'failed')).toMatchObject({ failure_code: 'provider_verification_required' });
    } finally {
      el.state.requiresVerification = false;
    }
    const p = await providerOf(a.id);
    await until('the provider deletion', async () => !el.voices.has(p.provider_voice_id!) && (await providerOf(a.id)).provider_deleted_at);
  });

  it('the consent test helper stays refused to live keys: only the person consents', async () => {
    const a = await ask('live');
    const res = await t.request('POST', `/v1/test-helpers/voices/${a.id}/complete-consent`, { key: a.secret });
    expect(res.status).toBe(501);
    expect((await res.json()).message).toMatch(/consent page/);
    expect((await voice(a)).status).toBe('awaiting_consent');
  });

  it('test keys never reach the provider: the simulator makes their voices, on the page and with the helper, and revoking them sends nothing', async () => {
    const viaPage = await ask('test');
    await consent(viaPage);
    const helped = await ask('test');
    const res = await t.request('POST', `/v1/test-helpers/voices/${helped.id}/complete-consent`, { key: helped.secret });
    expect(res.status).toBe(200);
    await waitStatus(viaPage, 'ready');
    await waitStatus(helped, 'ready');
    for (const a of [viaPage, helped]) {
      expect((await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret })).status).toBe(200);
      expect(addsFor(a.id)).toHaveLength(0);
      expect(await providerOf(a.id)).toMatchObject({ provider: null, provider_voice_id: null });
      expect(await speechVoice(t.pool, { orgId: a.orgId, livemode: false }, a.id)).toBeUndefined();
    }
    // Nothing at all reached the provider with a test voice's labels, and no deletion without a provider id was asked.
    expect(el.got.filter((g) => g.form && [viaPage.id, helped.id].includes(JSON.parse(String(g.form.get('labels') ?? '{}')).tolk_voice))).toHaveLength(0);
  });
});

describe('without a cloning engine', () => {
  let bare: TestApp;
  beforeAll(async () => {
    // ElevenLabs as a synthesizer needs its key, so a server without the key has no elevenlabs at all: pico only.
    bare = await startTestApp({ config: { speechEngines: ['pico'] } });
  });
  afterAll(async () => { await bare?.close(); });

  it('live keys answer 501 not_available_yet saying what the operator must configure; test keys clone on the simulator', async () => {
    const k = await bare.key({ mode: 'live' });
    const res = await bare.request('POST', '/v1/voices', {
      key: k.secret, headers: idem(), body: { name: 'Ana', language: 'pt-BR', person: { name: 'Ana Souza', email: 'ana@example.org' } },
    });
    expect(res.status).toBe(501);
    const p = await res.json();
    expect(p.code).toBe('not_available_yet');
    expect(p.message).toMatch(/TOLK_SPEECH_ENGINES/);
    expect(p.message).toMatch(/ELEVENLABS_API_KEY/);
    const { rows } = await bare.pool.query(`SELECT count(*)::int AS n FROM voices`);
    expect(rows[0].n).toBe(0);
    const test = await ask('test', bare);
    expect(test.livemode).toBe(false);
  });
});
