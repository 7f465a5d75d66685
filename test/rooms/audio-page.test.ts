import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { withApertium } from '../helpers/apertium.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';
import { saidInOrder, words } from '../../src/engines/speech/wer.ts';
import { decodeWav, encodeWav } from '../../src/engines/speech/wav.ts';

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
/** A speaker who pauses long after the sentence: what is on the pages once she stopped is not her next sentence's. */
let pausing: Browser;
let pausingWav: string;
let said: string;
const contexts: BrowserContext[] = [];

/** The recorded sentence then `silence` seconds of silence, as a 16 kHz WAV Chromium plays as the microphone (over and over). */
function microphoneFile(silence = 3): string {
  const speech = decodeWav(fs.readFileSync(`${DATA}/${NAME}.wav`)).samples;
  const pcm = new Int16Array(speech.length + 16_000 * silence);
  pcm.set(speech);
  const p = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-mic-')), 'speech.wav');
  fs.writeFileSync(p, encodeWav(pcm, 16_000));
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
  pausingWav = microphoneFile(30);
  pausing = await launch(['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-audio-capture=${pausingWav}`]);
});

// Each test's people leave when it ends: their pages' live audio (a microphone file looping, every
// voice received) would otherwise go on through the file's later tests and take the processor.
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close().catch(() => {});
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await speaker?.close();
  await listener?.close();
  await pausing?.close();
  if (pausingWav) fs.rmSync(path.dirname(pausingWav), { recursive: true, force: true });
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
    const phrase = bea.locator('#phrases li.phrase:not(.live)', { hasText: 'Ana' }).first();
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

  it('as Ana speaks, Bea reads her words so far, replaced in place by her phrase, and sees her talking only while she talks; an agent session hears it all', async () => {
    const r = await room(['en', 'es']);
    const created = await t.request('POST', `/v1/rooms/${r.id}/agent-sessions`, {
      key: r.key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { speak_lang: 'es', hear_lang: 'en', name: 'Agent' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const session = (await created.json()).id as string;
    const ana = await page(pausing, r.url);
    const bea = await page(listener, r.url);
    await join(ana, 'Ana', 'en', 'es');
    await join(bea, 'Bea', 'es', 'es');
    const anaId = await ana.evaluate<string>('window.tolkRoom.me.id');
    await until('Bea sees Ana here', async () => (await bea.locator(`#participants li[data-id="${anaId}"]`).count()) === 1, 10_000);
    // Bea's page as it changes: its conversation, and whether Ana is marked talking, at each change.
    await bea.evaluate(`(() => {
      window.seen = [];
      const list = document.getElementById('phrases'), people = document.getElementById('participants');
      const snap = () => window.seen.push({
        t: Date.now(),
        items: Array.from(list.children).map((li) => ({ cls: li.className, seg: li.getAttribute('data-segment'), text: (li.querySelector('.text') || {}).textContent || '' })),
        speaking: !!people.querySelector('li[data-id="${anaId}"].speaking'),
      });
      new MutationObserver(snap).observe(list, { childList: true, subtree: true, characterData: true });
      new MutationObserver(snap).observe(people, { childList: true, subtree: true, attributes: true, attributeFilter: ['class'] });
    })()`);
    await ana.getByRole('button', { name: 'Microphone' }).click();

    type Item = { cls: string; seg: string | null; text: string };
    type Snap = { t: number; items: Item[]; speaking: boolean };
    const isFinal = (i: Item) => i.seg && /\bphrase\b/.test(i.cls) && !/\blive\b/.test(i.cls);
    const seen = await until('Ana\'s phrase on Bea\'s page', async () => {
      const all = await bea.evaluate<Snap[]>('window.seen');
      return all.some((x) => x.items.some(isFinal)) ? all : null;
    }, { timeoutMs: 40_000, intervalMs: 200 });
    const at = seen.findIndex((x) => x.items.some(isFinal));
    const final = seen[at]!.items.find(isFinal)!;
    const where = seen[at]!.items.indexOf(final);
    // Before it, her words so far, greyed, under the same segment id, at the place the phrase then took.
    const before = seen.slice(0, at).filter((x) => x.items.some((i) => i.seg === final.seg && /\blive\b/.test(i.cls) && i.text));
    expect(before.length).toBeGreaterThan(0);
    const last = before.at(-1)!;
    expect(last.items.findIndex((i) => i.seg === final.seg)).toBe(where);
    expect(seen[at]!.items.filter((i) => i.seg === final.seg)).toHaveLength(1);
    expect(await bea.locator(`#phrases li.live[data-segment="${final.seg}"] .text`).count()).toBe(0);
    // Ana was marked talking while her words came, and no longer once her phrase came (she had stopped).
    expect(seen.slice(0, at).some((x) => x.speaking)).toBe(true);
    expect(seen[at]!.speaking).toBe(false);
    // Ana's own page never shows her words so far twice: the microphone's line is hers, the room's partials are not sent to her.
    expect(await ana.locator('#phrases li.live').count()).toBe(0);

    // The agent session heard her start, her words so far and her stop, then her phrase with the partials' segment id.
    let cursor = 0;
    const events: Array<{ type: string; speaker?: string; meta?: Record<string, unknown>; untrusted_content?: { text?: string } }> = [];
    await until('the session hears Ana\'s phrase', async () => {
      const res = await t.request('GET', `/v1/sessions/${session}/events?cursor=${cursor}&wait=1`, { key: r.key });
      const b = await res.json();
      events.push(...b.events);
      cursor = b.cursor;
      return events.some((e) => e.type === 'segment.final' && e.speaker === 'Ana');
    }, { timeoutMs: 20_000, intervalMs: 10 });
    const ana_ = events.filter((e) => e.speaker === 'Ana');
    const finalEvent = ana_.find((e) => e.type === 'segment.final')!;
    const upTo = ana_.slice(0, ana_.indexOf(finalEvent) + 1).map((e) => e.type);
    expect(upTo[0]).toBe('speech.started');
    expect(upTo).toContain('segment.partial');
    expect(upTo.indexOf('speech.stopped')).toBeGreaterThan(upTo.lastIndexOf('segment.partial'));
    expect(upTo.at(-1)).toBe('segment.final');
    for (const e of ana_.filter((x) => x.type.startsWith('speech.'))) expect(e.meta).toMatchObject({ participant_id: anaId });
    const partials = ana_.filter((e) => e.type === 'segment.partial' && ana_.indexOf(e) < ana_.indexOf(finalEvent));
    for (const e of partials) expect(e.meta).toMatchObject({ segment_id: final.seg, participant_id: anaId });
    expect(finalEvent.meta).toMatchObject({ segment_id: final.seg });

    await ana.getByRole('button', { name: 'Microphone on' }).click();
    await until('the microphone off', async () => (await ana.getByRole('button', { name: 'Microphone', exact: true }).count()) === 1, 5000);
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
