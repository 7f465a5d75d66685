import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

// The security headers of the API reference (/docs, its script, /docs/errors,
// /v1/openapi.json): an onSend hook of the context that registers them, so
// every answer of those routes has them, their errors (400, 429) included. A
// path no route matches (/docs/nothing) is the app's 404, a problem+json.
//
// The page (@scalar/fastify-api-reference) is one static HTML document: its
// script from this server (/docs/js/scalar.js), one inline script that starts
// the renderer with our fixed configuration, and one inline <style> (our
// customCss). Its policy:
// - script-src: 'self' and the SHA-256 of the page's inline scripts, never
//   'unsafe-inline' nor 'unsafe-eval'. The page is rendered from the
//   configuration in app.ts alone (nothing from the request), so the hashes
//   are taken once, from its first rendering; any other inline script is
//   refused. One inline script is ours (NO_EVAL_PROBE).
// - style-src 'unsafe-inline': the renderer injects its stylesheet and theme
//   as <style> elements at run time and sets style attributes, none of which
//   can carry a hash or nonce (and a nonce in style-src would turn
//   'unsafe-inline' off). CSS cannot run script; the risk left is styling.
// - connect-src: this server, and PUBLIC_BASE_URL (the document's `servers`,
//   where "Test Request" sends) when the page is served under another name.
// - img-src/media-src data: and blob:: images inlined in the document, and the
//   preview of a tested request's response body (an object URL).
// - object-src, base-uri and frame-ancestors 'none', as on every page.
// Anything else the page would load (fonts of the vendor, its AI and MCP
// services) is refused as well as left out of the configuration.

// The renderer's validation library (zod 4) probes once whether it may compile
// its parsers with Function(); the policy refuses it, and that refusal is a
// console error and a violation report on every load (the library then parses
// without compiling, as it does with this set). Set before the renderer's
// script, the page tries nothing the policy refuses.
const NO_EVAL_PROBE = '<script>globalThis.__zod_globalConfig = { jitless: true };</script>';

/** The page with NO_EVAL_PROBE before its first script (unchanged if it has none). */
export function withoutEvalProbe(html: string): string {
  const at = html.search(/<script\b/i);
  return at < 0 ? html : `${html.slice(0, at)}${NO_EVAL_PROBE}\n    ${html.slice(at)}`;
}

/** The SHA-256 sources of the inline <script> elements (those without src) of `html`. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\ssrc\s*=/i.test(m[1]!)) continue;
    hashes.push(`'sha256-${createHash('sha256').update(m[2]!, 'utf8').digest('base64')}'`);
  }
  return hashes;
}

export function docsPagePolicy(scriptHashes: string[], apiOrigin: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' ${scriptHashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${apiOrigin ? ` ${apiOrigin}` : ''}`,
    "worker-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What is not the page (its script, the JSON documents, errors): nothing to load, run or frame. */
export const DOCS_DATA_POLICY = "default-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The onSend hook of the docs routes; `publicBaseUrl` is read per answer (tests set it once listening). */
export function docsSecurityHeaders(publicBaseUrl: () => string) {
  let scriptHashes: string[] | null = null;
  return async (_req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/html') && typeof payload === 'string') {
      payload = withoutEvalProbe(payload);
      scriptHashes ??= inlineScriptHashes(payload as string);
      let origin = '';
      try { origin = new URL(publicBaseUrl()).origin; } catch { /* no valid base URL: this server only */ }
      reply.header('Content-Security-Policy', docsPagePolicy(scriptHashes, origin));
    } else {
      reply.header('Content-Security-Policy', DOCS_DATA_POLICY);
    }
    reply.header('X-Frame-Options', 'DENY');
    reply.header('X-Content-Type-Options', 'nosniff');
    return payload;
  };
}
