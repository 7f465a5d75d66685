import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.ts';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { ROOT, freePort, startServerProcess, type ServerProcess } from '../helpers/process.ts';

// /docs opened in a real headless Chromium with the network cut: every request
// to another origin than the server's is refused and recorded, so the page must
// render from what this service serves alone. The server runs as `npm start`
// runs it.
//
// The page is opened under two names of the same server, because the renderer
// behaves differently on each: on 127.0.0.1 it turns on more of its vendor's
// features by default (AI agent, MCP, developer tools); under a public-looking
// name (PUBLIC_BASE_URL, mapped to 127.0.0.1 inside Chromium only) it would send
// "Test Request" through a proxy if one were configured (it never proxies
// requests to a local address).

const ARTIFACTS = path.join(ROOT, 'test/artifacts');
const PUBLIC_HOST = 'docs.tolk.lan';

/** What the renderer's vendor adds to the page; none of it may show. */
const VENDOR = [
  /ask ai/i, /\bmcp\b/i, /^(vs code|cursor)$/i, /\bdeploy\b/i, /\bshare\b/i, /open in/i, /api client/i,
  /powered by/i, /scalar/i, /developer tools/i, /^configure$/i,
];

let db: TestDb;
let server: ServerProcess;
/** http://127.0.0.1:port */
let local: string;
/** http://docs.tolk.lan:port, the server's PUBLIC_BASE_URL */
let publicBase: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Every request a page tried to make outside the server's origins. */
const foreign: string[] = [];
/** Every request made to the server (origin, path and query). */
const served: string[] = [];
/** Uncaught errors in the pages. */
const pageErrors: string[] = [];
/** What the pages' Content-Security-Policy refused (securitypolicyviolation), and their console errors. */
const violations: string[] = [];
const consoleErrors: string[] = [];

/** Opens /docs at `base` and waits until the rooms operations are on screen. */
async function openDocs(base: string): Promise<Page> {
  const p = await context.newPage();
  p.on('pageerror', (err) => { pageErrors.push(String(err)); });
  p.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
  // WebSockets bypass routing; none is expected at all.
  p.on('websocket', (ws) => { foreign.push(ws.url()); });
  await p.goto(`${base}/docs`, { waitUntil: 'load' });
  await p.getByRole('heading', { name: 'Tolk API', exact: true }).waitFor();
  // The rooms operations, opened from the sidebar as a reader does.
  await p.getByRole('link', { name: 'Rooms', exact: true }).click();
  await p.getByRole('heading', { name: 'Create an instant room' }).waitFor();
  // Whatever the page fetches once on screen (fonts, lazy parts) has been asked for.
  await p.waitForLoadState('networkidle');
  return p;
}

/** Text, accessible name, title and target of every visible control of `p`. */
function visibleControls(p: Page): Promise<string[]> {
  return p.locator('a:visible, button:visible, [role=button]:visible, [role=link]:visible').evaluateAll((els) =>
    els.map((el) => [el.textContent, el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('href')]
      .filter(Boolean).join(' | ').replace(/\s+/g, ' ').trim()),
  );
}

beforeAll(async () => {
  const port = await freePort();
  local = `http://127.0.0.1:${port}`;
  publicBase = `http://${PUBLIC_HOST}:${port}`;
  db = await createTestDatabase();
  server = await startServerProcess(db.url, { PUBLIC_BASE_URL: publicBase }, port);
  browser = await launchChromium([`--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`]);
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, serviceWorkers: 'block' });
  // Every refusal of the page's policy, reported from inside each page before its own scripts run.
  await context.exposeBinding('reportCspViolation', (_source, v: string) => { violations.push(v); });
  await context.addInitScript(() => {
    const g = globalThis as any;
    g.document.addEventListener('securitypolicyviolation', (e: any) => {
      g.reportCspViolation(`${e.effectiveDirective} refused ${e.blockedURI || '(inline)'} ${e.sample ?? ''}`.trim());
    });
  });
  // On the whole context, so popups are held to the same rule.
  const ours = new Set([local, publicBase]);
  await context.route('**', async (route) => {
    const url = new URL(route.request().url());
    if (ours.has(url.origin)) {
      served.push(url.origin + url.pathname + url.search);
      await route.continue();
    } else {
      foreign.push(url.href);
      await route.abort('blockedbyclient');
    }
  });
  page = await openDocs(local);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png') });
});

afterAll(async () => {
  await browser?.close();
  await server?.kill();
  await db?.drop();
});

describe('/docs with the network cut', () => {
  it('asks nothing of any other origin', () => {
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('renders under its Content-Security-Policy without a single refusal or console error', () => {
    expect(violations).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });

  it('sends a Content-Security-Policy, X-Frame-Options and nosniff with the page, its script and its documents', async () => {
    for (const p of ['/docs', '/docs/', '/docs/js/scalar.js', '/docs/errors', '/v1/openapi.json']) {
      const res = await fetch(`${local}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get('x-frame-options'), p).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), p).toBe('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const d of ["frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'"]) expect(csp, p).toContain(d);
    }
    const csp = (await fetch(`${local}/docs`)).headers.get('content-security-policy')!;
    // Scripts: this server's, and the page's two inline scripts (the renderer's start and
    // http/docs.ts's NO_EVAL_PROBE) by their hashes, never any inline script.
    const scriptSrc = csp.split('; ').find((d) => d.startsWith('script-src '))!;
    expect(scriptSrc).toMatch(/^script-src 'self'( 'sha256-[A-Za-z0-9+/]{43}='){2}$/);
    expect(csp).not.toMatch(/unsafe-eval/);
    // An error answered by those routes (here a NUL in the query) has them too.
    const wrong = await fetch(`${local}/docs/errors?q=%00`);
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get('x-frame-options')).toBe('DENY');
    expect(wrong.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('loads its script and the OpenAPI document from this server', () => {
    expect(served).toContain(`${local}/docs/js/scalar.js`);
    expect(served).toContain(`${local}/v1/openapi.json`);
  });

  it('renders the API reference under our title', async () => {
    expect(await page.title()).toBe('Tolk API reference');
    expect(await page.getByRole('heading', { name: 'Tolk API', exact: true }).isVisible()).toBe(true);
    for (const name of ['List rooms, newest first', 'Create an instant room']) {
      expect(await page.getByRole('heading', { name }).isVisible(), name).toBe(true);
    }
  });

  it('has no stylesheet rule pointing at another origin (fonts it would fetch once used)', async () => {
    // Runs in the page (this project compiles without the DOM library, hence `any`).
    const urls = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const found: string[] = [];
      const walk = (rules: ArrayLike<any>) => {
        for (const rule of Array.from(rules)) {
          for (const m of (rule.cssText as string).matchAll(/url\(\s*["']?([^"')]+)/g)) found.push(new URL(m[1]!, doc.baseURI).href);
          if (rule.cssRules) walk(rule.cssRules);
        }
      };
      for (const sheet of Array.from<any>(doc.styleSheets)) walk(sheet.cssRules);
      return found;
    });
    expect(urls.filter((u) => !u.startsWith('data:') && new URL(u).origin !== local)).toEqual([]);
  });

  it('uses the system fonts', async () => {
    const heading = page.getByRole('heading', { name: 'Create an instant room' });
    expect(await heading.evaluate((el) => (globalThis as any).getComputedStyle(el).fontFamily as string)).toMatch(/^system-ui,/);
    const code = page.locator('code:visible').first();
    expect(await code.evaluate((el) => (globalThis as any).getComputedStyle(el).fontFamily as string)).toMatch(/^ui-monospace,/);
  });

  it("shows none of the vendor's buttons, links or tools", async () => {
    const controls = await visibleControls(page);
    expect(controls).toContain('Rooms | #tag/rooms');
    expect(controls.filter((c) => VENDOR.some((v) => v.test(c)))).toEqual([]);
    expect(await page.locator('.references-developer-tools').count()).toBe(0);
  });

  it('under its public name too: no vendor controls, and "Test Request" goes to the API itself, not a proxy', async () => {
    const p = await openDocs(publicBase);
    const controls = await visibleControls(p);
    expect(controls).toContain('Rooms | #tag/rooms');
    expect(controls.filter((c) => VENDOR.some((v) => v.test(c)))).toEqual([]);

    await p.locator('button', { hasText: 'Test Request' }).filter({ hasText: '(get /v1/rooms)' }).click();
    const client = p.getByRole('dialog');
    await client.waitFor();
    const send = client.locator('button[data-addressbar-action=send]:visible');
    const [request] = await Promise.all([p.waitForEvent('request'), send.click()]);
    expect(request.url()).toBe(`${publicBase}/v1/rooms?limit=20`);
    expect((await request.response())?.status()).toBe(401);
    await p.waitForLoadState('networkidle');
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(violations).toEqual([]);
  });
});
