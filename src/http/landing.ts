import type { FastifyInstance, FastifyRequest } from 'fastify';
import { LANDING } from '../i18n/landing.ts';
import { acceptedLocale, ENGLISH } from '../i18n/lang.ts';
import type { Services } from '../services.ts';
import { esc, layout, securityHeaders } from './pages.ts';

// GET /, the service's own address, which is where a newcomer goes first
// (rather than a 404). A browser gets a page naming the service and
// linking the API reference, the OpenAPI document and the health check, in
// its language (i18n/landing.ts), with the pages' headers and policy
// (http/pages.ts securityHeaders). Anything else (curl, an SDK, a monitor)
// gets the same links as a small JSON index: a first `curl` of the address
// learns where to go, as a browser does, which a 404 would not tell it; the
// API itself is under /v1, so no client depends on this answer. Hidden from
// /v1/openapi.json, as the pages are.

/** Where the page and the index send people, relative to the service's address. */
export const LANDING_LINKS = { docs: '/docs', openapi: '/v1/openapi.json', health: '/healthz' } as const;

/** A person's browser opening a page asks for HTML (as the pages' errors tell it, http/pages.ts). */
function wantsHtml(req: FastifyRequest): boolean {
  return /text\/html/.test(String(req.headers.accept ?? ''));
}

export default function landing(app: FastifyInstance, s: Pick<Services, 'config'>): void {
  app.get('/', { schema: { hide: true } }, async (req, reply) => {
    reply.header('Vary', 'Accept, Accept-Language');
    if (!wantsHtml(req)) {
      // Absolute, from PUBLIC_BASE_URL, as every `url` the API answers.
      const base = s.config.publicBaseUrl;
      return {
        name: 'Tolk API',
        docs_url: `${base}${LANDING_LINKS.docs}`,
        openapi_url: `${base}${LANDING_LINKS.openapi}`,
        health_url: `${base}${LANDING_LINKS.health}`,
      };
    }
    const l = acceptedLocale(req.headers['accept-language']) ?? ENGLISH;
    const t = LANDING[l.lang];
    const item = ([link, what]: readonly [string, string], href: string) => `<li><a href="${href}">${esc(link)}</a> — ${esc(what)}</li>`;
    const main =
      '<h1>Tolk</h1>' +
      `<p>${esc(t.lead)}</p>` +
      `<h2>${esc(t.start)}</h2>` +
      `<ul>${item(t.docs, LANDING_LINKS.docs)}${item(t.openapi, LANDING_LINKS.openapi)}${item(t.health, LANDING_LINKS.health)}</ul>` +
      `<p class="hint">${esc(t.key)} <code>Authorization: Bearer sk_test_…</code></p>`;
    return securityHeaders(reply).send(layout('Tolk API', main, { styles: [], lang: l.tag }));
  });
}
