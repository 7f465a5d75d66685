import fs from 'node:fs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/process.ts';
import { createEventType } from '../../src/cli/admin.ts';
import { fireTimer } from '../../src/rooms/meetings/meetings.ts';

// Every link the service hands to a person opens the room for that person:
// the booking page's confirmation, POST /v1/bookings' room_url, the
// invitation and reminder mails, the manage page; and the README's first
// steps end in a url a person can open. The meetings are private, so each
// of these is the person's own join link: in a real headless Chromium it
// lands on the room's join screen, the person's name already filled in,
// never on "This room is private".

vi.setConfig({ testTimeout: 90_000, hookTimeout: 90_000 });

const HOST_TZ = 'Europe/Lisbon';

let t: TestApp;
let browser: Browser;
let ctx: BrowserContext;

async function host(orgId: string, page: string) {
  return createEventType(t.pool, t.config.publicBaseUrl, { org: orgId, page, slug: 'talk', title: 'Talk', tz: HOST_TZ, hours: 'mon-sun 00:00-24:00', duration: 30 });
}

async function mailsTo(to: string) {
  const { rows } = await t.pool.query(`SELECT subject, text FROM mail_outbox WHERE lower(to_addr) = lower($1) ORDER BY id`, [to]);
  return rows as Array<{ subject: string; text: string }>;
}

/** The link of a mail's `Join:` line. */
function joinLineOf(text: string): string {
  const m = /^Join: (\S+)$/m.exec(text);
  expect(m, text).not.toBeNull();
  return m![1]!;
}

/** The meeting goes live, as its start timer does at its time. */
async function start(roomId: string) {
  const { rows } = await t.pool.query(`SELECT sequence FROM rooms WHERE id = $1`, [roomId]);
  await fireTimer(t.services, { roomId, sequence: rows[0].sequence, kind: 'start' });
  const after = await t.pool.query(`SELECT status FROM rooms WHERE id = $1`, [roomId]);
  expect(after.rows[0].status).toBe('live');
}

/** Opens url in the browser: 200 and the room's join screen with the person's name in it. */
async function expectJoinScreen(url: string, name: string): Promise<Page> {
  const p = await ctx.newPage();
  const res = await p.goto(url, { waitUntil: 'load' });
  expect(res?.status(), url).toBe(200);
  await expectJoinScreenOn(p, name);
  return p;
}

async function expectJoinScreenOn(p: Page, name: string) {
  await p.locator('#join-form').waitFor({ state: 'visible' });
  expect(await p.locator('#name').inputValue()).toBe(name);
  expect(await p.content()).not.toContain('This room is private');
}

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchChromium();
  ctx = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
});
afterAll(async () => {
  await ctx?.close().catch(() => {});
  await browser?.close();
  await t?.close();
});

describe('links handed to a person', () => {
  it('the booking page: the confirmation\'s meeting link, the invitation, the reminder and the manage page open the room', async () => {
    const { orgId } = await t.key();
    const et = await host(orgId, 'lina');
    const p = await ctx.newPage();
    expect((await p.goto(et.url, { waitUntil: 'load' }))?.status()).toBe(200);
    const slots = (await (await t.request('GET', `/book/lina/talk/slots`)).json()).slots as string[];
    await p.locator(`button.slot[data-start="${slots[0]}"]`).click();
    await p.locator('#name').fill('Rosa Lima');
    await p.locator('#email').fill('rosa@example.com');
    await p.locator('#speak').selectOption('pt');
    await p.locator('#hear').selectOption('en');
    await p.locator('#book-submit').click();
    await p.locator('#done').waitFor({ state: 'visible' });
    const href = (await p.locator('#done-room').getAttribute('href'))!;
    expect(href).toMatch(/\/r\/room_[A-Za-z0-9]+\?t=/);
    const roomId = new URL(href).pathname.slice(3);
    const bare = `${t.url}/r/${roomId}`;
    // The room's url alone is still refused: it is private.
    expect((await fetch(bare)).status).toBe(403);
    // Before it starts, the link says when (not 403).
    expect((await fetch(href)).status).toBe(200);

    const { rows } = await t.pool.query(`SELECT manage_token FROM bookings WHERE room_id = $1`, [roomId]);
    const manage = `${t.url}/bookings/manage/${rows[0].manage_token}`;
    // The 15-minute reminder, mailed while the meeting is still ahead.
    await fireTimer(t.services, { roomId, sequence: 0, kind: 'remind_15m' });
    const mails = await mailsTo('rosa@example.com');
    const invitation = mails.find((m) => m.subject.startsWith('Invitation:'))!;
    const reminder = mails.find((m) => m.subject.startsWith('Starting in 15 minutes'))!;
    expect(invitation).toBeTruthy();
    expect(reminder).toBeTruthy();

    await start(roomId);
    // The confirmation's link, clicked.
    await p.locator('#done-room').click();
    await p.waitForURL(/\/r\/room_/);
    await expectJoinScreenOn(p, 'Rosa Lima');
    expect(await p.locator('#speak').inputValue()).toBe('pt');
    expect(await p.locator('#hear').inputValue()).toBe('en');
    // The invitation's and the reminder's.
    await expectJoinScreen(joinLineOf(invitation.text), 'Rosa Lima');
    await expectJoinScreen(joinLineOf(reminder.text), 'Rosa Lima');
    // The manage page's meeting link, clicked (its text is the link itself).
    const m = await ctx.newPage();
    expect((await m.goto(manage, { waitUntil: 'load' }))?.status()).toBe(200);
    const link = m.locator('#room-link');
    expect(await link.textContent()).toBe(await link.getAttribute('href'));
    await link.click();
    await m.waitForURL(/\/r\/room_/);
    await expectJoinScreenOn(m, 'Rosa Lima');
  });

  it("POST /v1/bookings: room_url is the guest's own join link and opens the room", async () => {
    const { orgId, secret } = await t.key();
    const et = await host(orgId, 'tomas');
    const slots = (await (await t.request('GET', `/v1/event-types/${et.id}/slots`, { key: secret })).json()).slots as string[];
    const res = await t.request('POST', '/v1/bookings', {
      key: secret, headers: { 'idempotency-key': crypto.randomUUID() },
      body: { event_type_id: et.id, start: slots[0], guest: { name: 'Ivo Sá', email: 'ivo@example.com', speak: 'pt', hear: 'es' } },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const b = await res.json();
    expect(b.room_url).toMatch(new RegExp(`^${t.url}/r/room_[A-Za-z0-9]+\\?t=`));
    const roomId = new URL(b.room_url).pathname.slice(3);
    expect((await fetch(b.room_url)).status).toBe(200);
    await start(roomId);
    const p = await expectJoinScreen(b.room_url, 'Ivo Sá');
    expect(await p.locator('#speak').inputValue()).toBe('pt');
    expect(await p.locator('#hear').inputValue()).toBe('es');
    // The invitation mailed to the guest opens it too.
    const inv = (await mailsTo('ivo@example.com')).find((x) => x.subject.startsWith('Invitation:'))!;
    await expectJoinScreen(joinLineOf(inv.text), 'Ivo Sá');
  });
});

describe("the README's first steps", () => {
  it('run as written (curl against the server), end in a url that opens the join screen', async () => {
    const readme = fs.readFileSync(`${ROOT}/README.md`, 'utf8');
    const section = readme.slice(readme.indexOf('## Using the API'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const port = new URL(t.url).port;
    // Against this test server and its database; `npx tolk` is the package's CLI (bin/tolk.js).
    const script = block.replaceAll('localhost:8080', `127.0.0.1:${port}`).replaceAll('npx tolk', `node ${ROOT}/bin/tolk.js`);
    const out = await promisify(execFile)('bash', ['-eo', 'pipefail', '-c', script], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: t.db.url, PUBLIC_BASE_URL: t.url, LOG_LEVEL: 'silent' },
      timeout: 60_000,
    });
    // Every room url it printed opens (none answers 403); the last is the one to open.
    const urls = [...out.stdout.matchAll(/"url":"([^"]+\/r\/room_[^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length, out.stdout).toBeGreaterThan(0);
    for (const u of urls) expect((await fetch(u)).status, u).toBe(200);
    await expectJoinScreen(urls.at(-1)!, 'Ana');
  });
});
