import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
import { ANNOUNCEMENT, PHRASES } from '../../src/sim/phrasebook.ts';
import { LEAVE_CHECK_QUEUE } from '../../src/rooms/participants.ts';

// The room page (src/rooms/page.ts, page-view.ts, participants.ts, stream.ts)
// end to end in a real headless Chromium: people join from the room's url or
// a join link, read an agent and each other in their own language, see who is
// here, leave, and see the room end; private, ended and scheduled rooms; a
// name that would be markup; a phone-sized screen. Every request to another
// origin is refused and recorded, and none may happen; uncaught errors and
// Content-Security-Policy violations in the pages are collected, and none may
// happen either.

/** Screenshots of the pages, for a look (git ignores the folder). */
const ARTIFACTS = path.join(ROOT, 'test/artifacts');
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
/** A name that would add markup (and run a script) if it were not escaped. */
const XSS_NAME = '<img src=x onerror=alert(1)>';

let t: TestApp;
let browser: Browser;
let origin: string;
/** Requests a page tried to make outside the server's origin. */
const foreign: string[] = [];
/** Uncaught errors and Content-Security-Policy violations in the pages. */
const pageErrors: string[] = [];
/** Dialogs (alert, confirm, prompt) any page opened. */
const dialogs: string[] = [];
const contexts: BrowserContext[] = [];

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** A phrasebook phrase (real translations in test mode), by its English text. */
function phrase(en: string): Readonly<Record<string, string>> {
  const p = PHRASES.find((x) => x.en === en);
  if (!p) throw new Error(`no phrase '${en}' in the phrasebook`);
  return p;
}

async function newContext(o: { timezoneId?: string; locale?: string; viewport?: { width: number; height: number }; isMobile?: boolean; hasTouch?: boolean } = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({ locale: 'en-GB', viewport: { width: 1280, height: 900 }, serviceWorkers: 'block', ...o });
  contexts.push(ctx);
  await ctx.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin) {
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
  p.on('websocket', (ws) => { foreign.push(ws.url()); });
  p.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); void d.dismiss().catch(() => {}); });
  const res = await p.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(status);
  return p;
}

/** Nothing went to another origin, no page failed, nothing popped up. */
function clean() {
  expect(foreign).toEqual([]);
  expect(pageErrors).toEqual([]);
  expect(dialogs).toEqual([]);
}

async function room(secret: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.request('POST', '/v1/rooms', { key: secret, headers: idem(), body: { langs: ['pt', 'de'], visibility: 'public', ...body } });
  expect(res.status).toBe(201);
  return res.json();
}

/** Fills the join screen and joins; the room shows, connected (the person is in its own list). */
async function joinAs(p: Page, who: { name: string; speak: string; hear: string }, beforeJoin?: () => Promise<unknown>) {
  await p.locator('#join').waitFor({ state: 'visible' });
  await p.getByLabel('Your name').fill(who.name);
  await p.getByLabel('I speak').selectOption(who.speak);
  await p.getByLabel('I hear').selectOption(who.hear);
  await beforeJoin?.();
  await p.getByRole('button', { name: 'Join', exact: true }).click();
  await p.locator('#room').waitFor({ state: 'visible' });
  expect(await p.locator('#join').isHidden()).toBe(true);
  await p.locator('#participants li.you').waitFor();
  expect(await p.locator('#participants li.you .name').textContent()).toBe(who.name);
}

/** The phrases of a page said by `who` (as its `.who` shows them). */
function phrasesBy(p: Page, who: string): Locator {
  return p.locator('#phrases > li.phrase').filter({ has: p.locator('.who').getByText(who, { exact: true }) });
}

/** A participant of a page's list, by name. */
function person(p: Page, name: string): Locator {
  return p.locator('#participants > li').filter({ has: p.locator('.name').getByText(name, { exact: true }) });
}

async function say(p: Page, text: string) {
  await p.getByLabel('Say something').fill(text);
  await p.getByRole('button', { name: 'Send', exact: true }).click();
  // Sent: the field is emptied once the server took it.
  await until('the phrase is sent', async () => (await p.getByLabel('Say something').inputValue()) === '', 5000);
  expect(await p.locator('#say-error').textContent()).toBe('');
}

beforeAll(async () => {
  t = await startTestApp({ workers: true });
  origin = new URL(t.url).origin;
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  // The pages' event streams stay open until their contexts close.
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  // fetch() and the browsers may leave connections open; the server would wait for them.
  t?.app.server.closeAllConnections();
  await t?.close();
});

describe('room page', () => {
  it('two people hear an agent and each other in their own languages, see who is here, leave, and see the room end', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { title: 'Weekly sync' });
    expect(new URL(r.url).origin).toBe(origin);
    const ana = { name: 'Ana', speak: 'pt', hear: 'pt' };
    const bruno = { name: 'Bruno', speak: 'de', hear: 'de' };

    const a = await open(await newContext(), r.url);
    expect(await a.getByRole('heading', { level: 1, name: 'Weekly sync' }).isVisible()).toBe(true);
    // The join screen: the room's languages preselected; the room itself hidden until joining.
    expect(await a.getByLabel('I speak').inputValue()).toBe('pt');
    expect(await a.getByLabel('I hear').inputValue()).toBe('de');
    expect(await a.locator('#room').isHidden()).toBe(true);
    await joinAs(a, ana, () => shot(a, 'room-join'));
    expect(await a.locator('#me').textContent()).toBe('You speak Portuguese and hear Portuguese.');

    const b = await open(await newContext(), r.url);
    await joinAs(b, bruno);
    expect(await b.locator('#me').textContent()).toBe('You speak German and hear German.');
    // Each sees the other arrive.
    await person(a, 'Bruno').waitFor({ timeout: 5000 });
    await person(b, 'Ana').waitFor({ timeout: 5000 });

    // An agent joins over the API, announced; the robots of test mode start talking too.
    const ses = await (await t.request('POST', `/v1/rooms/${r.id}/agent-sessions`, {
      key: k.secret, headers: idem(), body: { name: 'Concierge', speak_lang: 'en', hear_lang: 'en', announce: true },
    })).json();
    expect(ses.id).toMatch(/^ses_/);

    // The announcement is a phrase like any other, shown as a notice of the room, in each page's language.
    for (const [p, lang] of [[a, 'pt'], [b, 'de']] as const) {
      const notice = p.locator('#phrases > li.phrase.system').filter({ hasText: 'Concierge' });
      await notice.waitFor({ timeout: 5000 });
      expect(await notice.locator('.text').textContent()).toBe(ANNOUNCEMENT[lang].replace('{name}', 'Concierge'));
      expect(await notice.locator('.text').getAttribute('lang')).toBe(lang);
      expect(await notice.locator('.who').count()).toBe(0);
    }

    // Everyone is in each page's list: both people, and the agent with its AI badge.
    for (const p of [a, b]) {
      const agent = person(p, 'Concierge');
      await agent.waitFor({ timeout: 5000 });
      expect(await agent.locator('.ai-badge').textContent()).toBe('AI');
      expect(await agent.locator('.ai-badge').isVisible()).toBe(true);
      expect(await person(p, 'Ana').count()).toBe(1);
      expect(await person(p, 'Bruno').count()).toBe(1);
      expect(await person(p, 'Ana').locator('.ai-badge').count()).toBe(0);
      expect(await person(p, 'Bruno').locator('.ai-badge').count()).toBe(0);
    }
    expect(await person(a, 'Ana').getAttribute('class')).toContain('you');
    expect(await person(b, 'Bruno').getAttribute('class')).toContain('you');

    // The agent speaks English; each page reads it in its own language, with the agent's name and an AI badge.
    const thanks = phrase('Thank you all for joining.');
    const said = await t.request('POST', `/v1/sessions/${ses.id}/say`, { key: k.secret, body: { text: thanks.en } });
    expect(said.status).toBe(202);
    for (const [p, lang] of [[a, 'pt'], [b, 'de']] as const) {
      const line = phrasesBy(p, 'Concierge').filter({ hasText: thanks[lang]! });
      await line.waitFor({ timeout: 5000 });
      expect(await line.getAttribute('class')).toContain('ai');
      expect(await line.locator('.ai-badge').isVisible()).toBe(true);
      expect(await line.locator('.ai-badge').textContent()).toBe('AI');
      const text = line.locator('.text');
      expect(await text.getAttribute('lang')).toBe(lang);
      expect(await text.textContent()).toBe(thanks[lang]);
      expect(await text.textContent()).not.toBe(thanks.en);
      // The original, in English, only when asked for.
      const original = line.locator('.original');
      expect(await original.isHidden()).toBe(true);
      await p.getByLabel('Show what was said in its original language').check();
      await original.waitFor({ state: 'visible' });
      expect(await original.textContent()).toBe(thanks.en);
      expect(await original.getAttribute('lang')).toBe('en');
      await p.getByLabel('Show what was said in its original language').uncheck();
      await original.waitFor({ state: 'hidden' });
    }

    // Ana types in Portuguese: Bruno reads her in German; her page shows it as hers; the agent hears her.
    const agenda = phrase('What is on the agenda today?');
    await say(a, agenda.pt!);
    const fromAna = phrasesBy(b, 'Ana').filter({ hasText: agenda.de! });
    await fromAna.waitFor({ timeout: 5000 });
    expect(await fromAna.locator('.text').getAttribute('lang')).toBe('de');
    expect(await fromAna.locator('.text').textContent()).toBe(agenda.de);
    expect(await fromAna.locator('.ai-badge').count()).toBe(0);
    const own = phrasesBy(a, 'You').filter({ hasText: agenda.pt! });
    await own.waitFor({ timeout: 5000 });
    expect(await own.getAttribute('class')).toContain('own');
    const heard = await until('the agent hears Ana', async () => {
      const ev = await (await t.request('GET', `/v1/sessions/${ses.id}/events?cursor=0`, { key: k.secret })).json();
      return (ev.events as any[]).find((e) => e.type === 'segment.final' && e.speaker === 'Ana');
    }, 5000);
    expect(heard).toMatchObject({ src_lang: 'pt', untrusted_content: { text: agenda.pt, text_in_hear_lang: agenda.en } });
    await shot(b, 'room-live');
    await shot(a, 'room-live-a');

    // Bruno leaves: his page says so (and offers to join again); Ana's list loses him.
    await b.getByRole('button', { name: 'Leave', exact: true }).click();
    await b.locator('#over').waitFor({ state: 'visible' });
    expect(await b.locator('#over-h').textContent()).toBe('You left');
    expect(await b.locator('#rejoin').isVisible()).toBe(true);
    // Joining again starts from the join screen, with his name and languages kept.
    await b.getByRole('button', { name: 'Join again' }).click();
    await b.locator('#join').waitFor({ state: 'visible' });
    expect(await b.getByLabel('Your name').inputValue()).toBe('Bruno');
    expect(await b.getByLabel('I speak').inputValue()).toBe('de');
    expect(await b.getByLabel('I hear').inputValue()).toBe('de');
    await person(a, 'Bruno').waitFor({ state: 'detached', timeout: 5000 });
    expect(await person(a, 'Ana').count()).toBe(1);
    expect(await person(a, 'Concierge').count()).toBe(1);

    // The room is ended over the API: Ana's page says so and offers nothing to join.
    expect((await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret })).status).toBe(200);
    await a.locator('#over').waitFor({ state: 'visible', timeout: 5000 });
    expect(await a.locator('#over-h').textContent()).toBe('Room ended');
    expect(await a.locator('#over-text').textContent()).toBe('This room has ended.');
    expect(await a.locator('#rejoin').isHidden()).toBe(true);
    expect(await a.locator('#join').isHidden()).toBe(true);
    // The conversation stays readable under the notice; nothing to say or leave with any more.
    expect(await a.locator('#room').isVisible()).toBe(true);
    expect(await a.locator('#phrases li.phrase').count()).toBeGreaterThan(0);
    expect(await a.locator('#say-form').isHidden()).toBe(true);
    expect(await a.getByRole('button').filter({ visible: true }).count()).toBe(0);
    await shot(a, 'room-ended-live');
    // Reopened, the page only says the room has ended.
    await a.reload({ waitUntil: 'load' });
    expect(await a.locator('[data-state="ended"]').textContent()).toBe('This room has ended.');
    expect(await a.locator('form, input, select, button').count()).toBe(0);
    clean();
  });

  it('a private room opens only with its join link, which fills in the join screen', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { visibility: 'private', title: 'Private talk' });
    const ctx = await newContext();

    // The plain url: refused, nothing to join with.
    const plain = await open(ctx, r.url, 403);
    expect(await plain.getByRole('heading', { level: 1 }).textContent()).toBe('This room is private');
    expect(await plain.locator('[data-state="private"]').textContent()).toContain('You need a join link');
    expect(await plain.locator('form, input, select, button').count()).toBe(0);
    expect(await plain.locator('#join-form').count()).toBe(0);
    await plain.close();

    // The join link: the join screen, prefilled.
    const res = await t.request('POST', `/v1/rooms/${r.id}/join-links`, { key: k.secret, body: { name: 'Ana', speak: 'pt', hear: 'en' } });
    expect(res.status).toBe(201);
    const link = await res.json();
    expect(new URL(link.url).origin).toBe(origin);
    const p = await open(ctx, link.url);
    expect(await p.getByLabel('Your name').inputValue()).toBe('Ana');
    expect(await p.getByLabel('I speak').inputValue()).toBe('pt');
    expect(await p.getByLabel('I hear').inputValue()).toBe('en');
    // An altered link is refused.
    const altered = await open(ctx, `${link.url}x`, 403);
    expect(await altered.getByRole('heading', { level: 1 }).textContent()).toBe('This join link does not work');
    expect(await altered.locator('form').count()).toBe(0);
    await altered.close();

    // Joining with the prefill as it is.
    await p.getByRole('button', { name: 'Join', exact: true }).click();
    await p.locator('#room').waitFor({ state: 'visible' });
    await person(p, 'Ana').waitFor({ timeout: 5000 });
    expect(await person(p, 'Ana').textContent()).toContain('(you)');
    expect(await p.locator('#me').textContent()).toBe('You speak Portuguese and hear English.');
    const { rows } = await t.pool.query(`SELECT name, speak_lang, hear_lang, left_at FROM room_participants WHERE room_id = $1`, [r.id]);
    expect(rows).toEqual([{ name: 'Ana', speak_lang: 'pt', hear_lang: 'en', left_at: null }]);
    // And she can speak.
    const hello = phrase('Hello, can everyone hear me?');
    await say(p, hello.pt!);
    await phrasesBy(p, 'You').filter({ hasText: hello.pt! }).waitFor({ timeout: 5000 });
    await ctx.close();
    clean();
  });

  it('a name that looks like markup is shown as text everywhere and runs nothing', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { langs: ['en', 'pt'], title: 'Names <b>test</b>' });
    // A join link carries the name: the join screen has it as the field's value, as it is.
    const link = await (await t.request('POST', `/v1/rooms/${r.id}/join-links`, { key: k.secret, body: { name: XSS_NAME } })).json();
    const x = await open(await newContext(), link.url);
    expect(await x.getByLabel('Your name').inputValue()).toBe(XSS_NAME);
    // The title is text, too.
    expect(await x.getByRole('heading', { level: 1 }).first().textContent()).toBe('Names <b>test</b>');
    expect(await x.locator('h1 b').count()).toBe(0);
    await joinAs(x, { name: XSS_NAME, speak: 'en', hear: 'en' });
    const y = await open(await newContext(), r.url);
    await joinAs(y, { name: 'Yara', speak: 'pt', hear: 'pt' });

    // In the other page's list, and in the phrase it reads.
    await person(y, XSS_NAME).waitFor({ timeout: 5000 });
    expect(await person(y, XSS_NAME).locator('.name').textContent()).toBe(XSS_NAME);
    expect(await person(x, XSS_NAME).locator('.name').textContent()).toBe(XSS_NAME);
    const greeting = phrase('Good morning, everyone.');
    await say(x, greeting.en!);
    const line = phrasesBy(y, XSS_NAME);
    await line.waitFor({ timeout: 5000 });
    expect(await line.locator('.who').textContent()).toBe(XSS_NAME);
    expect(await line.locator('.text').textContent()).toBe(greeting.pt);
    // Yara answers: her phrase reaches the first page.
    await say(y, phrase('Thank you all for joining.').pt!);
    await phrasesBy(x, 'Yara').waitFor({ timeout: 5000 });
    for (const p of [x, y]) {
      expect(await p.locator('img').count()).toBe(0);
      expect(await p.locator('#participants').innerHTML()).toContain('&lt;img src=x onerror=alert(1)&gt;');
    }
    // Nothing tried to load x (the img would have).
    expect(foreign).toEqual([]);
    await shot(y, 'room-names');
    expect(dialogs).toEqual([]);
    clean();
  });

  it('an ended room offers nothing to join; a scheduled meeting says when it starts, in the browser\'s own time zone', async () => {
    const k = await t.key({ rpm: 100_000 });
    // Ended: the page says so, no form, nothing to join; alike for a private room,
    // whose title shows only with its join link.
    for (const visibility of ['public', 'private'] as const) {
      const r = await room(k.secret, { visibility, title: 'Intro call: Jane Doe' });
      const link = await (await t.request('POST', `/v1/rooms/${r.id}/join-links`, { key: k.secret, body: {} })).json();
      expect((await t.request('DELETE', `/v1/rooms/${r.id}`, { key: k.secret })).status).toBe(200);
      const p = await open(await newContext(), r.url);
      const shown = visibility === 'public' ? 'Intro call: Jane Doe' : 'Room';
      expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe(shown);
      expect(await p.title()).toBe(shown);
      if (visibility === 'private') expect(await p.content()).not.toContain('Jane');
      expect(await p.locator('[data-state="ended"]').textContent()).toBe('This room has ended.');
      const withLink = await open(await newContext(), link.url);
      expect(await withLink.getByRole('heading', { level: 1 }).textContent()).toBe('Intro call: Jane Doe');
      expect(await withLink.locator('[data-state="ended"]').textContent()).toBe('This room has ended.');
      expect(await p.locator('form, input, select, button, #join, #room').count()).toBe(0);
      if (visibility === 'public') await shot(p, 'room-ended');
      // Joining it anyway is refused.
      const join = await fetch(`${t.url}/r/${r.id}/participants`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Late', speak: 'en', hear: 'en' }),
      });
      expect(join.status).toBe(visibility === 'public' ? 409 : 401);
    }

    // Scheduled: two days ahead, on a whole minute; a browser in Tokyo reads Tokyo time.
    const startsAt = DateTime.utc().plus({ days: 2 }).set({ second: 0, millisecond: 0 });
    const res = await t.request('POST', '/v1/meetings', {
      key: k.secret, headers: idem(),
      body: { title: 'Planning', starts_at: startsAt.toISO(), visibility: 'public', langs: ['en', 'ja'] },
    });
    expect(res.status).toBe(201);
    const m = await res.json();
    expect(m.status).toBe('scheduled');
    const tokyo = await newContext({ timezoneId: 'Asia/Tokyo' });
    const p = await open(tokyo, m.url);
    const starts = p.locator('#starts');
    expect(await starts.getAttribute('datetime')).toBe(startsAt.toJSDate().toISOString());
    const wall = startsAt.setZone('Asia/Tokyo').setLocale('en-GB');
    // The script rewrote the server's UTC text in the browser's zone.
    await until('the start in Tokyo time', async () => !(await starts.textContent())!.includes('UTC'), 5000);
    const text = (await starts.textContent())!;
    expect(text).toContain(wall.toFormat('HH:mm'));
    expect(text).toContain(wall.toFormat('cccc'));
    expect(text).toContain(wall.toFormat('LLLL'));
    expect(text).toContain(wall.toFormat('d'));
    // The Tokyo hour differs from the UTC one (9 hours apart), so the UTC wall clock is not what is shown.
    expect(text).not.toContain(startsAt.toFormat('HH:mm'));
    expect(await p.locator('[data-state="scheduled"]').textContent()).toContain('This meeting starts at');
    expect(await p.locator('form, input, select, button').count()).toBe(0);
    await shot(p, 'room-scheduled');

    // A canceled meeting says so.
    expect((await t.request('DELETE', `/v1/meetings/${m.id}`, { key: k.secret })).status).toBe(200);
    await p.reload({ waitUntil: 'load' });
    expect(await p.locator('[data-state="canceled"]').textContent()).toBe('This meeting was canceled.');
    expect(await p.locator('form, input, select, button').count()).toBe(0);
    clean();
  });

  it("a private meeting's title (a booking's names the guest) never shows without its join link, in any state", async () => {
    const k = await t.key({ rpm: 100_000 });
    const title = 'Intro call: Jane Doe';
    const res = await t.request('POST', '/v1/meetings', {
      key: k.secret, headers: idem(),
      body: { title, starts_at: DateTime.utc().plus({ days: 2 }).toISO(), visibility: 'private', langs: ['en', 'pt'] },
    });
    expect(res.status).toBe(201);
    const m = await res.json();
    const link = await (await t.request('POST', `/v1/rooms/${m.id}/join-links`, { key: k.secret, body: {} })).json();
    const get = async (url: string) => {
      const r = await fetch(url);
      return { status: r.status, html: await r.text(), frame: r.headers.get('x-frame-options') };
    };
    // Scheduled: no link, no page; the link shows the title.
    let plain = await get(m.url);
    expect(plain.status).toBe(403);
    expect(plain.html).not.toContain('Jane');
    expect((await get(link.url)).html).toContain('<h1>Intro call: Jane Doe</h1>');
    // Canceled: the page says so under a neutral heading; the link still shows the title.
    expect((await t.request('DELETE', `/v1/meetings/${m.id}`, { key: k.secret })).status).toBe(200);
    plain = await get(m.url);
    expect(plain.status).toBe(200);
    expect(plain.html).toContain('<title>Room</title>');
    expect(plain.html).toContain('<h1>Room</h1>');
    expect(plain.html).toContain('This meeting was canceled.');
    expect(plain.html).not.toContain('Jane');
    expect(plain.frame).toBe('DENY');
    const linked = await get(link.url);
    expect(linked.status).toBe(200);
    expect(linked.html).toContain('<h1>Intro call: Jane Doe</h1>');
    expect(linked.html).toContain('This meeting was canceled.');
    // An altered link is no way around it.
    const altered = await get(`${link.url.slice(0, -2)}xx`);
    expect(altered.status).toBe(403);
    expect(altered.html).not.toContain('Jane');
  });

  it('no room page can be framed: CSP frame-ancestors and X-Frame-Options (for older browsers), error pages included', async () => {
    const k = await t.key({ rpm: 100_000 });
    const live = await room(k.secret);
    const secret = await room(k.secret, { visibility: 'private' });
    const ended = await room(k.secret);
    expect((await t.request('DELETE', `/v1/rooms/${ended.id}`, { key: k.secret })).status).toBe(200);
    const pages: Array<[url: string, status: number]> = [
      [live.url, 200],
      [ended.url, 200],
      [secret.url, 403],
      [`${secret.url}?t=altered`, 403],
      [`${t.url}/r/room_${'x'.repeat(20)}`, 404],
    ];
    for (const [url, status] of pages) {
      const res = await fetch(url);
      expect(res.status, url).toBe(status);
      expect(res.headers.get('content-type'), url).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-frame-options'), url).toBe('DENY');
      expect(res.headers.get('content-security-policy'), url).toContain("frame-ancestors 'none'");
    }
  });

  it('on a phone-sized screen the join screen and the room are usable without scrolling sideways', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { langs: ['en', 'es'], title: 'A room with a rather long title for a small phone screen' });
    const ctx = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const p = await open(ctx, r.url);
    const noSideways = async () => {
      const w = await p.evaluate(() => {
        const html = (globalThis as any).document.documentElement;
        return { scroll: html.scrollWidth as number, client: html.clientWidth as number };
      });
      expect(w.scroll).toBeLessThanOrEqual(390);
      expect(w.client).toBeLessThanOrEqual(390);
    };
    /** Visible and within the screen's width. */
    const onScreen = async (l: Locator) => {
      expect(await l.isVisible()).toBe(true);
      const box = (await l.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    };
    await noSideways();
    for (const l of [p.getByLabel('Your name'), p.getByLabel('I speak'), p.getByLabel('I hear'), p.getByRole('button', { name: 'Join', exact: true })]) await onScreen(l);
    await shot(p, 'room-phone-join');
    await joinAs(p, { name: 'Maria Fernanda de los Santos Rodríguez', speak: 'es', hear: 'en' });
    await noSideways();
    await onScreen(p.getByLabel('Say something'));
    await onScreen(p.getByRole('button', { name: 'Send', exact: true }));
    await onScreen(p.getByRole('button', { name: 'Leave', exact: true }));
    const hello = phrase('Hello, can everyone hear me?');
    await say(p, hello.es!);
    await phrasesBy(p, 'You').filter({ hasText: hello.es! }).waitFor({ timeout: 5000 });
    await noSideways();
    await shot(p, 'room-phone');
    await ctx.close();
    clean();
  });

  it('a reload keeps the person in the room; closing the tab lets them go within seconds', async () => {
    const k = await t.key({ rpm: 100_000 });
    const r = await room(k.secret, { langs: ['en', 'es'] });
    const ctxA = await newContext();
    const ctxB = await newContext();
    const a = await open(ctxA, r.url);
    await joinAs(a, { name: 'Ana', speak: 'es', hear: 'en' });
    const b = await open(ctxB, r.url);
    await joinAs(b, { name: 'Bruno', speak: 'en', hear: 'es' });
    await person(a, 'Bruno').waitFor();
    // Bruno reloads: he is back in the room without the form, and stays after the grace period.
    await b.reload({ waitUntil: 'load' });
    await b.locator('#room').waitFor({ state: 'visible' });
    await b.locator('#participants li.you').waitFor();
    // The check the reload's unload left for after the grace period, made due now: it runs after the reload, as it would then.
    const bruno = (await t.pool.query(`SELECT id FROM room_participants WHERE room_id = $1 AND name = 'Bruno'`, [r.id])).rows[0].id;
    const check = `name = '${LEAVE_CHECK_QUEUE}' AND data->>'participantId' = $1`;
    await until('the unload\'s leave check', async () => (await t.pool.query(`UPDATE pgboss.job SET start_after = now() WHERE ${check} AND state = 'created' RETURNING id`, [bruno])).rowCount! > 0);
    await until('the leave check done', async () => (await t.pool.query(`SELECT state FROM pgboss.job WHERE ${check}`, [bruno])).rows[0]?.state === 'completed');
    const present = (await t.pool.query(`SELECT name, left_at FROM room_participants WHERE room_id = $1 ORDER BY joined_at`, [r.id])).rows;
    expect(present.map((x) => [x.name, x.left_at])).toEqual([['Ana', null], ['Bruno', null]]);
    expect(await person(a, 'Bruno').count()).toBe(1);
    // Bruno closes his tab: Ana sees him go, and room.participant_left is emitted.
    await b.close({ runBeforeUnload: true });
    await person(a, 'Bruno').waitFor({ state: 'detached', timeout: 10_000 });
    const left = (await t.pool.query(`SELECT id, left_reason FROM room_participants WHERE room_id = $1 AND name = 'Bruno'`, [r.id])).rows[0];
    expect(left.left_reason).toBe('left');
    const types = (await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [left.id])).rows.map((x) => x.type);
    expect(types).toEqual(['room.participant_joined', 'room.participant_left']);
    await ctxA.close();
    await ctxB.close();
    clean();
  });
});
