import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ApiError, invalid, problem, type ErrorCode } from '../errors.ts';
import { makeErrorHandler } from './error-handler.ts';
import type { Services } from '../services.ts';

// What the public, server-rendered pages share (the booking pages,
// bookings/pages.ts; the consent pages, voices/consent-page.ts): escaping,
// the Content-Security-Policy and the other security headers, the layout
// (one stylesheet and one script of the pages' own, nothing from another
// origin), the stylesheet, and the JSON routes' errors: problem+json with
// two more members, `field` (the input at fault, or null) and `error` (the
// message), never 5xx for bad input.

/** Text for HTML (element content and quoted attribute values). */
export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The body validated by schema, or 400 invalid_request naming the first field at fault. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === undefined || body === null) throw invalid('body', 'required; send a JSON object');
  const r = schema.safeParse(body);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join('.') : 'body';
  throw invalid(field, issue?.message ?? 'invalid');
}

/** The field an error message names (`field: problem`), as invalid() writes it. */
function fieldOf(message: string, field: (f: string) => string): string | null {
  const m = /^([A-Za-z_][A-Za-z0-9_.]*): /.exec(message);
  return m ? field(m[1]!) : null;
}

type PageProblem = ReturnType<typeof problem> & { field: string | null; error: string };

function pageProblem(s: Services, req: FastifyRequest, code: ErrorCode, message: string, field: (f: string) => string): PageProblem {
  const p = problem(`${s.config.publicBaseUrl}/docs/errors`, code, message, req.id);
  return { ...p, field: code === 'invalid_request' ? fieldOf(message, field) : null, error: message };
}

/**
 * Errors of these routes: problem+json with `field` and `error`. What is not a
 * request's fault (the database down, a bug) goes to the app's own handler.
 */
export function pageErrorHandler(s: Services, opts: { field?: (f: string) => string } = {}) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    let code: ErrorCode | null = null;
    let message = '';
    if (err instanceof ApiError) {
      code = err.code;
      message = err.message;
      for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
    } else if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      code = err.statusCode === 413 ? 'payload_too_large' : err.statusCode === 415 ? 'unsupported_media_type' : 'invalid_request';
      message = err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError' ? 'body: malformed JSON'
        : err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'body: empty; send a JSON object'
          : code === 'unsupported_media_type' ? 'body: send it as application/json'
            : code === 'payload_too_large' ? 'body: larger than allowed' : `request: ${err.message}`;
    }
    if (code === null) return makeErrorHandler(`${s.config.publicBaseUrl}/docs/errors`)(err, req, reply);
    // A person's browser opening a page (not the page's script) is told in a page, not in JSON.
    if (code === 'rate_limited' && req.method === 'GET' && /text\/html/.test(String(req.headers.accept ?? ''))) {
      const html = layout('Too many requests', `<h1>Too many requests</h1><p data-state="rate_limited">${esc(message)}</p>` +
        '<p class="hint">This limit keeps the service safe for everyone. Reload the page after that.</p>', { css: '/book/assets/booking.css', js: '/book/assets/booking.js' });
      return securityHeaders(reply, { private: true }).code(429).send(html);
    }
    const body = pageProblem(s, req, code, message, opts.field ?? ((f) => f));
    return reply.code(body.status).type('application/problem+json').serializer(JSON.stringify).send(body);
  };
}

export function securityHeaders(reply: FastifyReply, opts: { private?: boolean; csp?: string } = {}): FastifyReply {
  reply.header('Content-Security-Policy', opts.csp ?? CSP);
  // frame-ancestors 'none' above, and the same for browsers that predate it.
  reply.header('X-Frame-Options', 'DENY');
  reply.header('X-Content-Type-Options', 'nosniff');
  // A manage page's address is its secret: never sent on to another page.
  reply.header('Referrer-Policy', 'no-referrer');
  if (opts.private) {
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Robots-Tag', 'noindex, nofollow');
  }
  return reply.type('text/html; charset=utf-8');
}

/** A page: its title, its main content, its one stylesheet and script (paths on this server), and its language (default en). */
export function layout(title: string, main: string, o: { css: string; js: string; mainAttrs?: string; lang?: string }): string {
  return `<!doctype html>\n<html lang="${esc(o.lang ?? 'en')}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(title)}</title>` +
    `<link rel="stylesheet" href="${o.css}">` +
    `<script src="${o.js}" defer></script>` +
    `</head><body><main id="app"${o.mainAttrs ?? ''}>${main}</main></body></html>`;
}

/** A script or stylesheet of the pages. */
export function sendAsset(reply: FastifyReply, type: 'text/javascript' | 'text/css', body: string): FastifyReply {
  return reply.type(`${type}; charset=utf-8`).header('Cache-Control', 'public, max-age=300').header('X-Content-Type-Options', 'nosniff').send(body);
}

// The pages' stylesheet: small-screen first (375 px wide and up), system fonts,
// visible keyboard focus, light and dark.
export const PAGE_STYLE = `:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fff; --muted: #555; --accent: #0b57d0; --accent-fg: #fff; --border: #8e918f; --danger: #b3261e; --ok: #146c2e; --soft: #eef3fd; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #121212; --muted: #b0b0b0; --accent: #8ab4f8; --accent-fg: #0b1a33; --border: #777; --danger: #f2b8b5; --ok: #6dd58c; --soft: #1d2635; } }
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 46rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: .5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 1.25rem 0 .5rem; }
p { margin: .5rem 0; }
a { color: var(--accent); overflow-wrap: anywhere; }
.meta, .hint { color: var(--muted); }
.meta span { white-space: nowrap; }
fieldset { border: 1px solid var(--border); border-radius: .5rem; margin: 0 0 1rem; padding: .5rem .75rem .75rem; min-width: 0; }
legend { font-weight: 600; padding: 0 .25rem; }
label { display: block; font-weight: 600; margin: .25rem 0; }
input, select, button { font: inherit; }
input, select { display: block; width: 100%; max-width: 100%; min-height: 44px; padding: .5rem; border: 1px solid var(--border); border-radius: .375rem; background: var(--bg); color: var(--fg); }
input[aria-invalid="true"], select[aria-invalid="true"] { border-color: var(--danger); border-width: 2px; }
button { cursor: pointer; min-height: 44px; padding: .5rem 1rem; border: 1px solid var(--accent); border-radius: .375rem; background: var(--bg); color: var(--accent); }
button.primary { background: var(--accent); color: var(--accent-fg); }
button.danger { border-color: var(--danger); color: var(--danger); }
button.danger.primary { background: var(--danger); color: var(--bg); }
button:disabled { opacity: .5; cursor: not-allowed; }
button.slot { width: 100%; padding: .5rem .25rem; }
button.slot[aria-pressed="true"] { background: var(--accent); color: var(--accent-fg); font-weight: 600; }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
button.slot:focus-visible, button.primary:focus-visible { outline-color: var(--fg); }
.week { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; justify-content: space-between; margin: .75rem 0; }
#week-label { flex: 1 1 100%; order: -1; font-weight: 600; }
@media (min-width: 40rem) { #week-label { flex: 1 1 auto; order: 0; text-align: center; } }
.times { display: grid; grid-template-columns: repeat(auto-fill, minmax(5.5rem, 1fr)); gap: .5rem; }
.error, .field-error { color: var(--danger); }
.error:empty, .field-error:empty { display: none; }
.field-error { display: block; margin-top: .25rem; }
.notice { border-left: 4px solid var(--ok); background: var(--soft); padding: .5rem .75rem; }
.chosen { font-weight: 600; }
.done { border: 2px solid var(--ok); border-radius: .5rem; padding: .25rem 1rem .5rem; }
dl { display: grid; grid-template-columns: minmax(0, 1fr); margin: .5rem 0; }
dt { font-weight: 600; }
dd { margin: 0 0 .5rem; overflow-wrap: anywhere; }
@media (min-width: 40rem) { dl { grid-template-columns: max-content minmax(0, 1fr); column-gap: 1rem; } }
.actions { display: flex; flex-wrap: wrap; gap: .5rem; }
[hidden] { display: none !important; }
`;

