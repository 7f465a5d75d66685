import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import ICAL from 'ical.js';
import { DateTime } from 'luxon';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { createEventType } from '../../src/cli/admin.ts';
import { meetingUid } from '../../src/rooms/meetings/invitations.ts';

// The public booking page and the guest's manage page (src/bookings/pages.ts),
// driven in a real headless Chromium with every request to another origin
// refused and recorded. The host is in New York, the guest's browser in Tokyo.
// Hosts work around the clock (mon-sun 00:00-24:00, 30-minute meetings), so
// free slots start about an hour from now (the minimum notice) whenever the
// test runs.

/** Screenshots of the pages, for a look (git ignores the folder). */
const ARTIFACTS = path.join(ROOT, 'test/artifacts');
const shot = (p: Page, name: string) => p.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
const HOST_TZ = 'America/New_York';
const GUEST_TZ = 'Asia/Tokyo';
/** A title that would add markup if it were not escaped. */
const TITLE = 'Intro <b>call</b> & "chat"';

let t: TestApp;
let browser: Browser;
let origin: string;
/** Requests a page tried to make outside the server's origin. */
const foreign: string[] = [];
/** Uncaught errors and Content-Security-Policy violations in the pages. */
const pageErrors: string[] = [];
const contexts: BrowserContext[] = [];

type Host = { orgId: string; page: string; slug: string; url: string; owner: string };
let ana: Host;
let bo: Host;

/** The Tokyo booking of the first test, reused by the manage-page test. */
let booked: { id: string; start: string; email: string; manageUrl: string; roomId: string } | null = null;

async function makeHost(page: string, slug: string, title: string): Promise<Host> {
  const { orgId } = await t.key();
  const owner = `owner-${page}@host.example`;
  await t.pool.query(`UPDATE organizations SET owner_email = $2 WHERE id = $1`, [orgId, owner]);
  const et = await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page, slug, title, tz: HOST_TZ, hours: 'mon-sun 00:00-24:00', duration: 30 });
  return { orgId, page, slug, url: et.url, owner };
}

async function newContext(o: { timezoneId?: string; locale?: string; viewport?: { width: number; height: number } } = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({
    timezoneId: GUEST_TZ,
    locale: 'ja-JP',
    viewport: { width: 1280, height: 900 },
    serviceWorkers: 'block',
    ...o,
  });
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

async function open(ctx: BrowserContext, url: string): Promise<Page> {
  const p = await ctx.newPage();
  p.on('pageerror', (err) => { pageErrors.push(String(err)); });
  p.on('console', (m) => { if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text()); });
  p.on('websocket', (ws) => { foreign.push(ws.url()); });
  const res = await p.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(200);
  return p;
}

async function slotsOf(h: Host, query = ''): Promise<string[]> {
  const res = await t.request('GET', `/book/${h.page}/${h.slug}/slots${query}`);
  expect(res.status).toBe(200);
  const body = await res.json();
  expect(body.tz).toBe(HOST_TZ);
  expect(body.duration_min).toBe(30);
  expect(Array.isArray(body.full_days)).toBe(true);
  return body.slots;
}

const wall = (iso: string, tz: string) => DateTime.fromISO(iso, { zone: tz });

function slotButton(p: Page, iso: string) {
  return p.locator(`button.slot[data-start="${iso}"]`);
}

/** The text and day of the slot button of an instant. */
async function rendered(p: Page, iso: string): Promise<{ text: string; date: string | null }> {
  const b = slotButton(p, iso);
  return {
    text: (await b.textContent())!.trim(),
    date: await b.locator('xpath=ancestor::fieldset[1]').getAttribute('data-date'),
  };
}

function parseIcs(text: string) {
  const cal = new ICAL.Component(ICAL.parse(text));
  for (const tz of cal.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(tz);
  const event = new ICAL.Event(cal.getFirstSubcomponent('vevent')!);
  return {
    method: cal.getFirstPropertyValue('method'),
    uid: event.uid,
    sequence: event.sequence,
    start: event.startDate.toJSDate().toISOString().replace(/\.\d{3}Z$/, 'Z'),
  };
}

async function mailsTo(to: string) {
  const { rows } = await t.pool.query(
    `SELECT to_addr, subject, text, ics, ics_method, status, livemode FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`,
    [to],
  );
  return rows as Array<{ to_addr: string; subject: string; text: string; ics: string | null; ics_method: string | null; status: string; livemode: boolean }>;
}

async function outboxTypes(objectId: string): Promise<string[]> {
  const { rows } = await t.pool.query(`SELECT type FROM outbox WHERE object_id = $1 ORDER BY id`, [objectId]);
  return rows.map((r) => r.type);
}

async function bookingOf(email: string) {
  const { rows } = await t.pool.query(
    `SELECT id, status, start_at, livemode, room_id, manage_token, guest_tz, guest_locale, guest_speak, guest_hear FROM bookings WHERE guest_email = $1`,
    [email],
  );
  expect(rows).toHaveLength(1);
  return rows[0];
}

beforeAll(async () => {
  t = await startTestApp({ workers: true });
  origin = new URL(t.url).origin;
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  ana = await makeHost('ana', 'intro', TITLE);
  bo = await makeHost('bo', 'chat', 'Chat with Bo');
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await t?.close();
});

describe('booking page', () => {
  it('a guest in Tokyo sees the slots in Tokyo time, books one, and guest and host are invited for that instant', async () => {
    const ctx = await newContext();
    const p = await open(ctx, ana.url);
    // Escaped: the title is text, not markup.
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe(TITLE);
    expect(await p.locator('h1 b').count()).toBe(0);
    expect(await p.locator('html').getAttribute('lang')).toBe('en');
    expect(await p.locator('.meta').textContent()).toContain('30 minutes');
    // The host by its organization's name (the page's slug is no name, issue 44).
    expect(await p.locator('.meta').textContent()).toContain('Host: Test org');
    // The zone comes from the browser.
    expect(await p.getByLabel('Your time zone').inputValue()).toBe(GUEST_TZ);

    const slots = await slotsOf(ana);
    expect(slots.length).toBeGreaterThan(2);
    const start = slots[0]!;
    // The minimum notice: no slot within the hour.
    expect(Date.parse(start)).toBeGreaterThanOrEqual(Date.now() + 59 * 60_000);
    await slotButton(p, start).waitFor();
    expect(await rendered(p, start)).toEqual({ text: wall(start, GUEST_TZ).toFormat('HH:mm'), date: wall(start, GUEST_TZ).toFormat('yyyy-MM-dd') });
    await shot(p, 'booking-slots');

    await slotButton(p, start).click();
    expect(await slotButton(p, start).getAttribute('aria-pressed')).toBe('true');
    const email = 'kenji@example.jp';
    await p.getByLabel('Your name').fill('Kenji <i>Sato</i>');
    await p.getByLabel('E-mail').fill(email);
    // ja-JP browser: Japanese is preselected; the guest hears English.
    expect(await p.getByLabel('Language you speak').inputValue()).toBe('ja');
    await p.getByLabel('Language you hear').selectOption('en');
    await p.getByRole('button', { name: 'Book', exact: true }).click();

    const done = p.locator('#done');
    await p.getByRole('heading', { name: 'You are booked' }).waitFor();
    const text = (await done.textContent())!;
    expect(text).toContain(`${wall(start, GUEST_TZ).toFormat('HH:mm')} (${GUEST_TZ})`);
    expect(text).toContain(`${wall(start, HOST_TZ).toFormat('HH:mm')} (${HOST_TZ})`);
    expect(await p.locator('#booking').isHidden()).toBe(true);
    await shot(p, 'booking-done');

    // The booking, for real (live mode), at the slot picked.
    const b = await bookingOf(email);
    expect(b.livemode).toBe(true);
    expect(b.status).toBe('confirmed');
    expect(b.start_at.toISOString().replace(/\.\d{3}Z$/, 'Z')).toBe(start);
    expect(b.guest_tz).toBe(GUEST_TZ);
    expect(b.guest_locale).toBe('ja-JP');
    expect([b.guest_speak, b.guest_hear]).toEqual(['ja', 'en']);
    const manageUrl = `${t.url}/bookings/manage/${b.manage_token}`;
    expect(await p.locator('#done-manage').getAttribute('href')).toBe(manageUrl);
    expect(await p.locator('#done-ics').getAttribute('href')).toBe(`${manageUrl}/invite.ics`);
    expect(await p.locator('#done-room').getAttribute('href')).toMatch(new RegExp(`^${t.url}/r/${b.room_id}\\?t=`));
    expect(await outboxTypes(b.id)).toEqual(['booking.created']);
    booked = { id: b.id, start, email, manageUrl, roomId: b.room_id };

    // Guest and host each got an invitation whose calendar file is that instant.
    const uid = meetingUid(b.room_id, t.config.publicBaseUrl);
    const guestMail = await mailsTo(email);
    expect(guestMail).toHaveLength(1);
    const hostMail = (await mailsTo(ana.owner)).filter((m) => m.ics && parseIcs(m.ics).uid === uid);
    expect(hostMail).toHaveLength(1);
    const calendars = [guestMail[0]!, hostMail[0]!].map((m) => {
      expect(m.livemode).toBe(true);
      expect(m.ics_method).toBe('REQUEST');
      return parseIcs(m.ics!);
    });
    for (const c of calendars) expect(c).toEqual({ method: 'REQUEST', uid, sequence: 0, start });
    expect(calendars[0]!.start).toBe(calendars[1]!.start);

    // The calendar file the confirmation links to: the same meeting.
    const ics = await fetch(`${manageUrl}/invite.ics`);
    expect(ics.status).toBe(200);
    expect(ics.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(ics.headers.get('content-disposition')).toMatch(/^attachment; filename="invite\.ics"$/);
    expect(parseIcs(await ics.text())).toEqual({ method: 'REQUEST', uid, sequence: 0, start });
  }, 60_000);

  it('changing the time zone shows the same instants in the new zone', async () => {
    const ctx = await newContext();
    const p = await open(ctx, ana.url);
    const start = (await slotsOf(ana))[0]!;
    await slotButton(p, start).waitFor();
    expect((await rendered(p, start)).text).toBe(wall(start, GUEST_TZ).toFormat('HH:mm'));
    const before = await p.locator('button.slot').evaluateAll((els) => els.map((e) => e.getAttribute('data-start')!));

    const zone = 'Europe/Lisbon';
    await p.getByLabel('Your time zone').selectOption(zone);
    await expect.poll(async () => (await rendered(p, start)).text).toBe(wall(start, zone).toFormat('HH:mm'));
    expect((await rendered(p, start)).date).toBe(wall(start, zone).toFormat('yyyy-MM-dd'));
    const after = await p.locator('button.slot').evaluateAll((els) => els.map((e) => [e.getAttribute('data-start')!, e.textContent!.trim(), e.closest('fieldset')!.getAttribute('data-date')!] as const));
    // Every button is its instant's wall time and day in Lisbon.
    for (const [iso, text, date] of after) {
      expect(text, iso).toBe(wall(iso, zone).toFormat('HH:mm'));
      expect(date, iso).toBe(wall(iso, zone).toFormat('yyyy-MM-dd'));
    }
    // The instants of the Tokyo week that fall in the Lisbon week are all still offered.
    const lastDay = DateTime.now().setZone(zone).plus({ days: 6 }).toFormat('yyyy-MM-dd');
    const shown = new Set(after.map(([iso]) => iso));
    expect(before.filter((iso) => wall(iso, zone).toFormat('yyyy-MM-dd') <= lastDay && !shown.has(iso))).toEqual([]);
    // Days are in the new zone: their headings follow its dates.
    const days = await p.locator('fieldset.day').evaluateAll((els) => els.map((e) => e.getAttribute('data-date')!));
    expect(days).toEqual([...days].sort());
  }, 60_000);

  it('a guest picking a slot someone just took is told it is taken, and the slots are refreshed', async () => {
    const ctx = await newContext();
    const p = await open(ctx, bo.url);
    const start = (await slotsOf(bo))[0]!;
    await slotButton(p, start).waitFor();

    // Someone else books it meanwhile.
    const first = await t.request('POST', `/book/${bo.page}/${bo.slug}`, {
      body: { start, name: 'First Guest', email: 'first@example.com', speak: 'en', tz: 'Europe/Paris' },
    });
    expect(first.status).toBe(201);
    const booking = await first.json();
    expect(booking).toMatchObject({ start, livemode: true });
    expect(booking.manage_url).toMatch(new RegExp(`^${t.url}/bookings/manage/[A-Za-z0-9_-]{20,}$`));

    await slotButton(p, start).click();
    await p.getByLabel('Your name').fill('Second Guest');
    await p.getByLabel('E-mail').fill('second@example.com');
    await p.getByRole('button', { name: 'Book', exact: true }).click();
    await expect.poll(() => p.getByRole('alert').filter({ hasText: /taken|booked by someone else/i }).count()).toBe(1);
    expect(await p.locator('#form-error').textContent()).toBe('Sorry, that time was just booked by someone else. Please pick another time.');
    // Refreshed: the slot is gone, others are offered.
    await expect.poll(() => slotButton(p, start).count()).toBe(0);
    expect(await p.locator('button.slot').count()).toBeGreaterThan(0);
    expect(await p.locator('#done').isHidden()).toBe(true);
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM bookings WHERE guest_email = 'second@example.com'`);
    expect(rows[0].n).toBe(0);

    // The same answer without the page: 409 slot_taken.
    const again = await t.request('POST', `/book/${bo.page}/${bo.slug}`, {
      body: { start, name: 'Third Guest', email: 'third@example.com', speak: 'en', tz: 'UTC' },
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'slot_taken', status: 409, field: null });
  }, 60_000);

  it('can be operated with the keyboard alone (Tab and Enter), with visible focus', async () => {
    const ctx = await newContext();
    const p = await open(ctx, ana.url);
    await p.locator('button.slot').first().waitFor();
    await p.getByLabel('Your time zone').focus();
    const active = () => p.evaluate(() => {
      const a = (globalThis as any).document.activeElement;
      return { id: a?.id as string, cls: a?.className as string, start: a?.getAttribute?.('data-start') as string | null };
    });
    // From the zone select: "Previous week" is disabled this week, then "Next week", then the first slot.
    await p.keyboard.press('Tab');
    expect((await active()).id).toBe('next-week');
    await p.keyboard.press('Tab');
    const slot = await active();
    expect(slot.cls).toBe('slot');
    expect(slot.start).toBe(await p.locator('button.slot').first().getAttribute('data-start'));
    const outline = await p.evaluate(() => {
      const a = (globalThis as any).document.activeElement;
      const s = (globalThis as any).getComputedStyle(a);
      return { style: s.outlineStyle as string, width: parseFloat(s.outlineWidth) };
    });
    expect(outline.style).not.toBe('none');
    expect(outline.width).toBeGreaterThanOrEqual(2);

    await p.keyboard.press('Enter');
    expect(await p.locator('#book-form').isVisible()).toBe(true);
    expect((await active()).id).toBe('name');
    await p.keyboard.type('Keyboard <script>Guest</script>');
    await p.keyboard.press('Tab');
    expect((await active()).id).toBe('email');
    await p.keyboard.type('keys@example.com');
    await p.keyboard.press('Tab');
    expect((await active()).id).toBe('speak');
    await p.keyboard.press('Tab');
    expect((await active()).id).toBe('hear');
    await p.keyboard.press('Tab');
    expect((await active()).id).toBe('book-submit');
    await p.keyboard.press('Enter');
    await p.getByRole('heading', { name: 'You are booked' }).waitFor();
    expect((await active()).id).toBe('done');
    const b = await bookingOf('keys@example.com');
    expect(b.start_at.toISOString().replace(/\.\d{3}Z$/, 'Z')).toBe(slot.start);
  }, 60_000);

  it('fits a 375 px wide phone screen without horizontal scrolling', async () => {
    const ctx = await newContext({ viewport: { width: 375, height: 740 } });
    const p = await open(ctx, ana.url);
    await p.locator('button.slot').first().waitFor();
    const scrollWidth = () => p.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth as number);
    expect(await scrollWidth()).toBeLessThanOrEqual(375);
    await p.locator('button.slot').first().click();
    await p.locator('#book-form').waitFor();
    expect(await scrollWidth()).toBeLessThanOrEqual(375);
    await shot(p, 'booking-phone');
    expect(booked, 'the first test booked').not.toBeNull();
    const m = await open(ctx, booked!.manageUrl);
    expect(await m.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth as number)).toBeLessThanOrEqual(375);
    await m.getByRole('button', { name: 'Reschedule' }).click();
    await m.locator('button.slot').first().waitFor();
    expect(await m.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth as number)).toBeLessThanOrEqual(375);
    await shot(m, 'manage-phone');
  }, 60_000);
});

describe('manage page', () => {
  it('reschedules to another slot, then cancels; guest and host get the updated calendar files', async () => {
    expect(booked, 'the first test booked').not.toBeNull();
    const b0 = booked!;
    const uid = meetingUid(b0.roomId, t.config.publicBaseUrl);
    const ctx = await newContext();
    const p = await open(ctx, b0.manageUrl);
    expect(await p.getByRole('heading', { level: 1 }).textContent()).toBe(TITLE);
    expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('confirmed');
    const details = (await p.locator('dl').textContent())!;
    expect(details).toContain(`Your time (${GUEST_TZ})`);
    expect(details).toContain(wall(b0.start, GUEST_TZ).setLocale('en-GB').toFormat('cccc d LLLL yyyy, HH:mm'));
    expect(details).toContain(wall(b0.start, HOST_TZ).setLocale('en-GB').toFormat('cccc d LLLL yyyy, HH:mm'));
    expect(details).toContain('Kenji <i>Sato</i>');
    expect(await p.locator('dd i').count()).toBe(0);
    // The guest's own join link (signed, as in the invitation).
    expect(await p.locator('#room-link').getAttribute('href')).toMatch(new RegExp(`^${t.url}/r/${b0.roomId}\\?t=`));

    // Reschedule: the same picker, on the link's free slots.
    await p.getByRole('button', { name: 'Reschedule' }).click();
    const free = await slotsOf(ana);
    expect(free).not.toContain(b0.start);
    const target = free[2]!;
    await slotButton(p, target).waitFor();
    expect((await rendered(p, target)).text).toBe(wall(target, GUEST_TZ).toFormat('HH:mm'));
    await slotButton(p, target).click();
    await shot(p, 'manage-reschedule');
    await p.getByRole('button', { name: 'Move to this time' }).click();
    await p.waitForURL(/\?done=rescheduled$/);
    expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('rescheduled');
    expect(await p.locator('dl').textContent()).toContain(wall(target, GUEST_TZ).setLocale('en-GB').toFormat('cccc d LLLL yyyy, HH:mm'));

    const moved = await bookingOf(b0.email);
    expect(moved.start_at.toISOString().replace(/\.\d{3}Z$/, 'Z')).toBe(target);
    expect(moved.status).toBe('rescheduled');
    expect(await outboxTypes(b0.id)).toEqual(['booking.created', 'booking.rescheduled']);
    const updated = (await mailsTo(b0.email)).filter((m) => m.subject.startsWith('Updated invitation'));
    expect(updated).toHaveLength(1);
    const update = parseIcs(updated[0]!.ics!);
    expect(update).toEqual({ method: 'REQUEST', uid, sequence: 1, start: target });
    const hostUpdate = (await mailsTo(ana.owner)).filter((m) => m.ics && m.subject.startsWith('Updated invitation')).map((m) => parseIcs(m.ics!)).filter((c) => c.uid === uid);
    expect(hostUpdate).toEqual([{ method: 'REQUEST', uid, sequence: 1, start: target }]);

    // Cancel: asked once more, then done.
    await p.getByRole('button', { name: 'Cancel booking' }).click();
    await p.getByRole('button', { name: 'Yes, cancel the booking' }).click();
    await p.waitForURL(/\?done=canceled$/);
    expect(await p.locator('[data-status]').getAttribute('data-status')).toBe('canceled');
    expect(await p.locator('.status').textContent()).toContain('Canceled');
    // Nothing left to do here, but another time can be booked: the link opens the booking page again.
    expect(await p.locator('button').count()).toBe(0);
    await shot(p, 'manage-canceled');
    await p.getByRole('link', { name: 'Book another time' }).click();
    await p.waitForURL((u) => !u.pathname.startsWith('/bookings/manage/'));
    expect(await p.locator('h1').first().textContent()).toBeTruthy();
    expect((await p.request.get(p.url())).status()).toBe(200);

    const canceled = await bookingOf(b0.email);
    expect(canceled.status).toBe('canceled');
    expect(await outboxTypes(b0.id)).toEqual(['booking.created', 'booking.rescheduled', 'booking.canceled']);
    expect(await outboxTypes(b0.roomId)).toContain('meeting.canceled');
    const cancelMail = (await mailsTo(b0.email)).filter((m) => m.ics_method === 'CANCEL');
    expect(cancelMail).toHaveLength(1);
    expect(parseIcs(cancelMail[0]!.ics!)).toEqual({ method: 'CANCEL', uid, sequence: 2, start: target });

    // The calendar file now cancels the event.
    const ics = await fetch(`${b0.manageUrl}/invite.ics`);
    expect(ics.status).toBe(200);
    expect(ics.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    expect(ics.headers.get('content-disposition')).toContain('attachment');
    const body = await ics.text();
    expect(body).toContain('METHOD:CANCEL');
    expect(parseIcs(body)).toEqual({ method: 'CANCEL', uid, sequence: 2, start: target });

    // Canceling again changes nothing; moving it is refused.
    const again = await t.request('POST', `${new URL(b0.manageUrl).pathname}/cancel`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: 'canceled' });
    const move = await t.request('POST', `${new URL(b0.manageUrl).pathname}/reschedule`, { body: { start: free[3] } });
    expect(move.status).toBe(409);
  }, 90_000);
});

describe('errors', () => {
  it('answers 404 pages for unknown links and tokens, and says when a link is paused', async () => {
    for (const path of ['/book/nobody/nothing', '/book/ana/nothing', '/book/%00/x', `/book/${'a'.repeat(300)}/x`,
      `/bookings/manage/${'A'.repeat(32)}`, '/bookings/manage/short', `/bookings/manage/${'A'.repeat(32)}/invite.ics`]) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(await res.text(), path).toMatch(/<html lang="en">[\s\S]*not found/);
    }
    const slots = await t.request('GET', '/book/nobody/nothing/slots');
    expect(slots.status).toBe(404);
    expect((await slots.json()).error).toMatch(/No booking link/);

    const { orgId } = await t.key();
    await createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page: 'cy', slug: 'paused', title: 'Paused link', tz: HOST_TZ, hours: 'mon-sun 00:00-24:00' });
    await t.pool.query(`UPDATE event_types SET active = false WHERE page = 'cy' AND slug = 'paused'`);
    const page = await t.request('GET', '/book/cy/paused');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/Booking on this link is paused/);
    expect(html).not.toContain('data-mode');
    const book = await t.request('POST', '/book/cy/paused', { body: { start: new Date(Date.now() + 3 * 3600_000).toISOString(), name: 'X', email: 'x@example.com', speak: 'en', tz: 'UTC' } });
    expect(book.status).toBe(409);
    expect((await book.json()).error).toMatch(/paused/);
  });

  it('answers bad input with 4xx naming the field, never 5xx', async () => {
    const start = (await slotsOf(ana))[0]!;
    const good = { start, name: 'Val Idator', email: 'val@example.com', speak: 'en', hear: 'pt', tz: 'Europe/Lisbon', locale: 'en' };
    const bookPath = `/book/${ana.page}/${ana.slug}`;
    const cases: Array<{ path: string; body?: unknown; raw?: string; type?: string; status: number; field: string | null }> = [
      { path: bookPath, raw: '{"start": ', status: 400, field: 'body' },
      { path: bookPath, raw: '[]', status: 400, field: 'body' },
      { path: bookPath, raw: '"text"', status: 400, field: 'body' },
      { path: bookPath, raw: 'null', status: 400, field: 'body' },
      { path: bookPath, body: {}, status: 400, field: 'start' },
      { path: bookPath, body: { ...good, start: 'tomorrow' }, status: 400, field: 'start' },
      { path: bookPath, body: { ...good, start: 12 }, status: 400, field: 'start' },
      { path: bookPath, body: { ...good, start: '2020-01-01T10:00:00Z' }, status: 400, field: 'start' },
      { path: bookPath, body: { ...good, start: new Date(Date.parse(start) + 7 * 60_000).toISOString() }, status: 400, field: 'start' },
      { path: bookPath, body: { ...good, name: '' }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, name: '   ' }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, name: 'n'.repeat(81) }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, name: 'a\u0000b' }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, name: 'a\ud800b' }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, name: ['x'] }, status: 400, field: 'name' },
      { path: bookPath, body: { ...good, email: 'not-an-address' }, status: 400, field: 'email' },
      { path: bookPath, body: { ...good, email: `${'e'.repeat(250)}@example.com` }, status: 400, field: 'email' },
      { path: bookPath, body: { ...good, speak: 'Klingon language' }, status: 400, field: 'speak' },
      { path: bookPath, body: { ...good, speak: undefined }, status: 400, field: 'speak' },
      { path: bookPath, body: { ...good, hear: 42 }, status: 400, field: 'hear' },
      { path: bookPath, body: { ...good, tz: 'Mars/Olympus_Mons' }, status: 400, field: 'tz' },
      { path: bookPath, body: { ...good, tz: '+05:30' }, status: 400, field: 'tz' },
      { path: bookPath, body: { ...good, tz: 'x'.repeat(65) }, status: 400, field: 'tz' },
      { path: bookPath, body: { ...good, locale: 'not a locale' }, status: 400, field: 'locale' },
      { path: bookPath, raw: JSON.stringify(good), type: 'text/plain', status: 415, field: null },
      { path: '/book/nobody/nothing', body: good, status: 404, field: null },
      { path: `/bookings/manage/${'A'.repeat(32)}/reschedule`, body: {}, status: 400, field: 'start' },
      { path: `/bookings/manage/${'A'.repeat(32)}/reschedule`, body: { start: 'soon' }, status: 400, field: 'start' },
      { path: `/bookings/manage/${'A'.repeat(32)}/reschedule`, raw: '{', status: 400, field: 'body' },
      { path: `/bookings/manage/${'A'.repeat(32)}/reschedule`, body: { start }, status: 404, field: null },
      { path: `/bookings/manage/${'A'.repeat(32)}/cancel`, raw: '{', status: 400, field: 'body' },
      { path: `/bookings/manage/${'A'.repeat(32)}/cancel`, status: 404, field: null },
      { path: '/bookings/manage/x%00y/cancel', status: 404, field: null },
    ];
    for (const c of cases) {
      const label = `${c.path} ${c.raw ?? JSON.stringify(c.body)}`.slice(0, 160);
      const res = await t.request('POST', c.path, {
        ...(c.body !== undefined ? { body: c.body } : {}),
        ...(c.raw !== undefined ? { rawBody: c.raw, headers: { 'content-type': c.type ?? 'application/json' } } : {}),
      });
      expect(res.status, label).toBe(c.status);
      expect(res.headers.get('content-type'), label).toMatch(/^application\/problem\+json/);
      const body = await res.json();
      expect(body.field, label).toBe(c.field);
      expect(body.status, label).toBe(c.status);
      expect(typeof body.error, label).toBe('string');
      expect(body.error, label).toBe(body.message);
      if (c.field) expect(body.error, label).toMatch(new RegExp(`^${c.field}: `));
    }
    // None of it booked anything.
    const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM bookings WHERE guest_email = 'val@example.com'`);
    expect(rows[0].n).toBe(0);

    // The slots' dates are checked as the API checks them.
    for (const [query, field] of [['?from=nope', 'from'], ['?from=2026-02-30', 'from'], ['?from=2026-03-10&to=2026-03-01', 'to'],
      ['?from=2026-01-01&to=2026-12-31', 'to'], ['?from=2026-01-01&from=2026-01-02', 'from'], ['?to=x%00', 'to']] as const) {
      const res = await t.request('GET', `/book/${ana.page}/${ana.slug}/slots${query}`);
      expect(res.status, query).toBe(400);
      const body = await res.json();
      expect(body.field, query).toBe(field);
      expect(body.error, query).toMatch(new RegExp(`^${field}: `));
    }
  });
});

describe('what the pages load', () => {
  it('asks nothing of another origin, runs without errors under a strict Content-Security-Policy, and stays out of the API document', async () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
    const page = await t.request('GET', `/book/${ana.page}/${ana.slug}`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await page.text();
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son[a-z]+=/i);
    expect([...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((u) => !u!.startsWith('/') && !u!.startsWith('#'))).toEqual([]);
    const js = await t.request('GET', '/book/assets/booking.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    const css = await t.request('GET', '/book/assets/booking.css');
    expect(css.status).toBe(200);
    expect(await css.text()).not.toMatch(/url\(|@import/);
    const openapi = await (await t.request('GET', '/v1/openapi.json')).json();
    expect(Object.keys(openapi.paths).filter((p) => p.startsWith('/book'))).toEqual([]);
  });
  it('no page can be framed: CSP frame-ancestors and X-Frame-Options (for older browsers) on every page and error page', async () => {
    expect(booked, 'the first test booked').not.toBeNull();
    const pages: Array<[path: string, status: number]> = [
      [`/book/${ana.page}/${ana.slug}`, 200],
      [new URL(booked!.manageUrl).pathname, 200],
      ['/book/nobody/nothing', 404],
      [`/bookings/manage/${'A'.repeat(32)}`, 404],
      [`/bookings/manage/${'A'.repeat(32)}/invite.ics`, 404],
    ];
    for (const [path, status] of pages) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
  });
});
