import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import type { ConsentTexts } from '../../src/i18n/consent.ts';
import { consentTexts } from '../../src/voices/texts.ts';

// The consent page (src/voices/consent-page.ts) end to end in a real headless
// Chromium whose microphone is Chromium's fake device: by default a beep of
// 0.14 s about every half second; with --use-file-for-fake-audio-capture, a WAV file of
// ours played in a loop (silence; short blips too thin to clone). The person
// opens the link of the request, asks for a code, reads it from the mail
// outbox, records with MediaRecorder, and the voice becomes ready over the
// API; then the receipt's link withdraws the consent. Every request to
// another origin is refused and recorded; none may happen.

const ARTIFACTS = path.join(ROOT, 'test/artifacts');
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
/** A name that would add markup if it were not escaped. */
const ORG = 'Acme <i>Voices</i> & Co';

let t: TestApp;
let origin: string;
let beeps: Browser;
let silent: Browser;
let blips: Browser;
const foreign: string[] = [];
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];
let tmp: string;

/** A mono 16-bit 48 kHz WAV: `tone(t)` is true where a 440 Hz tone plays, silence elsewhere. */
function wav(file: string, seconds: number, tone: (t: number) => boolean): string {
  const rate = 48_000;
  const n = rate * seconds;
  const b = Buffer.alloc(44 + n * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + n * 2, 4); b.write('WAVE', 8); b.write('fmt ', 12);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(n * 2, 40);
  for (let i = 0; i < n; i++) {
    const s = tone(i / rate) ? Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 16_000) : 0;
    b.writeInt16LE(s, 44 + i * 2);
  }
  const p = path.join(tmp, file);
  fs.writeFileSync(p, b);
  return p;
}

function launch(audioFile?: string): Promise<Browser> {
  const args = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'];
  if (audioFile) args.push(`--use-file-for-fake-audio-capture=${audioFile}`);
  return launchChromium(args);
}

async function newContext(browser: Browser): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block', permissions: ['microphone'] });
  contexts.push(ctx);
  await ctx.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin || url.protocol === 'blob:' || url.protocol === 'data:') {
      await route.continue();
    } else {
      foreign.push(url.href);
      await route.abort('blockedbyclient');
    }
  });
  return ctx;
}

async function open(ctx: BrowserContext, url: string, status = 200): Promise<Page> {
  const p = await ctx.newPage();
  p.on('pageerror', (err) => { pageErrors.push(String(err)); });
  p.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text()); });
  const res = await p.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(status);
  return p;
}

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** ui: the texts of the page, in the voice's language (pt-BR by default: Portuguese). */
type Asked = { id: string; consentUrl: string; email: string; secret: string; orgId: string; ui: ConsentTexts };

/** A voice asked for over the API, by a new organization. */
async function ask(o: { language?: string; person?: string; purpose?: string } = {}): Promise<Asked> {
  const k = await t.key({ rpm: 100_000 });
  await t.pool.query(`UPDATE organizations SET name = $2 WHERE id = $1`, [k.orgId, ORG]);
  const email = `person-${crypto.randomUUID().slice(0, 8)}@example.org`;
  const res = await t.request('POST', '/v1/voices', {
    key: k.secret, headers: idem(),
    body: { name: 'Narrator', language: o.language ?? 'pt-BR', person: { name: o.person ?? 'Ana Souza', email }, ...(o.purpose ? { purpose: o.purpose } : {}) },
  });
  expect(res.status).toBe(202);
  const v = await res.json();
  return { id: v.id, consentUrl: v.consent_url, email, secret: k.secret, orgId: k.orgId, ui: consentTexts(o.language ?? 'pt-BR') };
}

async function mailsTo(to: string) {
  const { rows } = await t.pool.query(`SELECT subject, text, status, livemode FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to]);
  return rows as Array<{ subject: string; text: string; status: string; livemode: boolean }>;
}

/** The last one-time code mailed to the person. */
async function lastCode(email: string, count: number): Promise<string> {
  const mails = await until('the code mail', async () => {
    const m = (await mailsTo(email)).filter((x) => /^[^:]+ ?: \d{6}$/.test(x.subject));
    return m.length >= count ? m : null;
  }, 5000);
  return /(\d{6})/.exec(mails.at(-1)!.subject)![1]!;
}

async function voice(a: Asked) {
  return (await t.request('GET', `/v1/voices/${a.id}`, { key: a.secret })).json();
}

async function waitStatus(a: Asked, status: string, timeoutMs = 5000) {
  return until(`voice ${status}`, async () => {
    const v = await voice(a);
    return v.status === status ? v : null;
  }, { timeoutMs, intervalMs: 100 });
}

/** Steps 1 and 2 on the page: the code asked for, a wrong one tried when asked, the right one entered. */
async function confirmEmail(p: Page, a: Asked, o: { wrongFirst?: boolean } = {}) {
  await p.getByRole('button', { name: a.ui.sendCode }).click();
  await p.locator('#code-status', { hasText: a.ui.script.sent.split('{')[0]! }).waitFor();
  const code = await lastCode(a.email, 1);
  if (o.wrongFirst) {
    const wrong = code === '000000' ? '111111' : '000000';
    await p.getByLabel(a.ui.codeLabel).fill(wrong);
    await p.getByRole('button', { name: a.ui.confirm, exact: true }).click();
    await p.locator('#code-error', { hasText: a.ui.errors.wrongCode(4) }).waitFor();
    expect(await p.getByLabel(a.ui.codeLabel).getAttribute('aria-invalid')).toBe('true');
  }
  await p.getByLabel(a.ui.codeLabel).fill(code);
  await p.getByRole('button', { name: a.ui.confirm, exact: true }).click();
  await p.locator('#step-record').waitFor({ state: 'visible' });
}

/** Records for `ms` on the page. */
async function record(p: Page, a: Asked, ms: number) {
  await p.locator('#record').click();
  await p.locator('#mic-status', { hasText: a.ui.script.recording }).waitFor();
  await p.waitForTimeout(ms);
  await p.getByRole('button', { name: a.ui.stop, exact: true }).click();
}


beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-consent-'));
  t = await startTestApp({ workers: true });
  origin = new URL(t.url).origin;
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  [beeps, silent, blips] = await Promise.all([
    launch(),
    launch(wav('silence.wav', 6, () => false)),
    // 0.2 s of tone every 2 s: a 4.5 s recording holds 2 or 3 of them (0.4-0.6 s of sound): not silence, too little to clone.
    launch(wav('blips.wav', 6, (s) => s % 2 < 0.2)),
  ]);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await Promise.all([beeps?.close(), silent?.close(), blips?.close()]);
  await t?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('consent page', () => {
  it('the person confirms the address with a code, reads the sentence in Portuguese, records it live, and the voice becomes ready; the link then cannot be used again', async () => {
    const a = await ask({ purpose: 'Our <b>audiobook</b> narrator in Portuguese' });
    // The request mail carries the link.
    const [request] = await mailsTo(a.email);
    expect(request).toMatchObject({ status: 'kept', livemode: false });
    expect(request!.text).toContain(a.consentUrl);

    const ctx = await newContext(beeps);
    const p = await open(ctx, a.consentUrl);
    // Who asks and why, as text (escaped), and the address only masked.
    expect(await p.locator('[data-field="org"]').textContent()).toBe(ORG);
    expect(await p.locator('[data-field="purpose"]').textContent()).toBe('Our <b>audiobook</b> narrator in Portuguese');
    expect(await p.locator('main i, main b').count()).toBe(0);
    const html = await p.content();
    expect(html).not.toContain(a.email);
    expect(html).toMatch(/p\*\*\*@e\*\*\*\.org/);
    // A pt-BR voice: the page is in Portuguese, dates too.
    expect(await p.locator('html').getAttribute('lang')).toBe('pt-BR');
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe('Autorização para copiar a sua voz');
    expect(html).toContain('português (Brasil) (pt-BR)');
    // No file input: the consent is recorded live.
    expect(await p.locator('input[type="file"]').count()).toBe(0);
    await shot(p, 'consent-page');

    await confirmEmail(p, a, { wrongFirst: true });
    const sentence = p.locator('#sentence');
    expect(await sentence.getAttribute('lang')).toBe('pt');
    expect(await sentence.textContent()).toMatch(/^Eu, Ana Souza, autorizo Acme <i>Voices<\/i> & Co a criar/);
    // Giving consent needs a recording and the box ticked.
    expect(await p.getByRole('button', { name: 'Dar a minha autorização' }).isDisabled()).toBe(true);

    // The fake microphone beeps about a quarter of the time: 8 s hold the 1.5 s of sound the simulator's cloning needs.
    await record(p, a, 8000);
    await p.locator('#mic-status', { hasText: 'Gravação de' }).waitFor();
    expect(await p.locator('#playback').isVisible()).toBe(true);
    expect(await p.getByRole('button', { name: 'Dar a minha autorização' }).isDisabled()).toBe(true);
    await p.getByLabel(/^Autorizo Acme/).check();
    await shot(p, 'consent-recorded');
    await p.getByRole('button', { name: 'Dar a minha autorização' }).click();
    await p.locator('#done-status', { hasText: 'A sua voz está pronta' }).waitFor({ timeout: 10_000 });
    await shot(p, 'consent-done');

    // Over the API: ready, usable, the link gone from the voice.
    const v = await voice(a);
    expect(v).toMatchObject({ status: 'ready', active: true, consent_url: null, failure_code: null });
    const rec = (await t.pool.query(`SELECT content_type, duration_ms, sound_ms, length(audio) AS bytes FROM voice_recordings WHERE voice_id = $1`, [a.id])).rows[0];
    expect(rec.content_type).toBe('audio/webm');
    expect(rec.duration_ms).toBeGreaterThanOrEqual(3000);
    expect(rec.sound_ms).toBeGreaterThanOrEqual(1500);
    expect(Number(rec.bytes)).toBeGreaterThan(1000);
    const proof = (await t.pool.query(`SELECT consent_method, consent_sentence, consented_at FROM voices WHERE id = $1`, [a.id])).rows[0];
    expect(proof.consent_method).toBe('page');
    expect(proof.consent_sentence).toBe(await sentence.textContent());
    const events = (await t.pool.query(`SELECT type, data FROM outbox WHERE object_id = $1 ORDER BY id`, [a.id])).rows;
    expect(events.map((e) => e.type)).toEqual(['voice.consent_completed', 'voice.ready']);
    for (const e of events) expect(JSON.stringify(e.data)).not.toContain(a.email);
    // The receipt has the sentence and the withdrawal link.
    const receipt = (await mailsTo(a.email)).find((m) => m.subject === `Você autorizou ${ORG} a copiar a sua voz`)!;
    expect(receipt.text).toContain(proof.consent_sentence);
    expect(receipt.text).toMatch(/\/consent\/revoke\/[A-Za-z0-9_-]{32}/);

    // A second use of the link: the page says consent was given, and offers nothing.
    const again = await open(ctx, a.consentUrl, 409);
    expect(await again.getByRole('heading', { level: 1 }).textContent()).toBe('Autorização já concedida');
    expect(await again.getByRole('button').count()).toBe(0);
    const code = await t.request('POST', `${new URL(a.consentUrl).pathname}/code`);
    expect(code.status).toBe(409);
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('the receipt\'s link withdraws the consent without an account: the voice is revoked, unusable and its recording deleted', async () => {
    const a = await ask({ language: 'es', person: 'Lucía' });
    await t.request('POST', `/v1/test-helpers/voices/${a.id}/complete-consent`, { key: a.secret });
    await waitStatus(a, 'ready');
    const receipt = await until('the receipt', async () => (await mailsTo(a.email)).find((m) => m.subject === a.ui.mail.confirmationSubject(ORG)), 5000);
    expect(receipt.text).toContain('Yo, Lucía, autorizo a');
    const link = /(http\S+\/consent\/revoke\/[A-Za-z0-9_-]{32})/.exec(receipt.text)![1]!;

    const ctx = await newContext(beeps);
    const p = await open(ctx, link);
    // Opening the link withdraws nothing (mail scanners open links): a button does.
    expect((await voice(a)).status).toBe('ready');
    await shot(p, 'consent-withdraw');
    await p.getByRole('button', { name: a.ui.revokeButton }).click();
    await p.getByRole('heading', { name: a.ui.revokedHeading }).waitFor();
    const v = await voice(a);
    expect(v).toMatchObject({ status: 'revoked', active: false });
    expect((await t.pool.query(`SELECT revoked_by FROM voices WHERE id = $1`, [a.id])).rows[0].revoked_by).toBe('person');
    expect((await mailsTo(a.email)).some((m) => m.subject === a.ui.mail.revokedSubject(ORG))).toBe(true);
    // An agent cannot speak with it any more.
    const room = await (await t.request('POST', '/v1/rooms', { key: a.secret, headers: idem(), body: { langs: ['es', 'en'] } })).json();
    const join = await t.request('POST', `/v1/rooms/${room.id}/agent-sessions`, { key: a.secret, headers: idem(), body: { speak_lang: 'es', hear_lang: 'es', voice_id: a.id } });
    expect(join.status).toBe(400);
    expect((await join.json()).message).toMatch(/^voice_id: .*revoked/);
    // The link again: withdrawn already; nothing more to do.
    const again = await open(ctx, link);
    expect(await again.getByRole('heading', { level: 1 }).textContent()).toBe(a.ui.revokedHeading);
    expect(await again.getByRole('button').count()).toBe(0);
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('silence is refused with a reason and the person can record again; the voice still awaits consent', async () => {
    const a = await ask({ language: 'en', person: 'Sam' });
    const ctx = await newContext(silent);
    const p = await open(ctx, a.consentUrl);
    await confirmEmail(p, a);
    expect(await p.locator('#sentence').getAttribute('lang')).toBe('en');
    await record(p, a, 4000);
    await p.locator('#mic-status', { hasText: 'Recorded' }).waitFor();
    await p.getByLabel(/I agree that/).check();
    await p.getByRole('button', { name: 'Give my consent' }).click();
    await p.locator('#record-error', { hasText: 'we heard only silence' }).waitFor();
    await shot(p, 'consent-silence');
    // Still on the recording step, ready for another try.
    expect(await p.getByRole('button', { name: 'Record again' }).isEnabled()).toBe(true);
    expect((await voice(a)).status).toBe('awaiting_consent');
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM voice_recordings WHERE voice_id = $1`, [a.id])).rows[0].n).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a recording with sound but too little speech is accepted as consent and fails processing (insufficient_speech)', async () => {
    const a = await ask({ language: 'fr', person: 'Chloé' });
    const ctx = await newContext(blips);
    const p = await open(ctx, a.consentUrl);
    await confirmEmail(p, a);
    // French reads the English sentence.
    expect(await p.locator('#sentence').getAttribute('lang')).toBe('en');
    await record(p, a, 4500);
    // A French voice: the page is in French.
    await p.locator('#mic-status', { hasText: 's enregistrées' }).waitFor();
    await p.getByLabel(/^J’accepte que/).check();
    await p.getByRole('button', { name: 'Donner mon consentement' }).click();
    await p.locator('#done-status', { hasText: 'Nous n’avons pas pu créer de voix' }).waitFor({ timeout: 10_000 });
    const v = await voice(a);
    expect(v).toMatchObject({ status: 'failed', active: false, failure_code: 'insufficient_speech' });
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM voice_recordings WHERE voice_id = $1`, [a.id])).rows[0].n).toBe(0);
    const events = (await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [a.id])).rows.map((r) => r.type);
    expect(events).toEqual(['voice.consent_completed', 'voice.failed']);
    expect(pageErrors).toEqual([]);
  });

  it('an expired link says so and takes nothing', async () => {
    const a = await ask();
    await t.pool.query(
      `UPDATE pgboss.job SET start_after = now() WHERE name = 'voice-timer' AND data->>'voiceId' = $1 AND data->>'kind' = 'expire'`, [a.id],
    );
    const v = await waitStatus(a, 'expired');
    expect(v.consent_url).toBeNull();
    const ctx = await newContext(beeps);
    const p = await open(ctx, a.consentUrl, 410);
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe('Este link expirou');
    expect(await p.getByRole('button').count()).toBe(0);
    expect((await t.request('POST', `${new URL(a.consentUrl).pathname}/code`)).status).toBe(409);
    const events = (await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [a.id])).rows.map((r) => r.type);
    expect(events).toEqual(['voice.expired']);
  });

  it('an unknown link is a plain 404 page', async () => {
    const ctx = await newContext(beeps);
    const p = await open(ctx, `${t.url}/consent/${'x'.repeat(32)}`, 404);
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe('Link not found');
    await open(ctx, `${t.url}/consent/revoke/${'y'.repeat(32)}`, 404);
  });

  it('no page can be framed: CSP frame-ancestors and X-Frame-Options (for older browsers), error pages included', async () => {
    const a = await ask();
    for (const [path, status] of [[new URL(a.consentUrl).pathname, 200], [`/consent/${'x'.repeat(32)}`, 404], [`/consent/revoke/${'y'.repeat(32)}`, 404]] as const) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
  });
});

describe('consent steps over HTTP', () => {
  const tone = (seconds: number) => fs.readFileSync(wav(`tone-${seconds}.wav`, seconds, () => true));
  const pathOf = (a: Asked) => new URL(a.consentUrl).pathname;

  async function verified(a: Asked): Promise<string> {
    expect((await t.request('POST', `${pathOf(a)}/code`)).status).toBe(200);
    const code = await lastCode(a.email, 1);
    const res = await t.request('POST', `${pathOf(a)}/verify`, { body: { code } });
    expect(res.status).toBe(200);
    return (await res.json()).secret;
  }

  function upload(a: Asked, secret: string | null, body: Buffer, type = 'audio/webm') {
    return fetch(`${t.url}${pathOf(a)}/recording`, {
      method: 'POST', body, headers: { 'content-type': type, ...(secret ? { 'x-consent-secret': secret } : {}) },
    });
  }

  it('a code has 5 tries, lapses, and a new one is not sent sooner than 30 s after the last', async () => {
    const a = await ask();
    const sent = await t.request('POST', `${pathOf(a)}/code`);
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ sent_to: expect.stringMatching(/^p\*\*\*@e\*\*\*\.org$/), expires_in: 600 });
    const code = await lastCode(a.email, 1);
    const wrong = code === '000000' ? '111111' : '000000';
    const again = await t.request('POST', `${pathOf(a)}/code`);
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    const messages: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.request('POST', `${pathOf(a)}/verify`, { body: { code: wrong } });
      expect(r.status).toBe(400);
      const p = await r.json();
      expect(p.field).toBe('code');
      messages.push(p.error);
    }
    expect(messages[0]).toBe('code: wrong code; 4 tries left');
    expect(messages[4]).toBe('code: wrong code; too many tries, ask for a new code');
    // The right code no longer works: it was voided.
    const late = await t.request('POST', `${pathOf(a)}/verify`, { body: { code } });
    expect((await late.json()).error).toBe('code: ask for a code first');
    // Malformed codes name the field.
    const bad = await t.request('POST', `${pathOf(a)}/verify`, { body: { code: '12ab' } });
    expect([bad.status, (await bad.json()).field]).toEqual([400, 'code']);
    // A code past its 10 minutes.
    await t.pool.query(`UPDATE voices SET code_sent_at = now() - interval '11 minutes' WHERE id = $1`, [a.id]);
    expect((await t.request('POST', `${pathOf(a)}/code`)).status).toBe(200);
    const fresh = await lastCode(a.email, 2);
    await t.pool.query(`UPDATE voices SET code_expires_at = now() - interval '1 second' WHERE id = $1`, [a.id]);
    const expired = await t.request('POST', `${pathOf(a)}/verify`, { body: { code: fresh } });
    expect((await expired.json()).error).toBe('code: this code has expired; ask for a new one');
    expect((await voice(a)).status).toBe('awaiting_consent');
  });

  it('a recording needs the confirmed address, is real audio of at least 3 s, and completes the consent once', async () => {
    const a = await ask();
    // Without the secret of a confirmed code: 401, nothing decoded.
    expect((await upload(a, null, tone(4))).status).toBe(401);
    expect((await upload(a, 'x'.repeat(32), tone(4))).status).toBe(401);
    const secret = await verified(a);
    const short = await upload(a, secret, tone(1));
    expect(short.status).toBe(400);
    expect(await short.json()).toMatchObject({ field: 'recording', error: 'recording: 1.0 s long; record at least 3 s (the whole sentence)' });
    const junk = await upload(a, secret, Buffer.from('this is not audio, just text pretending'));
    expect(await junk.json()).toMatchObject({ field: 'recording', error: 'recording: this is not audio we can read; record again' });
    const typed = await upload(a, secret, tone(4), 'text/plain');
    expect(typed.status).toBe(415);
    expect((await voice(a)).status).toBe('awaiting_consent');
    // Two uploads at once (a double click): one consent, the other told the link is used.
    const [x, y] = await Promise.all([upload(a, secret, tone(4)), upload(a, secret, tone(4))]);
    expect([x.status, y.status].sort()).toEqual([202, 409]);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM voice_recordings WHERE voice_id = $1`, [a.id])).rows[0].n).toBe(1);
    await waitStatus(a, 'ready');
    const events = (await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [a.id])).rows.map((r) => r.type);
    expect(events).toEqual(['voice.consent_completed', 'voice.ready']);
    // Used: every step now answers 409.
    expect((await upload(a, secret, tone(4))).status).toBe(409);
    expect((await t.request('POST', `${pathOf(a)}/verify`, { body: { code: '123456' } })).status).toBe(409);
  });

  it('a request withdrawn by the organization closes its link', async () => {
    const a = await ask();
    const del = await t.request('DELETE', `/v1/voices/${a.id}`, { key: a.secret });
    expect((await del.json()).status).toBe('revoked');
    const ctx = await newContext(beeps);
    const p = await open(ctx, a.consentUrl, 410);
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe('Este pedido foi retirado');
    expect((await t.request('POST', `${pathOf(a)}/code`)).status).toBe(409);
  });
});

describe('consent routes and bad input', () => {
  it('answer malformed requests with a 4xx problem, never a 5xx', async () => {
    const a = await ask();
    const base = new URL(a.consentUrl).pathname;
    const paths = [base, `/consent/${'z'.repeat(5000)}`, '/consent/%00', '/consent/..%2f..%2fetc', `/consent/revoke/${'q'.repeat(40)}`];
    const bodies: Array<[string, string | Buffer]> = [
      ['application/json', '{'],
      ['application/json', 'null'],
      ['application/json', '[]'],
      ['application/json', JSON.stringify({ code: 123456 })],
      ['application/json', JSON.stringify({ code: '1'.repeat(10_000) })],
      ['application/json', JSON.stringify({ code: '12345\u0000' })],
      ['text/plain', 'hello'],
      ['audio/webm', Buffer.alloc(64, 0xff)],
      ['application/x-www-form-urlencoded', 'a=b'],
    ];
    const seen: string[] = [];
    for (const p of paths) {
      for (const suffix of ['', '/code', '/verify', '/recording', '/status']) {
        for (const [type, body] of bodies) {
          const res = await fetch(`${t.url}${p}${suffix}`, { method: 'POST', headers: { 'content-type': type, 'x-consent-secret': 'abc' }, body });
          seen.push(`${res.status}`);
          // /code takes no body: on an open link it sends a code (then 429 until 30 s have passed); nothing else can succeed.
          if (!(suffix === '/code' && p === base && res.status === 200)) expect(res.status, `POST ${p}${suffix} ${type}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `POST ${p}${suffix} ${type}`).toBeLessThan(500);
          if (res.status >= 400 && (res.headers.get('content-type') ?? '').includes('json')) {
            const j = (await res.json()) as { code?: unknown };
            expect(typeof j.code, `POST ${p}${suffix}`).toBe('string');
          } else {
            await res.arrayBuffer();
          }
        }
        const get = await fetch(`${t.url}${p}${suffix}`);
        expect(get.status, `GET ${p}${suffix}`).toBeLessThan(500);
        await get.arrayBuffer();
      }
    }
    // A verify with a malformed code names the field; the link is unharmed.
    const bad = await t.request('POST', `${base}/verify`, { body: { code: 123456 } });
    expect(await bad.json()).toMatchObject({ field: 'code' });
    expect((await voice(a)).status).toBe('awaiting_consent');
    expect(seen.length).toBeGreaterThan(100);
  });
});
