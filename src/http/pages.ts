import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { invalid, problem, type ErrorCode } from '../errors.ts';
import { assetUrl, type AssetName } from './assets.ts';
import { mapError } from './error-handler.ts';

// What the public, server-rendered pages share (the booking, manage, consent
// and room pages, each operation a file under src/<capability>/pages/, all
// listed in src/pages.ts): escaping, the Content-Security-Policy and the other
// security headers, the preamble every page starts with (its scripts and
// stylesheets are files of ours, http/assets.ts; nothing from another
// origin), the languages the forms offer, and the errors: the API's mapping
// (http/error-handler.ts mapError), answered to the pages' scripts as
// problem+json with two more members, `field` (the input at fault, or null)
// and `error` (the message), and to a browser opening a page as a page.

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

/** The heading of the page a browser gets for an error. */
function errorHeading(code: ErrorCode, status: number): string {
  if (code === 'rate_limited') return 'Too many requests';
  if (code === 'not_found') return 'Not found';
  if (status === 503) return 'Temporarily unavailable';
  return status >= 500 ? 'Something went wrong' : 'This request cannot be answered';
}

/**
 * The pages' errors. `field` renames the field a message names for the
 * page's form (a booking's `guest.email` is the form's `email`); `localize`
 * says the message again in the request's language.
 */
export function pageErrorHandler(errorsUrl: string, opts: { field?: (f: string) => string; localize?: (err: FastifyError, e: { code: ErrorCode; message: string }, req: FastifyRequest) => string } = {}) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const mapped = mapError(err, req);
    const { code, headers } = mapped;
    const message = opts.localize ? opts.localize(err, mapped, req) : mapped.message;
    for (const [k, v] of Object.entries(headers)) reply.header(k, v);
    const p = problem(errorsUrl, code, message, req.id);
    // A person's browser opening a page (not the page's script) is told in a page, not in JSON.
    if (req.method === 'GET' && /text\/html/.test(String(req.headers.accept ?? ''))) {
      const heading = errorHeading(code, p.status);
      const hint = code === 'rate_limited' ? '<p class="hint">This limit keeps the service safe for everyone. Reload the page after that.</p>' : '';
      const html = layout(heading, `<h1>${esc(heading)}</h1><p data-state="${code}">${esc(message)}</p>${hint}`, { styles: [] });
      return securityHeaders(reply, { private: true }).code(p.status).send(html);
    }
    const body = { ...p, field: code === 'invalid_request' ? fieldOf(message, opts.field ?? ((f) => f)) : null, error: message };
    return reply.code(p.status).type('application/problem+json').serializer(JSON.stringify).send(body);
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

/**
 * Every page's preamble and frame: doctype, <html lang> (default en), the
 * head (charset, viewport, title, icon, the shared stylesheet then the
 * page's own, its scripts, deferred), and its main content.
 */
export function layout(title: string, main: string, o: { styles: AssetName[]; scripts?: AssetName[]; mainAttrs?: string; lang?: string }): string {
  return `<!doctype html>\n<html lang="${esc(o.lang ?? 'en')}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${esc(title)}</title>` +
    '<link rel="icon" href="/favicon.ico">' +
    (['page.css', ...o.styles] as AssetName[]).map((s) => `<link rel="stylesheet" href="${assetUrl(s)}">`).join('') +
    (o.scripts ?? []).map((s) => `<script src="${assetUrl(s)}" defer></script>`).join('') +
    `</head><body><main id="app"${o.mainAttrs ?? ''}>${main}</main></body></html>`;
}

/** Languages offered in the forms' selects (any language code is accepted by the API): code, English name, own name. */
export const PAGE_LANGUAGES: ReadonlyArray<readonly [code: string, english: string, native: string]> = [
  ['en', 'English', 'English'],
  ['pt', 'Portuguese', 'Português'],
  ['es', 'Spanish', 'Español'],
  ['fr', 'French', 'Français'],
  ['de', 'German', 'Deutsch'],
  ['it', 'Italian', 'Italiano'],
  ['nl', 'Dutch', 'Nederlands'],
  ['ja', 'Japanese', '日本語'],
  ['zh', 'Chinese', '中文'],
  ['ko', 'Korean', '한국어'],
  ['ar', 'Arabic', 'العربية'],
  ['hi', 'Hindi', 'हिन्दी'],
  ['ru', 'Russian', 'Русский'],
  ['uk', 'Ukrainian', 'Українська'],
  ['pl', 'Polish', 'Polski'],
  ['tr', 'Turkish', 'Türkçe'],
  ['sv', 'Swedish', 'Svenska'],
  ['el', 'Greek', 'Ελληνικά'],
  ['he', 'Hebrew', 'עברית'],
  ['id', 'Indonesian', 'Bahasa Indonesia'],
  ['vi', 'Vietnamese', 'Tiếng Việt'],
  ['th', 'Thai', 'ไทย'],
];
