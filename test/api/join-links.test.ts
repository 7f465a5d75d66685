import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { linkSigningKey } from '../../src/rooms/join-links.ts';

// A join link (POST /v1/rooms/{id}/join-links) opens the room page with the
// name and languages prefilled; the page admits it only as it was issued. Any
// other spelling of its token, even one that decodes to the same bytes, is
// refused with the page's 403 "invalid link" answer.

let t: TestApp;
let secret: string;
beforeAll(async () => {
  t = await startTestApp();
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
