import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { withApertium } from '../helpers/apertium.ts';
import { PUBLIC_LIMITS } from '../../src/config.ts';
import { saidInOrder, words } from '../../src/engines/speech/wer.ts';

// The room page speaking and hearing, in Chromium: Ana's microphone is a WAV
// of recorded speech (--use-file-for-fake-audio-capture, Debian's
// pocketsphinx-testdata); she presses "Microphone". Bea, who hears Spanish,
// has "Read aloud" on: she reads Ana's phrase recognized (PocketSphinx) and
// translated (Apertium), and her page plays it spoken (Pico), its length
// measured in her page with Web Audio. Ana, who hears Spanish too, reads her
// own phrase as it was recognized, in English: translated back, it would hide
// what the recognizer misheard. Nothing here loads from another
// origin; the microphone is asked for only when Ana presses the button.

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const NAME = 'sense_and_sensibility_01_austen_64kb-0870';

let t: TestApp;
let speaker: Browser;
let listener: Browser;
let wavPath: string;
let said: string;
const contexts: BrowserContext[] = [];

/** The recorded sentence then 3 s of silence, as a 16 kHz WAV Chromium plays as the microphone (over and over). */
function microphoneFile(): string {
  const wav = fs.readFileSync(`${DATA}/${NAME}.wav`);
  const pcm = Buffer.concat([wav.subarray(44), Buffer.alloc(16_000 * 2 * 3)]);
  const head = Buffer.alloc(44);
  head.write('RIFF', 0); head.writeUInt32LE(36 + pcm.length, 4); head.write('WAVE', 8); head.write('fmt ', 12);
  head.writeUInt32LE(16, 16); head.writeUInt16LE(1, 20); head.writeUInt16LE(1, 22); head.writeUInt32LE(16_000, 24);
  head.writeUInt32LE(32_000, 28); head.writeUInt16LE(2, 32); head.writeUInt16LE(16, 34); head.write('data', 36); head.writeUInt32LE(pcm.length, 40);
  const p = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-mic-')), 'speech.wav');
  fs.writeFileSync(p, Buffer.concat([head, pcm]));
  return p;
}

function launch(args: string[]): Promise<Browser> {
  // Chromium's sandbox refuses to start as root (CI containers run as root).
  return launchChromium(args);
}

async function page(browser: Browser, url: string): Promise<Page> {
  const origin = new URL(url).origin;
  const ctx = await browser.newContext({ permissions: ['microphone'], serviceWorkers: 'block' });
  contexts.push(ctx);
  await ctx.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort('blockedbyclient')));
  const p = await ctx.newPage();
  // What the page plays, measured where it plays it: each AudioBuffer started, and its length.
  // (A script in the page, as text: this project's types have no DOM.)
  await p.addInitScript({
    content: `
      window.played = [];
      window.micAsked = 0;
      const start = AudioBufferSourceNode.prototype.start;
      AudioBufferSourceNode.prototype.start = function (...args) {
        if (this.buffer) window.played.push(this.buffer.duration);
        return start.apply(this, args);
      };
      const gum = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
      navigator.mediaDevices.getUserMedia = (c) => { window.micAsked += 1; return gum(c); };`,
  });
  await p.goto(url);
  return p;
}

async function join(p: Page, name: string, speak: string, hear: string): Promise<void> {
  await p.getByLabel('Your name').fill(name);
  await p.getByLabel('I speak').selectOption(speak);
  await p.getByLabel('I hear').selectOption(hear);
  await p.getByRole('button', { name: 'Join' }).click();
  await p.locator('#room').waitFor({ state: 'visible' });
}

beforeAll(async () => {
  t = await startTestApp({
    config: { ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico'], publicLimits: { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000 } },
  });
  wavPath = microphoneFile();
  const lines = fs.readFileSync(`${DATA}/transcription`, 'utf8').trim().split('\n');
  said = lines.map((l) => /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())!).find((m) => m[2] === NAME)![1]!;
  speaker = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${wavPath}`]);
  listener = await launch(['--autoplay-policy=no-user-gesture-required']);
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await speaker?.close();
  await listener?.close();
  t?.app.server.closeAllConnections();
  await t?.close();
  if (wavPath) fs.rmSync(path.dirname(wavPath), { recursive: true, force: true });
});

async function room(langs: string[]): Promise<{ id: string; url: string; key: string }> {
  const key = (await t.key({ rpm: 100_000 })).secret;
  const res = await t.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs, visibility: 'public' } });
  expect(res.status).toBe(201);
  const r = await res.json();
  return { id: r.id, url: r.url, key };
}

describe('the room page speaks and hears', () => {
  it('Ana speaks into her microphone; Bea reads her in Spanish and hears it read aloud', async () => {
    const r = await room(['en', 'es']);
    const ana = await page(speaker, r.url);
    const bea = await page(listener, r.url);
    const headers = (await (await fetch(r.url)).headers);
    expect(headers.get('permissions-policy')).toContain('microphone=(self)');
    await join(ana, 'Ana', 'en', 'es');
    await join(bea, 'Bea', 'es', 'es');
    await bea.getByLabel('Read aloud what the others say, in my language').check();
    // The microphone is asked for only when Ana presses the button.
    expect(await ana.evaluate<number>('window.micAsked')).toBe(0);
    await ana.getByRole('button', { name: 'Microphone' }).click();
    await until('the microphone on', async () => (await ana.getByRole('button', { name: 'Microphone on' }).count()) === 1, 10_000);
    expect(await ana.evaluate<number>('window.micAsked')).toBe(1);
    // The level meter moves while she speaks.
    await until('the level meter moves', async () => (await ana.evaluate<number>('document.getElementById("mic-level").value')) > 0, 10_000);

    // Bea reads Ana's phrase in Spanish, with the English as said.
    const phrase = bea.locator('#phrases li.phrase', { hasText: 'Ana' }).first();
    await phrase.waitFor({ timeout: 40_000 });
    const spanish = (await phrase.locator('.text').textContent()) ?? '';
    const original = (await phrase.locator('.original').textContent()) ?? '';
    expect(await phrase.locator('.text').getAttribute('lang')).toBe('es');
    expect(saidInOrder(words(said), words(original))).toBeGreaterThan(0.4);
    expect(spanish).not.toBe(original);
    // Ana sees her own phrase as hers, as it was recognized: the English Bea has as its original, not the Spanish.
    const own = ana.locator('#phrases li.phrase.own').first();
    await own.waitFor({ timeout: 10_000 });
    expect(await own.locator('.text').textContent()).toBe(original);
    expect(await own.locator('.text').getAttribute('lang')).toBe('en');
    expect(await own.locator('.text').textContent()).not.toBe(spanish);

    // Bea's page played it, once, as long as its words take to say.
    const played = await until('Bea hears it', async () => {
      const d = await bea.evaluate<number[]>('window.played');
      return d.length > 0 ? d : null;
    }, { timeoutMs: 20_000, intervalMs: 100 });
    const n = words(spanish).length;
    expect(played[0]).toBeGreaterThan(n * 0.15);
    expect(played[0]).toBeLessThan(n * 1.0 + 2);
    // Ana never hears her own words (she has read aloud off, and her page asked for no speech).
    expect(await ana.evaluate<number[]>('window.played')).toEqual([]);

    await ana.getByRole('button', { name: 'Microphone on' }).click();
    await until('the microphone off', async () => (await ana.getByRole('button', { name: 'Microphone', exact: true }).count()) === 1, 5000);

    // The room ends: its transcript holds Ana's spoken phrase, as said and in Spanish.
    expect((await t.request('DELETE', `/v1/rooms/${r.id}`, { key: r.key })).status).toBe(200);
    const list = await until('the room\'s transcript', async () => {
      const l = await (await t.request('GET', `/v1/transcripts?room_id=${r.id}`, { key: r.key })).json();
      return l.data?.length > 0 ? l.data : null;
    }, { timeoutMs: 10_000, intervalMs: 100 });
    expect(list).toHaveLength(1);
    const tr = await (await t.request('GET', `/v1/transcripts/${list[0].id}?lang=es`, { key: r.key })).json();
    const seg = tr.segments.find((x: { speaker: string }) => x.speaker === 'Ana');
    expect(seg).toMatchObject({ src_lang: 'en', untrusted_content: { text: original, text_in_lang: spanish } });
  });

  it('where no engine covers a language, the controls say so and typing works', async () => {
    const r = await room(['fr', 'pt']);
    const fleur = await page(listener, r.url);
    await join(fleur, 'Fleur', 'fr', 'pt');
    await until('the microphone says why', async () => /No speech recognition for French/.test((await fleur.locator('#mic-status').textContent()) ?? ''), 5000);
    expect(await fleur.getByRole('button', { name: 'Microphone' }).isDisabled()).toBe(true);
    expect(await fleur.getByRole('button', { name: 'Hold to talk' }).isDisabled()).toBe(true);
    await until('read aloud says why', async () => /No voice on this service speaks Portuguese/.test((await fleur.locator('#read-status').textContent()) ?? ''), 5000);
    expect(await fleur.getByLabel('Read aloud what the others say, in my language').isDisabled()).toBe(true);
    await fleur.getByLabel('Say something').fill('Bonjour à tous.');
    await fleur.getByRole('button', { name: 'Send', exact: true }).click();
    await fleur.locator('#phrases li.phrase.own').first().waitFor({ timeout: 10_000 });
  });
});
