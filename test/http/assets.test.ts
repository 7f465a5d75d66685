import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The pages' scripts and stylesheets are files of their own, linked by their
// content's hash: a browser reopening a page keeps them for a year without
// asking again, and a changed file is a new address. Their plain names and
// the addresses they had before are revalidated (ETag, 304).

let t: TestApp;
let roomPage: string;
beforeAll(async () => {
  t = await startTestApp();
  const { secret } = await t.key({ rpm: 100_000 });
  const room = await (await t.request('POST', '/v1/rooms', { key: secret, headers: { 'idempotency-key': crypto.randomUUID() }, body: { title: 'Assets' } })).json();
  const link = await (await t.request('POST', `/v1/rooms/${room.id}/join-links`, { key: secret, body: { name: 'Ana', speak: 'pt', hear: 'en' } })).json();
  const res = await fetch(link.url);
  expect(res.status).toBe(200);
  roomPage = await res.text();
});
afterAll(async () => { await t?.close(); });

/** The /assets/ addresses a page links (scripts and stylesheets). */
function linked(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe('page assets', () => {
  it('the room page links its script and styles by hash, and carries no inline script or style', () => {
    const urls = linked(roomPage);
    expect(urls.some((u) => /^\/assets\/room\.[0-9a-f]{12}\.js$/.test(u))).toBe(true);
    expect(urls.some((u) => /^\/assets\/room\.[0-9a-f]{12}\.css$/.test(u))).toBe(true);
    expect(urls.some((u) => /^\/assets\/page\.[0-9a-f]{12}\.css$/.test(u))).toBe(true);
    // Every <script> has a src (data goes in data-* attributes or a JSON block, which is not run).
    for (const m of roomPage.matchAll(/<script\b([^>]*)>/g)) {
      expect(m[1]!.includes('src=') || m[1]!.includes('type="application/json"'), m[0]).toBe(true);
    }
    expect(roomPage).not.toMatch(/<style\b/);
    expect(roomPage).not.toMatch(/\sstyle="/);
  });

  it('a hashed address is kept for a year and is exactly the file in the source tree', async () => {
    const js = linked(roomPage).find((u) => /^\/assets\/room\.[0-9a-f]{12}\.js$/.test(u))!;
    const res = await fetch(`${t.url}${js}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await res.text()).toBe(readFileSync(new URL('../../src/rooms/assets/room.js', import.meta.url), 'utf8'));
    const css = linked(roomPage).find((u) => /^\/assets\/room\.[0-9a-f]{12}\.css$/.test(u))!;
    const c = await fetch(`${t.url}${css}`);
    expect(c.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await c.text()).toBe(readFileSync(new URL('../../src/rooms/assets/room.css', import.meta.url), 'utf8'));
  });

  it('the plain name, an older hash and the former address are revalidated: 304 for the ETag the browser holds', async () => {
    for (const path of ['/assets/room.js', '/assets/room.000000000000.js', '/r/assets/room.js']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('cache-control'), path).toBe('no-cache');
      const etag = res.headers.get('etag');
      expect(etag, path).toMatch(/^"[0-9a-f]{12}"$/);
      const again = await fetch(`${t.url}${path}`, { headers: { 'if-none-match': etag! } });
      expect(again.status, path).toBe(304);
      expect(await again.text(), path).toBe('');
    }
  });

  it('an unknown asset, or a known one under another folder, is a 404', async () => {
    for (const path of ['/assets/nothing.js', '/assets/room.0123456789ab.css.map', '/book/assets/room.js', '/r/assets/booking.js']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status, path).toBe(404);
    }
  });
});
