import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { CSP } from '../../src/http/pages.ts';

// GET /, the service's address (issue 44: a newcomer's browser got a JSON
// 404): a browser gets a page naming the service and linking the API
// reference, the OpenAPI document and the health check, in its language and
// under the pages' headers; an API client gets the same links as JSON.

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});

afterAll(async () => {
  await t?.close();
});

/** The href and text of each link in the page's main content. */
function links(html: string): Array<{ href: string; text: string }> {
  const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(html)![1]!;
  return [...main.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((m) => ({ href: m[1]!, text: m[2]! }));
}

describe('GET / in a browser', () => {
  it('is a page naming the service, with the pages\' security headers', async () => {
    const res = await t.request('GET', '/', { headers: { accept: BROWSER, 'accept-language': 'en-US,en;q=0.9' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // One address, two answers: a cache keeps them apart.
    expect(res.headers.get('vary')).toMatch(/\bAccept\b/);
    const html = await res.text();
    expect(html).toMatch(/^<!doctype html>\n<html lang="en-US">/);
    expect(html).toContain('<title>Tolk API</title>');
    expect(html).toContain('<h1>Tolk</h1>');
    expect(html).not.toMatch(/<script|style=/);
    expect(links(html)).toEqual([
      { href: '/docs', text: 'API reference' },
      { href: '/v1/openapi.json', text: 'OpenAPI document' },
      { href: '/healthz', text: 'Health check' },
    ]);
  });

  it('links that work: the reference page, the OpenAPI document, the health check, and its stylesheet', async () => {
    const html = await (await t.request('GET', '/', { headers: { accept: BROWSER } })).text();
    const [docs, openapi, health] = links(html).map((l) => new URL(l.href, `${t.url}/`).href);
    // fetch follows the reference's redirect (/docs to /docs/) as a browser does.
    const docsRes = await fetch(docs!, { headers: { accept: BROWSER } });
    expect(docsRes.status).toBe(200);
    expect(docsRes.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await docsRes.text()).toContain('Tolk API reference');
    const doc = await (await fetch(openapi!)).json();
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: 'Tolk API' } });
    expect(await (await fetch(health!)).json()).toEqual({ status: 'ok' });
    const css = /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1]!;
    const cssRes = await fetch(new URL(css, `${t.url}/`));
    expect(cssRes.status).toBe(200);
    expect(cssRes.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('speaks the browser\'s language, as the other pages do; English when it cannot', async () => {
    const de = await (await t.request('GET', '/', { headers: { accept: BROWSER, 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' } })).text();
    expect(de).toContain('<html lang="de-DE">');
    expect(links(de).map((l) => l.text)).toEqual(['API-Referenz', 'OpenAPI-Dokument', 'Statusprüfung']);
    const ja = await (await t.request('GET', '/', { headers: { accept: BROWSER, 'accept-language': 'ja-JP,ja;q=0.9' } })).text();
    expect(ja).toContain('<html lang="en">');
    expect(links(ja).map((l) => l.text)).toEqual(['API reference', 'OpenAPI document', 'Health check']);
  });
});

describe('GET / from an API client', () => {
  it('is a JSON index of the same links, whatever else it accepts (curl sends */*)', async () => {
    for (const accept of ['application/json', '*/*', null]) {
      const res = await t.request('GET', '/', { headers: accept ? { accept } : {} });
      expect(res.status, String(accept)).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await res.json()).toEqual({
        name: 'Tolk API',
        docs_url: `${t.url}/docs`,
        openapi_url: `${t.url}/v1/openapi.json`,
        health_url: `${t.url}/healthz`,
      });
    }
  });

  it('gives addresses that answer', async () => {
    const index = await (await t.request('GET', '/', { headers: { accept: 'application/json' } })).json();
    expect((await fetch(index.docs_url)).status).toBe(200);
    expect(((await (await fetch(index.openapi_url)).json()) as { openapi: string }).openapi).toBe('3.1.0');
    expect((await fetch(index.health_url)).status).toBe(200);
  });

  it('takes only GET and HEAD there', async () => {
    const res = await t.request('POST', '/', { body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});
