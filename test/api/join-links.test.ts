import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { withApertium } from '../helpers/apertium.ts';
import { linkSigningKey } from '../../src/rooms/join-links.ts';

// A join link (POST /v1/rooms/{id}/join-links) opens the room page with the
// name and languages prefilled; the page admits it only as it was issued. Any
// other spelling of its token, even one that decodes to the same bytes, is
// refused with the page's 403 "invalid link" answer.
//
// Its answer says at once what the service can do for the person in those
// languages (`coverage`): here with real engines, Apertium (en↔es, es↔pt,
// no Japanese), PocketSphinx (hears English) and Pico (no Portuguese, no
// Japanese).

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await startTestApp({ config: { ...withApertium(), recognize: [{ name: 'pocketsphinx' }], speechEngines: ['pico'] } });
  ({ secret } = await t.key({ rpm: 100_000 }));
});
afterAll(async () => { await t?.close(); });

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

async function newLink(): Promise<{ roomId: string; base: string; token: string }> {
  const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { title: 'Links' } })).json();
  const res = await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, body: { name: 'Ana', speak: 'pt', hear: 'en' } });
  expect(res.status).toBe(201);
  const { url } = await res.json();
  const [base, token] = url.split('?t=');
  return { roomId: room.id, base, token };
}

async function expectAdmitted(url: string) {
  const page = await fetch(url);
  const html = await page.text();
  expect(page.status, url).toBe(200);
  // The join screen, with the link's name prefilled and its token kept for joining.
  expect(html, url).toMatch(/data-token="[^"]+"/);
  expect(html, url).toContain('value="Ana"');
}

async function expectRefused(url: string, label: string) {
  const page = await fetch(url);
  const html = await page.text();
  expect(page.status, label).toBe(403);
  expect(html, label).toContain('This join link does not work');
  expect(html, label).not.toContain('data-token');
}

describe('join links', () => {
  it('opens the room with the link as issued and refuses every alteration of its token', async () => {
    const { base, token } = await newLink();
    await expectAdmitted(`${base}?t=${token}`);

    const altered: Array<[string, string]> = [];
    for (let i = 0; i < token.length; i++) {
      const at = B64URL.indexOf(token[i]!);
      // The neighbour differs in the lowest bit only (the bits a decoder drops
      // at the end of a part); the other differs in the highest.
      const others = at < 0 ? ['A', '_'] : [B64URL[at ^ 1]!, B64URL[at ^ 32]!];
      for (const c of others) altered.push([`character ${i} ${token[i]}→${c}`, token.slice(0, i) + c + token.slice(i + 1)]);
    }
    const [payload, mac] = token.split('.');
    altered.push(
      ['= appended', `${token}=`],
      ['== appended', `${token}==`],
      ['a character appended', `${token}A`],
      ['a space appended', `${token}%20`],
      ['the last character removed', token.slice(0, -1)],
      ['= after the payload', `${payload}=.${mac}`],
      ['a third part', `${token}.${mac}`],
      ['no signature', `${payload}.`],
      ['empty', ''],
      ['t given twice', `${token}&t=${token}`],
    );
    for (const [label, t2] of altered) await expectRefused(`${base}?t=${t2}`, label);

    // The link itself still works after all that.
    await expectAdmitted(`${base}?t=${token}`);
  });

  it('refuses a link signed with the real key whose payload is not canonical base64url', async () => {
    const { roomId, base } = await newLink();
    const key = await linkSigningKey(t.pool);
    const sign = (payload: string) => `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
    const exp = Math.floor(Date.now() / 1000) + 3600;
    // A JSON length of 3n+1 bytes ends in a character with 4 unused bits.
    const claims = ['Ana', 'Anab', 'Anabe'].map((name) => JSON.stringify({ room_id: roomId, name, exp })).find((c) => Buffer.byteLength(c) % 3 === 1)!;
    const canonical = Buffer.from(claims).toString('base64url');
    expect(Buffer.from(canonical, 'base64url').toString()).toBe(claims);

    // Signed as issued: admitted.
    const page = await fetch(`${base}?t=${sign(canonical)}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/data-token="[^"]+"/);

    const lastAt = B64URL.indexOf(canonical.at(-1)!);
    const variants: Array<[string, string]> = [
      ['padded', `${canonical}==`],
      ['unused bits set', canonical.slice(0, -1) + B64URL[lastAt ^ 1]],
    ];
    for (const [label, payload] of variants) {
      // Each decodes to the same claims, and each carries a valid signature of its own text.
      expect(Buffer.from(payload, 'base64url').toString(), label).toBe(claims);
      await expectRefused(`${base}?t=${encodeURIComponent(sign(payload))}`, label);
    }
  });
});

describe('what a join link says works for its languages', () => {
  async function room(langs?: string[]): Promise<string> {
    const res = await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { title: 'Coverage', ...(langs ? { langs } : {}) } });
    expect(res.status).toBe(201);
    return (await res.json()).id;
  }
  async function link(roomId: string, body: Record<string, unknown>) {
    const res = await t.request('POST', `/v1/rooms/${roomId}/join-links`, { key: secret, body });
    expect(res.status).toBe(201);
    return res.json();
  }
  const apertium = (from: string, to: string, via: string | null = null) => ({ from, to, translated: true, engine: 'apertium', via });
  const none = (from: string, to: string) => ({ from, to, translated: false, engine: null, via: null });

  it('English and Spanish: the microphone, read aloud and both directions of translation, each with its engine', async () => {
    const id = await room(['en', 'es']);
    const l = await link(id, { name: 'Ana', speak: 'en', hear: 'es' });
    expect(l.room_id).toBe(id);
    expect(l.coverage).toEqual({
      speak: 'en', hear: 'es', room_langs: ['en', 'es'],
      microphone: { available: true, lang: 'en', engine: 'pocketsphinx' },
      read_aloud: { available: true, lang: 'es', engine: 'pico' },
      into_hear: [apertium('en', 'es')],
      from_speak: [apertium('en', 'es')],
    });
  });

  it('Japanese, which no engine covers: the link is made all the same, and says nothing is translated into it and no voice speaks it', async () => {
    const id = await room(['en', 'es']);
    const l = await link(id, { name: 'Aiko', speak: 'en', hear: 'ja' });
    expect(l.coverage).toEqual({
      speak: 'en', hear: 'ja', room_langs: ['en', 'es'],
      microphone: { available: true, lang: 'en', engine: 'pocketsphinx' },
      read_aloud: { available: false, lang: 'ja', engine: null },
      into_hear: [none('en', 'ja'), none('es', 'ja')],
      from_speak: [apertium('en', 'es')],
    });
    // The page opens with Japanese chosen.
    const page = await fetch(l.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<option value="ja" lang="ja" selected>[^<]*not translated<\/option>/);
  });

  it('English and Portuguese: translated through Spanish, both ways; no voice speaks Portuguese', async () => {
    const id = await room(['en', 'pt']);
    const l = await link(id, { speak: 'en', hear: 'pt' });
    expect(l.coverage).toMatchObject({
      read_aloud: { available: false, lang: 'pt', engine: null },
      into_hear: [apertium('en', 'pt', 'es')],
      from_speak: [apertium('en', 'pt', 'es')],
    });
    const pt = await link(id, { speak: 'pt', hear: 'pt' });
    expect(pt.coverage).toMatchObject({
      microphone: { available: false, lang: 'pt', engine: null },
      into_hear: [apertium('en', 'pt', 'es')],
      from_speak: [apertium('pt', 'en', 'es')],
    });
  });

  it('the languages the page will preselect when the link names none; null when neither the link nor the room names one', async () => {
    const id = await room(['es', 'en']);
    expect((await link(id, {})).coverage).toMatchObject({ speak: 'es', hear: 'en', room_langs: ['es', 'en'], read_aloud: { available: true, engine: 'pico' } });
    const bare = await room();
    expect((await link(bare, { name: 'Ana' })).coverage).toBeNull();
    // A room without languages is taken to speak the person's own two.
    expect((await link(bare, { hear: 'es' })).coverage).toMatchObject({
      speak: 'en', hear: 'es', room_langs: ['en', 'es'], into_hear: [apertium('en', 'es')], from_speak: [apertium('en', 'es')],
    });
  });
});
