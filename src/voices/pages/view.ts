import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors.ts';
import { CSP, esc, layout, pageErrorHandler, securityHeaders } from '../../http/pages.ts';
import type { Services } from '../../services.ts';
import { CONSENT, type ConsentTexts } from '../../i18n/consent.ts';
import { acceptedLocale, ENGLISH, type Locale } from '../../i18n/lang.ts';
import { consentLocale, utcDateTime } from '../texts.ts';
import { MAX_RECORDING_BYTES } from '../consent.ts';
import type { VoiceRow } from '../rows.ts';

// What the consent pages share (no API key; the link is the voice's consent_url), a file each here:
//
// - GET  /consent/:token                the page: who asks for the person's voice and why, then three steps (consent.ts)
// - POST /consent/:token/code           1. a one-time code to the request's e-mail address (code.ts)
// - POST /consent/:token/verify         2. the code ({ code }) -> a secret for step 3 and the sentence to read (verify.ts)
// - POST /consent/:token/recording      3. the recording (the MediaRecorder's bytes, audio/webm, audio/ogg or
//                                          audio/mp4, header X-Consent-Secret); checked, then the voice is `processing` (recording.ts)
// - GET  /consent/:token/status         the voice's status (the page waits for `ready`) (status.ts)
// - GET  /consent/revoke/:token         the receipt mail's link: a button that withdraws the consent (revoke-page.ts)
// - POST /consent/revoke/:token         withdraws it (a plain form: works without the script) (revoke.ts)
//
// The page records in the browser (getUserMedia and MediaRecorder, its
// script assets/consent.js); there is no file input. The recording is
// probed on the server (probe.ts): at least 3 s, at most 2 min, and not
// silence, or the person is told why and records again. Everything loads
// from this server, under the pages' strict CSP (http/pages.ts) with blob:
// media for playing the recording back, and the microphone allowed to this
// origin only. JSON answers and errors are as on the booking pages
// (problem+json with `field` and `error`).
//
// Everything the person reads is in the voice's language (i18n/consent.ts:
// en, pt, es, de, fr; English for any other): the page, its script's texts
// (given to it in data-msgs), and the errors of its requests, which the
// script asks for in the page's language (Accept-Language); a request
// without one (a program's) is answered in English, as before.

export const hide = { schema: { hide: true } } as const;

const PAGE_CSP = `${CSP}; media-src 'self' blob:`;

export function consentPage(l: Locale, title: string, main: string, attrs = ''): string {
  return layout(title, main, { styles: ['consent.css'], scripts: ['consent.js'], mainAttrs: attrs, lang: l.tag });
}

export function headers(reply: FastifyReply): FastifyReply {
  // The page's address is a secret of the person's: not indexed, not cached, not sent on.
  return securityHeaders(reply, { private: true, csp: PAGE_CSP }).header('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()');
}

export function message(reply: FastifyReply, l: Locale, code: number, [heading, text]: readonly [string, string], state: string): FastifyReply {
  return headers(reply).code(code).send(consentPage(l, heading, `<h1>${esc(heading)}</h1><p data-state="${esc(state)}">${esc(text)}</p>`));
}

/** The language of a page that has no voice to go by (an unknown link): the browser's, else English. */
export function browserLocale(req: FastifyRequest): Locale {
  return acceptedLocale(req.headers['accept-language']) ?? ENGLISH;
}

/**
 * An error of the consent flow said in the person's language: the service's
 * English messages (voices.ts, the routes here) are recognized and said again,
 * with the field they name kept in front (`code: …`); anything else is said
 * in general words.
 */
export function localizedError(err: ApiError, t: ConsentTexts): ApiError {
  const m = /^([a-z_]+): ([\s\S]*)$/.exec(err.message);
  const field = m ? m[1]! : null;
  const text = m ? m[2]! : err.message;
  const en = CONSENT.en.errors;
  const e = t.errors;
  const same: Array<keyof typeof en> = ['codeDigits', 'wrongCodeLast', 'askFirst', 'codeExpired', 'confirmFirst', 'linkUsed', 'linkWithdrawn', 'linkExpired', 'linkClosed', 'notAudio', 'silence', 'notSaid', 'recordingType'];
  let out: string | null = null;
  for (const k of same) if (text === en[k]) out = e[k] as string;
  let x: RegExpExecArray | null;
  if (out !== null) return new ApiError(err.code, field ? `${field}: ${out}` : out, err.headers);
  if (text === 'confirm your e-mail address with a code first') out = e.confirmFirst;
  else if ((x = /^wrong code; (\d+) tr(?:y|ies) left$/.exec(text))) out = e.wrongCode(Number(x[1]));
  else if ((x = /^(\d+) codes were sent for this link already/.exec(text))) out = e.tooManyCodes(Number(x[1]));
  else if ((x = /^a code was sent moments ago; wait (\d+) s/.exec(text))) out = e.codeWait(Number(x[1]));
  else if ((x = /^(\d+) recordings were sent for this link already/.exec(text))) out = e.tooManyRecordings(Number(x[1]));
  else if ((x = /^([\d.]+) s long; record at least (\d+) s/.exec(text))) out = e.tooShort(`${x[1]} s`, Number(x[2]));
  else if ((x = /^([\d.]+) s long; at most (\d+) s/.exec(text))) out = e.tooLong(`${x[1]} s`, Number(x[2]));
  if (out !== null) return new ApiError(err.code, field ? `${field}: ${out}` : out, err.headers);
  // Said in general words, without a field.
  return new ApiError(err.code, err.code === 'rate_limited' ? e.tooMany : err.code === 'not_found' ? t.notFound[1] : e.other, err.headers);
}

/** The consent routes' errors, in the language the request asks for (the page's script sends the page's). */
const consentErrors = (s: Services) => pageErrorHandler(`${s.config.publicBaseUrl}/docs/errors`, {
  localize: (err, mapped, req) => {
    const l = acceptedLocale(req.headers['accept-language']);
    return err instanceof ApiError && l && l.lang !== 'en' ? localizedError(err, CONSENT[l.lang]).message : mapped.message;
  },
});

/**
 * The consent routes, in a context of their own: their errors in the
 * person's language, the recording's body as the browser recorded it, and a
 * plain form (the withdrawal) as a form.
 */
export function consentRoutes(app: FastifyInstance, s: Services, routes: (c: FastifyInstance) => void) {
  app.register(async (c) => {
    c.setErrorHandler(consentErrors(s) as (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void);
    c.addContentTypeParser(/^audio\//, { parseAs: 'buffer', bodyLimit: MAX_RECORDING_BYTES }, (_req, body, done) => done(null, body));
    c.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) => done(null, {}));
    routes(c);
  });
}

/** The page of a link that no longer takes a consent: why, plainly. */
export function closedPage(reply: FastifyReply, r: VoiceRow): FastifyReply {
  const l = consentLocale(r.language);
  const t = CONSENT[l.lang];
  if (r.status === 'awaiting_consent' || r.status === 'expired') return message(reply, l, 410, t.expired(utcDateTime(r.link_expires_at, l)), 'expired');
  if (r.status === 'revoked') return message(reply, l, 410, t.requestWithdrawn, 'revoked');
  return message(reply, l, 409, [t.usedHeading, r.status === 'failed' ? t.usedFailed : t.used], 'used');
}
