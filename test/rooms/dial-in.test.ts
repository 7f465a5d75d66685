import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { startKamailio, type Kamailio } from '../helpers/kamailio.ts';
import { evenFreePort, finished, wire } from '../helpers/sipp.ts';
import { dialIn, PhoneMedia } from '../helpers/dial-in-caller.ts';
import { sentence, silence } from '../helpers/stream-audio.ts';
import { until } from '../helpers/wait.ts';
import { withApertium } from '../helpers/apertium.ts';
import { addTrunk, listTrunks } from '../../src/cli/trunk.ts';
import { addNumber } from '../../src/cli/admin.ts';
import { sweepAbsent } from '../../src/rooms/participants.ts';
import { freeUdpPort } from '../../gateway/sip-stack.ts';
import { startServerProcess } from '../helpers/process.ts';
import { launchChromium } from '../helpers/chromium.ts';
import type { Browser } from 'playwright-core';

// People dialing into a translated room (operator.md, Phone participants), end to end with real
// peers: Kamailio is the carrier that brings the call from its trunk's address, SIPp the phone
// that dials the inbound number and types the PIN (SIP INFO, or RFC 4733 events from SIPp's own
// captures), the test's socket the phone's audio (LibriVox speech out, what it hears recorded),
// PocketSphinx hears the caller, Apertium translates, Pico speaks.

vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

const DIAL_IN = '+12125550199';
const CALLER = '+14155550123';
const secretKey = randomBytes(32);

let db: TestDb;
let t: TestApp;
let carrier: Kamailio;
let key = '';
let orgId = '';
let browser: Browser;

beforeAll(async () => {
  db = await createTestDatabase();
  t = await startTestApp({
    db, workers: true,
    config: {
      ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico'],
      secretKey, trunkPingSeconds: 0.5, recognizeTimeoutMs: 30_000, mediaTimeoutSeconds: 120,
    },
  });
  const k = await t.key({ mode: 'live', minutes: 30, rpm: 100_000 });
  key = k.secret;
  orgId = k.orgId;
  carrier = await startKamailio({ next: t.services.gateway!.address });
  const trunk = await addTrunk(t.pool, secretKey, { org: orgId, uri: `sip:${carrier.address}` });
  await addNumber(t.pool, { org: orgId, e164: DIAL_IN, trunk: trunk.id, inbound: true });
  // The trunk answered its OPTIONS: the gateway knows its address as a trunk's.
  browser = await launchChromium();
  await until('the trunk up', async () => (await listTrunks(t.pool, orgId)).data.every((x) => x.state === 'up'), { timeoutMs: 10_000, intervalMs: 100 });
});
afterAll(async () => {
  await browser?.close();
  t?.app.server.closeAllConnections();
  await t?.close();
  await carrier?.stop();
  await db?.drop();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function room(langs = ['en', 'es']): Promise<string> {
  const res = await t.request('POST', '/v1/rooms', { key, headers: idem(), body: { langs, visibility: 'public' } });
  expect(res.status).toBe(201);
  return (await res.json()).id;
}

async function pinFor(roomId: string, body: Record<string, string>): Promise<string> {
  const res = await t.request('POST', `/v1/rooms/${roomId}/join-links`, { key, body });
  const link = await res.json();
  expect(res.status, JSON.stringify(link)).toBe(201);
  expect(link.phone.number).toBe(DIAL_IN);
  return link.phone.pin;
}

type Row = { id: string; name: string; speak_lang: string; hear_lang: string; phone: string | null; left_at: Date | null; left_reason: string | null; phone_billed_seconds: number | null };
async function phoneParticipants(roomId: string): Promise<Row[]> {
  return (await t.pool.query<Row>(
    `SELECT id, name, speak_lang, hear_lang, phone, left_at, left_reason, phone_billed_seconds FROM room_participants WHERE room_id = $1 AND phone IS NOT NULL ORDER BY joined_at`, [roomId])).rows;
}

describe('dialing into a room', () => {
  it('the PIN (SIP INFO) brings the caller in with the link\'s name and languages; Ana\'s page shows them with a phone badge and reads what they say, translated, and they hear what Ana types', async () => {
    const roomId = await room();
    const pin = await pinFor(roomId, { name: 'Paula', speak: 'en', hear: 'en' });
    // Ana in the room's page, in Chromium, speaking and hearing Spanish.
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    await page.goto(`${t.url}/r/${roomId}`);
    await page.getByLabel('Your name').fill('Ana');
    await page.getByLabel('I speak').selectOption('es');
    await page.getByLabel('I hear').selectOption('es');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.locator('#room').waitFor({ state: 'visible' });
    const media = await PhoneMedia.open();
    const sipp = await dialIn({ to: DIAL_IN, carrier: carrier.address, from: CALLER, media: { port: media.port }, pins: [pin], waitMs: 2_000 });
    try {
      // The greeting reaches the phone before the PIN is typed: audio, and loud enough to be speech.
      await until('the greeting on the phone', async () => media.levelSince(0) > 300 || null, { timeoutMs: 15_000, intervalMs: 100 });
      const paula = await until('Paula in the room', async () => (await phoneParticipants(roomId))[0] ?? null, { timeoutMs: 20_000, intervalMs: 100 });
      expect(paula).toMatchObject({ name: 'Paula', speak_lang: 'en', hear_lang: 'en', phone: expect.stringMatching(/^\+1•+23$/), left_at: null });
      // Ana's page lists her, with the phone badge.
      const listed = page.locator('#participants > li').filter({ has: page.locator('.name').getByText('Paula', { exact: true }) });
      await listed.locator('.phone-badge').waitFor({ timeout: 10_000 });
      expect(await listed.locator('.phone-badge').getAttribute('title')).toBe('By phone');

      // Paula speaks (recorded speech): Ana's page shows her phrase, in Spanish, with the English as said.
      const { pcm, reference } = await sentence('0870');
      await media.speak(new Int16Array([...silence(300), ...pcm, ...silence(1_200)]));
      const shown = page.locator('#phrases > li.phrase:not(.live)').filter({ has: page.locator('.who').getByText('Paula', { exact: true }) }).first();
      await shown.waitFor({ timeout: 40_000 });
      expect(await shown.locator('.text').getAttribute('lang')).toBe('es');
      const original = (await shown.locator('.original').textContent()) ?? '';
      const refWords = new Set(reference.toLowerCase().split(/\s+/));
      expect(original.toLowerCase().split(/\s+/).filter((w) => refWords.has(w.replace(/[^a-z']/g, ''))).length, `${original} / ${reference}`).toBeGreaterThanOrEqual(2);
      expect(await shown.locator('.text').textContent()).not.toBe(original);

      // Ana types in Spanish: Paula hears it, spoken in English, on her phone.
      // Once the welcome in the room (its notice) is over: a second of quiet on the phone.
      await until('the prompts over', async () => media.levelSince(Date.now() - 1_000) < 50 || null, { timeoutMs: 30_000, intervalMs: 100 });
      const typedAt = Date.now();
      await page.getByLabel('Say something').fill('Buenos días, ¿me oyes bien?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await until('Ana\'s phrase on Paula\'s phone', async () => media.levelSince(typedAt) > 300 || null, { timeoutMs: 20_000, intervalMs: 100 });

      // The room ends: the phone is told, then our BYE; Paula left, billed her connected seconds.
      const ended = await t.request('DELETE', `/v1/rooms/${roomId}`, { key });
      expect(ended.status).toBe(200);
      const r = await finished(sipp, 30_000);
      expect(r.code, r.errors).toBe(0);
      const bye = wire(r.trace).find((m) => m.by === 'gateway' && m.startLine.startsWith('BYE'));
      expect(bye).toBeDefined();
      const [left] = await phoneParticipants(roomId);
      expect(left).toMatchObject({ left_reason: 'room_ended' });
      expect(left!.phone_billed_seconds).toBeGreaterThan(0);
      const { rows: usage } = await t.pool.query(`SELECT seconds FROM usage_ledger WHERE kind = 'phone' AND ref = $1`, [paula.id]);
      expect(usage).toHaveLength(1);
      expect(Number(usage[0].seconds)).toBe(Number(left!.phone_billed_seconds));
    } finally {
      await sipp.stop();
      media.close();
      await page.context().close();
    }
  });

  it('three wrong PINs (RFC 4733 events): a goodbye and our BYE, and nobody joins', async () => {
    const roomId = await room();
    const right = await pinFor(roomId, { name: 'Quinn' });
    const wrong = right.startsWith('9') ? '1' + right.slice(1) : '9' + right.slice(1);
    const sipp = await dialIn(
      { to: DIAL_IN, carrier: carrier.address, from: '+14155550124', media: 'sipp', pins: [wrong, wrong, '12'], waitMs: 1_500, betweenMs: 3_000, byeTimeoutMs: 40_000 },
      { mediaPort: await evenFreePort() },
    );
    try {
      const r = await finished(sipp, 90_000);
      expect(r.code, `${r.errors}\n${r.trace}`).toBe(0);
      expect(wire(r.trace).some((m) => m.by === 'gateway' && m.startLine.startsWith('BYE'))).toBe(true);
      expect(await phoneParticipants(roomId)).toEqual([]);
    } finally {
      await sipp.stop();
    }
  });

  it('*6 mutes the caller (nothing they say reaches the room) and unmutes them, each said back to them', async () => {
    const roomId = await room();
    const pin = await pinFor(roomId, { name: 'Sam', speak: 'en', hear: 'en' });
    const media = await PhoneMedia.open();
    const toggles: number[] = [];
    t.services.gateway!.media.on('finished', (_k, u) => { if (u.startsWith('mute-')) toggles.push(Date.now()); });
    const sipp = await dialIn({ to: DIAL_IN, carrier: carrier.address, from: '+14155550126', media: { port: media.port }, pins: [pin, '*6', '*6'], waitMs: 1_000, betweenMs: 11_000 });
    const phrases = async (pid: string) => (await t.pool.query(`SELECT text, created_at FROM room_segments WHERE room_id = $1 AND participant_id = $2 AND kind = 'person'`, [roomId, pid])).rows;
    try {
      const [sam] = await until('Sam in the room', async () => { const r = await phoneParticipants(roomId); return r.length ? r : null; }, { timeoutMs: 20_000, intervalMs: 100 });
      const { pcm } = await sentence('0880');
      const speech = new Int16Array([...silence(300), ...pcm, ...silence(1_200)]);
      await until('muted', async () => toggles.length >= 1 || null, { timeoutMs: 30_000, intervalMs: 100 });
      await media.speak(speech);
      await new Promise((r) => setTimeout(r, 4_000));
      expect(await phrases(sam!.id)).toEqual([]);
      await until('unmuted', async () => toggles.length >= 2 || null, { timeoutMs: 30_000, intervalMs: 100 });
      const unmutedAt = new Date();
      await media.speak(speech);
      // Heard again: their voice starts in the room's log (speech.started), and nothing said while muted ever came.
      const started = async () => (await t.pool.query(`SELECT 1 FROM room_segments WHERE room_id = $1 AND participant_id = $2 AND kind = 'speech.started' AND created_at >= $3`, [roomId, sam!.id, unmutedAt])).rows.length;
      await until('Sam heard once unmuted', async () => (await started()) > 0 || null, { timeoutMs: 20_000, intervalMs: 100 });
      const { rows: before } = await t.pool.query(`SELECT 1 FROM room_segments WHERE room_id = $1 AND participant_id = $2 AND kind = 'speech.started' AND created_at < $3`, [roomId, sam!.id, unmutedAt]);
      expect(before).toEqual([]);
      for (const p of await phrases(sam!.id)) expect(p.created_at.getTime()).toBeGreaterThan(toggles[1]! - 2_000);
    } finally {
      await sipp.stop();
      media.close();
    }
  });

  it('the caller hangs up: they leave the room, billed once', async () => {
    const roomId = await room();
    const pin = await pinFor(roomId, { name: 'Rita', speak: 'en', hear: 'es' });
    const media = await PhoneMedia.open();
    const sipp = await dialIn({ to: DIAL_IN, carrier: carrier.address, from: '+14155550125', media: { port: media.port }, pins: [pin], waitMs: 1_000, hangupAfterMs: 5_000 });
    try {
      const r = await finished(sipp, 60_000);
      expect(r.code, r.errors).toBe(0);
      const [rita] = await until('Rita gone', async () => {
        const rows = await phoneParticipants(roomId);
        return rows[0]?.left_at ? rows : null;
      }, { timeoutMs: 10_000, intervalMs: 100 });
      expect(rita).toMatchObject({ name: 'Rita', speak_lang: 'en', hear_lang: 'es', left_reason: 'left' });
      expect(rita!.phone_billed_seconds).toBeGreaterThanOrEqual(3);
      expect(rita!.phone_billed_seconds).toBeLessThan(15);
    } finally {
      await sipp.stop();
      media.close();
    }
  });
});

describe('a gateway process killed mid-call', () => {
  it('its phone participants end gateway_lost at the presence sweep, billed once to when they were last seen', async () => {
    // Another process of the service, with its own gateway and its own carrier in front of it.
    const sip = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
    const child = await startServerProcess(db.url, { TOLK_SIP_LISTEN: sip, TOLK_TRUNK_PING_SECONDS: '1', LOG_LEVEL: 'warn' });
    const carrier2 = await startKamailio({ next: sip });
    const media = await PhoneMedia.open();
    let sipp: Awaited<ReturnType<typeof dialIn>> | undefined;
    try {
      const roomId = await room();
      const pin = await pinFor(roomId, { name: 'Tom', speak: 'en', hear: 'en' });
      // The second carrier sends from the number's trunk's address too (127.0.0.3), to the other process.
      sipp = await dialIn({ to: DIAL_IN, carrier: carrier2.address, from: '+14155550127', media: { port: media.port }, pins: [pin], waitMs: 1_500, byeTimeoutMs: 60_000 });
      const [tom] = await until('Tom in the room through the other process', async () => { const r = await phoneParticipants(roomId); return r.length ? r : null; }, { timeoutMs: 30_000, intervalMs: 100, detail: () => child.output().slice(-2_000) });
      await child.kill();
      // Nobody hangs up: the process is gone. Once the participant has not been seen for the sweep's time, they are gone too.
      // (Its clock moved on for the test: joined a minute ago, last seen by its heartbeat 46 s ago.)
      await t.pool.query(`UPDATE room_participants SET last_seen_at = now() - interval '46 seconds', joined_at = now() - interval '60 seconds' WHERE id = $1`, [tom!.id]);
      await sweepAbsent(t.services);
      await sweepAbsent(t.services);
      const [gone] = await phoneParticipants(roomId);
      expect(gone).toMatchObject({ left_reason: 'gateway_lost' });
      // Billed to when they were last seen (14 s), not to the sweep.
      expect(gone!.phone_billed_seconds).toBeGreaterThanOrEqual(14);
      expect(gone!.phone_billed_seconds).toBeLessThanOrEqual(15);
      const { rows } = await t.pool.query(`SELECT seconds FROM usage_ledger WHERE kind = 'phone' AND ref = $1`, [tom!.id]);
      expect(rows).toHaveLength(1);
    } finally {
      await sipp?.stop();
      media.close();
      await child.kill();
      await carrier2.stop();
    }
  });
});
