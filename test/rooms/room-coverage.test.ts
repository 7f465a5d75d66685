import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withApertium } from '../helpers/apertium.ts';
import { until } from '../helpers/wait.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';

// The room page tells the truth about what works (issue 44), in Chromium,
// with real engines: Apertium (en↔es, es↔pt; pt only through es; no
// Japanese), PocketSphinx (hears English only) and Pico (no Portuguese, no
// Japanese). The join screen says at once, for the languages a link
// preselects and for each the person picks, whether the microphone, read
// aloud and translation work, and the menus mark the languages nothing is
// translated into; a person reads their own phrase as they said it; a
// Portuguese page says all of it, and its audio controls, in Portuguese.

let t: TestApp;
let browser: Browser;
const contexts: BrowserContext[] = [];
/** Uncaught errors in the pages. */
const pageErrors: string[] = [];

beforeAll(async () => {
  t = await startTestApp({
    config: { ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico'], publicLimits: { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000 } },
  });
  browser = await launchChromium();
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  t?.app.server.closeAllConnections();
  await t?.close();
});

async function room(langs: string[], visibility: 'public' | 'private' = 'private'): Promise<{ id: string; url: string; key: string }> {
  const key = (await t.key({ rpm: 100_000 })).secret;
  const res = await t.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs, visibility } });
  expect(res.status).toBe(201);
  const r = await res.json();
  return { id: r.id, url: r.url, key };
}

async function link(r: { id: string; key: string }, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', `/v1/rooms/${r.id}/join-links`, { key: r.key, body });
  expect(res.status).toBe(201);
  return (await res.json()).url;
}

/** A page in an English browser (the page's own language comes from the link). */
async function open(url: string): Promise<Page> {
  const ctx = await browser.newContext({ locale: 'en-GB', serviceWorkers: 'block' });
  contexts.push(ctx);
  const p = await ctx.newPage();
  p.on('pageerror', (err) => { pageErrors.push(String(err)); });
  expect((await p.goto(url, { waitUntil: 'load' }))?.status()).toBe(200);
  return p;
}

/** The join screen's list of what works, once it says `expected` (the answer for the languages chosen now). */
async function coverage(p: Page, expected: string): Promise<string[]> {
  let seen: string[] = [];
  return until(`the join screen says "${expected}"`, async () => {
    seen = await p.locator('#coverage li').allTextContents();
    return seen.includes(expected) ? seen : null;
  }, { timeoutMs: 5000, intervalMs: 50, detail: () => `it says: ${JSON.stringify(seen)}` });
}

describe('the join screen says what works for the languages chosen', () => {
  it('a covered pair: English and Spanish work both ways, with their engines; Portuguese goes through Spanish and is not read aloud', async () => {
    // A public room's url: the page preselects its languages (English, Spanish) and speaks the browser's English.
    const r = await room(['en', 'es'], 'public');
    const p = await open(r.url);
    expect(await p.getByLabel('I speak').inputValue()).toBe('en');
    expect(await p.getByLabel('I hear').inputValue()).toBe('es');
    // At once, for the languages preselected.
    expect(await coverage(p, 'Translation English → Spanish: yes (apertium)')).toEqual([
      'Microphone: yes (pocketsphinx)',
      'Read aloud: yes (pico)',
      'Translation English → Spanish: yes (apertium)',
      'Test room: the robots’ lines are always translated.',
    ]);
    expect(await p.locator('#coverage li.no').count()).toBe(0);
    // Spanish and Portuguese are translated from this room's languages: not marked.
    expect(await p.locator('#hear option[value="es"]').textContent()).toBe('Español');
    expect(await p.locator('#hear option[value="pt"]').textContent()).toBe('Português');

    // She picks Portuguese to hear: the list says what changes, before she joins.
    await p.getByLabel('I hear').selectOption('pt');
    expect(await coverage(p, 'Translation English → Portuguese: via Spanish (apertium)')).toEqual([
      'Microphone: yes (pocketsphinx)',
      'Read aloud: no voice speaks Portuguese',
      'Translation English → Portuguese: via Spanish (apertium)',
      'Translation Spanish → Portuguese: yes (apertium)',
      'Translation English → Spanish: yes (apertium)',
      'Test room: the robots’ lines are always translated.',
    ]);
    expect(await p.locator('#coverage li.no').allTextContents()).toEqual(['Read aloud: no voice speaks Portuguese']);
    expect(pageErrors).toEqual([]);
  });

  it('an uncovered language: a link that hears Japanese is shown at once that nothing is translated into it and no voice speaks it; the menus mark it', async () => {
    const r = await room(['en', 'es']);
    const p = await open(await link(r, { name: 'Aiko', speak: 'en', hear: 'ja' }));
    expect(await p.getByLabel('I hear').inputValue()).toBe('ja');
    expect(await coverage(p, 'Not translated English → Japanese: shown as it was said')).toEqual([
      'Microphone: yes (pocketsphinx)',
      'Read aloud: no voice speaks Japanese',
      'Not translated English → Japanese: shown as it was said',
      'Not translated Spanish → Japanese: shown as it was said',
      'Translation English → Spanish: yes (apertium)',
      'Test room: the robots’ lines are always translated.',
    ]);
    // In both menus Japanese is marked, and what is covered is not.
    expect(await p.locator('#hear option[value="ja"]').textContent()).toBe('日本語 — not translated');
    expect(await p.locator('#speak option[value="ja"]').textContent()).toBe('日本語 — not translated');
    expect(await p.locator('#hear option[value="en"]').textContent()).toBe('English');

    // Speaking Japanese as well: no microphone, and the others read it as said.
    await p.getByLabel('I speak').selectOption('ja');
    expect(await coverage(p, 'Not translated Japanese → English: shown as it was said')).toEqual([
      'Microphone: no speech recognition for Japanese — type instead',
      'Read aloud: no voice speaks Japanese',
      'Not translated English → Japanese: shown as it was said',
      'Not translated Spanish → Japanese: shown as it was said',
      'Not translated Japanese → English: shown as it was said',
      'Not translated Japanese → Spanish: shown as it was said',
      'Test room: the robots’ lines are always translated.',
    ]);
    // Joining in it is not refused: she can still type.
    await p.getByRole('button', { name: 'Join', exact: true }).click();
    await p.locator('#room').waitFor({ state: 'visible' });
    expect(await p.locator('#me').textContent()).toBe('You speak Japanese and hear Japanese.');
    expect(pageErrors).toEqual([]);
  });
});

describe('the room page', () => {
  it('shows a person their own phrase as they said it, not translated into the language they hear', async () => {
    const r = await room(['en', 'es'], 'public');
    const ana = await open(r.url);
    const bea = await open(r.url);
    for (const [p, name, speak] of [[ana, 'Ana', 'en'], [bea, 'Bea', 'es']] as const) {
      await p.getByLabel('Your name').fill(name);
      await p.getByLabel('I speak').selectOption(speak);
      await p.getByLabel('I hear').selectOption('es');
      await p.getByRole('button', { name: 'Join', exact: true }).click();
      await p.locator('#participants li.you').waitFor();
    }
    await ana.getByLabel('Say something').fill('go forward ten meters');
    await ana.getByRole('button', { name: 'Send', exact: true }).click();
    // Bea reads it in Spanish, with the English as said for its original.
    const theirs = bea.locator('#phrases li.phrase', { hasText: 'Ana' });
    await theirs.waitFor({ timeout: 10_000 });
    const spanish = (await theirs.locator('.text').textContent())!;
    expect(await theirs.locator('.text').getAttribute('lang')).toBe('es');
    expect(spanish).not.toBe('go forward ten meters');
    expect(await theirs.locator('.original').textContent()).toBe('go forward ten meters');
    // Ana, who hears Spanish too, reads her own words as she said them.
    const own = ana.locator('#phrases li.phrase.own');
    await own.waitFor({ timeout: 10_000 });
    expect(await own.locator('.who').textContent()).toBe('You');
    expect(await own.locator('.text').textContent()).toBe('go forward ten meters');
    expect(await own.locator('.text').getAttribute('lang')).toBe('en');
    expect(await own.locator('.untranslated').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a Portuguese page: what works, the audio controls and the "you speak" line in Portuguese', async () => {
    const r = await room(['en', 'pt']);
    const p = await open(await link(r, { name: 'Ana', speak: 'pt', hear: 'pt' }));
    expect(await p.locator('html').getAttribute('lang')).toBe('pt');
    expect(await coverage(p, 'Tradução inglês → português: via espanhol (apertium)')).toEqual([
      'Microfone: não há reconhecimento de fala para português — digite',
      'Leitura em voz alta: nenhuma voz fala português',
      'Tradução inglês → português: via espanhol (apertium)',
      'Tradução português → inglês: via espanhol (apertium)',
      'Sala de teste: as falas dos robôs são sempre traduzidas.',
    ]);
    expect(await p.locator('#coverage').getAttribute('aria-label')).toBe('O que funciona com estes idiomas');
    expect(await p.locator('#hear option[value="ja"]').textContent()).toBe('日本語 — sem tradução');

    await p.getByRole('button', { name: 'Entrar', exact: true }).click();
    await p.locator('#room').waitFor({ state: 'visible' });
    expect(await p.locator('#me').textContent()).toBe('Você fala português e ouve português.');
    // The audio controls: in Portuguese, and off where no engine covers Portuguese, saying why.
    const mic = p.getByRole('button', { name: 'Microfone', exact: true });
    await until('the microphone says why', async () => (await p.locator('#mic-status').textContent()) !== '', 5000);
    expect(await p.locator('#mic-status').textContent()).toBe('Não há reconhecimento de fala para português neste serviço: digite o que quer dizer.');
    expect(await mic.isDisabled()).toBe(true);
    expect(await p.getByRole('button', { name: 'Segure para falar' }).isDisabled()).toBe(true);
    const readAloud = p.getByLabel('Ler em voz alta o que os outros dizem, no meu idioma');
    expect(await readAloud.isDisabled()).toBe(true);
    expect(await p.locator('#read-status').textContent()).toBe('Nenhuma voz deste serviço fala português: a leitura em voz alta não está disponível.');
    expect(await p.getByRole('region', { name: 'Falar e ouvir em voz alta' }).count()).toBe(1);
    // Nothing of the room is left in English.
    const text = (await p.locator('#room').innerText());
    for (const w of ['Microphone', 'Hold to talk', 'Read aloud', 'You speak', 'The microphone', '(you)', 'speaks pt']) expect(text, w).not.toContain(w);
    expect(text).toContain('(você)');
    // The empty conversation says so in Portuguese too (a style's content, which innerText leaves out).
    expect(await p.evaluate<string>('getComputedStyle(document.getElementById("phrases"), "::before").content')).toBe('"Ninguém falou ainda."');
    expect(pageErrors).toEqual([]);
  });
});
