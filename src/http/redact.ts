import type { LoggerOptions } from 'pino';

// Logs without secrets. Several public links carry their credential
// in the URL itself: a room participant's `participant=` and `secret=` on
// /r/<room>/stream, a join token `?t=` on /r/<room>, a booking's manage token
// (/bookings/manage/<token>/…), a consent token (/consent/<token>/…) and a
// revoke token (/consent/revoke/<token>). Logs are read by more people, kept
// longer and shipped further than the database, so a token written there is a
// token given away.
//
// One rule, applied by pino as the last step of every line (hooks.streamWrite)
// rather than in the request serializer alone: Fastify also writes URLs into
// message strings (`Route GET:/… not found`, `Reply was already sent … "<url>"`)
// and errors carry them in their message and stack, none of which a `req`
// serializer sees. What an operator needs stays: method, path shape, the
// query's parameter names, status, timings.

const REDACTED = '[redacted]';

/** The segment after these prefixes is a credential (`/consent/assets/…` are the page's own files). */
const PATH_TOKEN = /(\/bookings\/manage\/|\/consent\/revoke\/|\/consent\/(?!assets\/))[^/?#\s"'<>\\]+/gi;
/** A query string: each `name=value` keeps its name. Stops at a quote or backslash, so a JSON line stays JSON. */
const QUERY = /\?([^\s"'#<>\\]+)/g;
/** The password of a URL with credentials (`postgres://user:password@host`, `smtp://user:pass@host`). */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>\\]*:)[^\s/?#@"'<>\\]+@/gi;
/** API keys and webhook signing secrets, wherever they appear (an Authorization header logged by mistake). */
const PREFIXED_SECRET = /\b(sk_(?:test|live)_|whsec_)[A-Za-z0-9+/=]+/g;

function redactQuery(_match: string, query: string): string {
  const parts = query.split('&').map((p) => {
    const eq = p.indexOf('=');
    return eq < 0 ? p : `${p.slice(0, eq)}=${REDACTED}`;
  });
  return `?${parts.join('&')}`;
}

/**
 * The text with every secret this service puts in a URL (and its own key formats) replaced by
 * `[redacted]`: query values (`?participant=[redacted]&secret=[redacted]`), the token segment
 * of /bookings/manage/, /consent/ and /consent/revoke/, URL passwords, `sk_…` keys and `whsec_…`
 * secrets. Applying it twice changes nothing.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(PATH_TOKEN, `$1${REDACTED}`)
    .replace(QUERY, redactQuery)
    .replace(URL_PASSWORD, `$1${REDACTED}@`)
    .replace(PREFIXED_SECRET, `$1${REDACTED}`);
}

/** The pino options of every logger of the service (Fastify's and the platform's). */
export const LOG_REDACTION = {
  hooks: { streamWrite: redactSecrets },
} satisfies LoggerOptions;
