import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { orgName } from '../db/organizations.ts';
import { mailQuotas } from '../http/quotas.ts';
import { ApiError, invalid } from '../errors.ts';
import { CSP, esc, layout, PAGE_STYLE, pageErrorHandler, parseBody, securityHeaders, sendAsset } from '../http/pages.ts';
import { now, type Services } from '../services.ts';
import { AudioProbeError, probeAudio } from './probe.ts';
import { checkSaid } from './said.ts';
import { CONSENT, type ConsentTexts } from '../i18n/consent.ts';
import { acceptedLocale, ENGLISH, languageName, type Locale } from '../i18n/lang.ts';
import { consentLocale, utcDateTime } from './texts.ts';
import {
  admitRecording,
  consentWithRecording,
  linkOpen,
  MAX_RECORDING_BYTES,
  MAX_RECORDING_MS,
  MIN_RECORDING_MS,
  MIN_SOUND_MS,
  revokeByPerson,
  sendCode,
  verifyCode,
  voiceByConsentToken,
  voiceByRevokeToken,
} from './consent.ts';
import { maskEmail, type VoiceRow } from './rows.ts';

// The consent pages (no API key; the link is the voice's consent_url):
//
// - GET  /consent/:token                the page: who asks for the person's voice and why, then three steps
// - POST /consent/:token/code           1. a one-time code to the request's e-mail address
// - POST /consent/:token/verify         2. the code ({ code }) -> a secret for step 3 and the sentence to read
// - POST /consent/:token/recording      3. the recording (the MediaRecorder's bytes, audio/webm, audio/ogg or
//                                          audio/mp4, header X-Consent-Secret); checked, then the voice is `processing`
// - GET  /consent/:token/status         the voice's status (the page waits for `ready`)
// - GET  /consent/revoke/:token         the receipt mail's link: a button that withdraws the consent
// - POST /consent/revoke/:token         withdraws it (a plain form: works without the script)
// - GET  /consent/assets/consent.js|.css
//
// The page records in the browser (getUserMedia and MediaRecorder); there is
// no file input. The recording is probed on the server (probe.ts): at least
// 3 s, at most 2 min, and not silence, or the person is told why and records
// again. Everything loads from this server, under the pages' strict CSP
// (http/pages.ts) with blob: media for playing the recording back, and the
// microphone allowed to this origin only. JSON answers and errors are as on
// the booking pages (problem+json with `field` and `error`).
//
// Everything the person reads is in the voice's language (i18n/consent.ts:
// en, pt, es, de, fr; English for any other): the page, its script's texts
// (given to it in data-msgs), and the errors of its requests, which the
// script asks for in the page's language (Accept-Language); a request
// without one (a program's) is answered in English, as before.

const CODE = z.object({ code: z.string().trim().regex(/^\d{6}$/, 'enter the 6 digits of the code we e-mailed you') });
const RECORDING_TYPES = ['audio/webm', 'audio/ogg', 'audio/mp4'];
const PAGE_CSP = `${CSP}; media-src 'self' blob:`;

function consentPage(l: Locale, title: string, main: string, attrs = ''): string {
  return layout(title, main, { css: '/consent/assets/consent.css', js: '/consent/assets/consent.js', mainAttrs: attrs, lang: l.tag });
}

function headers(reply: FastifyReply): FastifyReply {
  // The page's address is a secret of the person's: not indexed, not cached, not sent on.
  return securityHeaders(reply, { private: true, csp: PAGE_CSP }).header('Permissions-Policy', 'microphone=(self), camera=(), geolocation=()');
}

function message(reply: FastifyReply, l: Locale, code: number, [heading, text]: readonly [string, string], state: string): FastifyReply {
  return headers(reply).code(code).send(consentPage(l, heading, `<h1>${esc(heading)}</h1><p data-state="${esc(state)}">${esc(text)}</p>`));
}

/** The language of a page that has no voice to go by (an unknown link): the browser's, else English. */
function browserLocale(req: FastifyRequest): Locale {
  return acceptedLocale(req.headers['accept-language']) ?? ENGLISH;
}

/**
 * An error of the consent flow said in the person's language: the service's
 * English messages (voices.ts, this file) are recognized and said again,
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

/** The page of a link that no longer takes a consent: why, plainly. */
function closedPage(reply: FastifyReply, r: VoiceRow): FastifyReply {
  const l = consentLocale(r.language);
  const t = CONSENT[l.lang];
  if (r.status === 'awaiting_consent' || r.status === 'expired') return message(reply, l, 410, t.expired(utcDateTime(r.link_expires_at, l)), 'expired');
  if (r.status === 'revoked') return message(reply, l, 410, t.requestWithdrawn, 'revoked');
  return message(reply, l, 409, [t.usedHeading, r.status === 'failed' ? t.usedFailed : t.used], 'used');
}

function secretOf(req: FastifyRequest): string {
  const v = req.headers['x-consent-secret'];
  const secret = Array.isArray(v) ? v[0] : v;
  if (!secret || !/^[A-Za-z0-9_-]{16,64}$/.test(secret)) throw new ApiError('unauthorized', 'code: confirm your e-mail address with a code first');
  return secret;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export default function register(app: FastifyInstance, s: Services) {
  app.register(async (pages) => {
    const answerError = pageErrorHandler(s);
    pages.setErrorHandler((err: FastifyError, req, reply) => {
      const l = acceptedLocale(req.headers['accept-language']);
      return answerError(err instanceof ApiError && l && l.lang !== 'en' ? localizedError(err, CONSENT[l.lang]) as unknown as FastifyError : err, req, reply);
    });
    // The recording arrives as the browser recorded it; a plain form (the withdrawal) as a form.
    pages.addContentTypeParser(/^audio\//, { parseAs: 'buffer', bodyLimit: MAX_RECORDING_BYTES }, (_req, body, done) => done(null, body));
    pages.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, _body, done) => done(null, {}));
    const hide = { schema: { hide: true } };

    pages.get('/consent/assets/consent.js', hide, async (_req, reply) => sendAsset(reply, 'text/javascript', SCRIPT));
    pages.get('/consent/assets/consent.css', hide, async (_req, reply) => sendAsset(reply, 'text/css', PAGE_STYLE + STYLE));

    pages.get<{ Params: { token: string } }>('/consent/:token', hide, async (req, reply) => {
      const r = await voiceByConsentToken(s.pool, req.params.token);
      if (!r) {
        const l = browserLocale(req);
        return message(reply, l, 404, CONSENT[l.lang].notFound, 'not_found');
      }
      const now_ = now(s);
      if (!linkOpen(r, now_)) return closedPage(reply, r);
      const l = consentLocale(r.language);
      const t = CONSENT[l.lang];
      const org = await orgName(s.pool, r.org_id);
      const base = `/consent/${encodeURIComponent(req.params.token)}`;
      const attrs = ` data-mode="consent" data-base="${esc(base)}" data-min-ms="${MIN_RECORDING_MS}" data-max-ms="${MAX_RECORDING_MS}"` +
        ` data-msgs="${esc(JSON.stringify(t.script))}"`;
      const main =
        `<h1>${esc(t.title)}</h1>` +
        `<p class="meta">${esc(t.meta(org, r.person_name))}</p>` +
        `<section aria-labelledby="ask-h"><h2 id="ask-h">${esc(t.askHeading)}</h2><dl>` +
        `<dt>${esc(t.whoAsks)}</dt><dd data-field="org">${esc(org)}</dd>` +
        `<dt>${esc(t.why)}</dt><dd data-field="purpose">${esc(r.purpose ? r.purpose : t.purposeNone)}</dd>` +
        `<dt>${esc(t.voiceName)}</dt><dd>${esc(r.name)}</dd>` +
        `<dt>${esc(t.language)}</dt><dd>${esc(languageName(r.language, l))}</dd>` +
        `<dt>${esc(t.linkUntil)}</dt><dd>${esc(utcDateTime(r.link_expires_at, l))}</dd>` +
        '</dl>' +
        `<p>${esc(t.voiceUse)}</p>` +
        `<p>${esc(t.nothingHappens)}</p>` +
        '</section>' +
        `<section id="step-email" aria-labelledby="email-h"><h2 id="email-h">${esc(t.step1)}</h2>` +
        `<p>${t.codeSentToHtml(esc(maskEmail(r.person_email)))}</p>` +
        `<p><button type="button" id="send-code" class="primary">${esc(t.sendCode)}</button></p>` +
        '<p id="code-status" role="status" aria-live="polite"></p>' +
        `<form id="code-form" novalidate hidden><p class="field"><label for="code">${esc(t.codeLabel)}</label>` +
        '<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="6" aria-describedby="code-error">' +
        '<span id="code-error" class="field-error" role="alert"></span></p>' +
        `<p class="actions"><button type="submit" class="primary">${esc(t.confirm)}</button><button type="button" id="resend">${esc(t.resend)}</button></p></form>` +
        '</section>' +
        `<section id="step-record" aria-labelledby="record-h" hidden><h2 id="record-h">${esc(t.step2)}</h2>` +
        '<blockquote id="sentence" class="sentence"></blockquote>' +
        `<p class="hint">${esc(t.recordHint)}</p>` +
        `<p class="actions"><button type="button" id="record" class="primary">${esc(t.record)}</button><button type="button" id="stop" disabled>${esc(t.stop)}</button>` +
        '<span id="elapsed" class="elapsed" aria-hidden="true"></span></p>' +
        '<p id="mic-status" role="status" aria-live="polite"></p>' +
        '<audio id="playback" controls hidden></audio>' +
        '<p class="field check"><input type="checkbox" id="agree"> ' +
        `<label for="agree">${esc(t.agree(org))}</label></p>` +
        `<p><button type="button" id="submit" class="primary" disabled>${esc(t.submit)}</button></p>` +
        '<p id="record-error" class="error" role="alert"></p>' +
        '</section>' +
        `<section id="step-done" aria-labelledby="done-h" hidden tabindex="-1"><h2 id="done-h">${esc(t.step3)}</h2>` +
        '<p id="done-status" role="status" aria-live="polite"></p></section>';
      return headers(reply).send(consentPage(l, t.title, main, attrs));
    });

    pages.post<{ Params: { token: string } }>('/consent/:token/code', hide, async (req, reply) => {
      return reply.code(200).send(await sendCode(s, req.params.token, (to) => mailQuotas(s.config.publicLimits, req.ip, to)));
    });

    pages.post<{ Params: { token: string } }>('/consent/:token/verify', hide, async (req) => {
      const body = parseBody(CODE, req.body);
      return verifyCode(s, req.params.token, body.code);
    });

    pages.post<{ Params: { token: string } }>('/consent/:token/recording', { ...hide, bodyLimit: MAX_RECORDING_BYTES }, async (req, reply) => {
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (!RECORDING_TYPES.includes(type) || !Buffer.isBuffer(req.body)) {
        throw new ApiError('unsupported_media_type', 'recording: send the audio as the browser recorded it (audio/webm, audio/ogg or audio/mp4)');
      }
      const secret = secretOf(req);
      await admitRecording(s, req.params.token, secret);
      const audio = req.body;
      let m;
      try {
        m = await probeAudio(audio);
      } catch (err) {
        if (err instanceof AudioProbeError) throw invalid('recording', 'this is not audio we can read; record again');
        throw err;
      }
      if (m.durationMs < MIN_RECORDING_MS) throw invalid('recording', `${seconds(m.durationMs)} long; record at least ${MIN_RECORDING_MS / 1000} s (the whole sentence)`);
      if (m.durationMs > MAX_RECORDING_MS + 1000) throw invalid('recording', `${seconds(m.durationMs)} long; at most ${MAX_RECORDING_MS / 1000} s`);
      if (m.soundMs < MIN_SOUND_MS) throw invalid('recording', 'we heard only silence; check that the right microphone is on and not muted, and record again');
      // Where a recognizer hears the sentence's language, the recording must say it (voices/said.ts).
      const v = await voiceByConsentToken(s.pool, req.params.token);
      const said = v ? await checkSaid(s, m.pcm, m.sampleRate, v.language) : { checked: false as const };
      if (said.checked && !said.ok) {
        throw invalid('recording', 'we could not hear the consent sentence in it; read the whole sentence aloud, clearly, and record again');
      }
      const r = await consentWithRecording(s, req.params.token, secret, { contentType: type, audio, durationMs: m.durationMs, soundMs: m.soundMs }, {
        ip: req.ip ?? null, userAgent: typeof req.headers['user-agent'] === 'string' ? req.headers['user-agent'] : null,
      });
      return reply.code(202).send({ status: r.status, duration_ms: m.durationMs });
    });

    pages.get<{ Params: { token: string } }>('/consent/:token/status', hide, async (req, reply) => {
      const r = await voiceByConsentToken(s.pool, req.params.token);
      if (!r) throw new ApiError('not_found', 'No consent request at this address');
      return reply.header('Cache-Control', 'no-store').send({ status: r.status, failure_code: r.failure_code });
    });

    const revokePage = async (req: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply, withdraw: boolean) => {
      const found = await voiceByRevokeToken(s.pool, req.params.token);
      if (!found) {
        const l = browserLocale(req);
        return message(reply, l, 404, CONSENT[l.lang].notFound, 'not_found');
      }
      const l = consentLocale(found.language);
      const t = CONSENT[l.lang];
      const org = await orgName(s.pool, found.org_id);
      const r = withdraw ? ((await revokeByPerson(s, req.params.token)) ?? found) : found;
      if (r.status === 'revoked') return message(reply, l, 200, [t.revokedHeading, t.revoked(r.name, org, !withdraw)], 'revoked');
      if (r.status === 'failed' || r.status === 'expired') return message(reply, l, 200, [t.nothingHeading, t.nothing(r.name)], r.status);
      const path = `/consent/revoke/${encodeURIComponent(req.params.token)}`;
      const main =
        `<h1>${esc(t.revokeTitle)}</h1>` +
        `<p>${esc(t.revokeAgreed(org, r.name))}</p>` +
        `<p>${esc(t.revokeWarning)}</p>` +
        `<form method="post" action="${esc(path)}"><button type="submit" class="danger primary" id="withdraw">${esc(t.revokeButton)}</button></form>`;
      return headers(reply).send(consentPage(l, t.revokeTitle, main));
    };
    pages.get<{ Params: { token: string } }>('/consent/revoke/:token', hide, (req, reply) => revokePage(req, reply, false));
    pages.post<{ Params: { token: string } }>('/consent/revoke/:token', hide, (req, reply) => revokePage(req, reply, true));
  });
}

// The consent page's own styles, after the pages' stylesheet.
const STYLE = `
.sentence { font-size: 1.25rem; line-height: 1.5; margin: .75rem 0; padding: .75rem 1rem; border-left: 4px solid var(--accent); background: var(--soft); }
.elapsed { align-self: center; font-variant-numeric: tabular-nums; color: var(--muted); }
.check { display: flex; gap: .5rem; align-items: flex-start; }
.check input { width: 1.5rem; min-height: 1.5rem; flex: none; margin-top: .2rem; }
.check label { font-weight: 400; margin: 0; }
audio { width: 100%; margin: .5rem 0; }
button.recording { background: var(--danger); border-color: var(--danger); color: var(--bg); }
`;

// The consent page's script (no dependencies): the code, the recording
// (MediaRecorder, in the first container the browser offers of WebM, Ogg
// and MP4), its upload, and the wait for the voice. The secret of step 2 is
// kept in sessionStorage, so a reload does not ask for a new code.
const SCRIPT = String.raw`(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || app.dataset.mode !== 'consent') return;
  var base = app.dataset.base;
  var minMs = Number(app.dataset.minMs), maxMs = Number(app.dataset.maxMs);
  var store = 'tolk-consent:' + base;
  // The page's texts in its language, and that language for the errors of its requests.
  var M = {};
  try { M = JSON.parse(app.dataset.msgs || '{}'); } catch (e) { M = {}; }
  var LANG = document.documentElement.lang || 'en';
  function say(key, values) {
    return String(M[key] || key).replace(/\{(\w+)\}/g, function (all, k) { return values && k in values ? String(values[k]) : all; });
  }
  function $(id) { return document.getElementById(id); }
  function json(res) {
    return res.text().then(function (t) {
      var body = null;
      try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
      return { ok: res.ok, status: res.status, body: body };
    });
  }
  function post(path, body) {
    return fetch(base + path, { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-language': LANG },
      body: JSON.stringify(body || {}) }).then(json);
  }
  function problem(r) { return (r.body && (r.body.error || r.body.message)) || say('problem', { status: r.status }); }
  function clean(m) { return String(m).replace(/^[a-z_]+: /, ''); }

  function sendCode() {
    $('code-status').textContent = say('sending');
    post('/code').then(function (r) {
      if (!r.ok) { $('code-status').textContent = clean(problem(r)); return; }
      $('code-status').textContent = say('sent', { to: r.body.sent_to, minutes: Math.round(r.body.expires_in / 60) });
      $('send-code').hidden = true;
      $('code-form').hidden = false;
      $('code').focus();
    }, function () { $('code-status').textContent = say('offline'); });
  }
  $('send-code').addEventListener('click', sendCode);
  $('resend').addEventListener('click', sendCode);

  $('code-form').addEventListener('submit', function (e) {
    e.preventDefault();
    var code = $('code').value.replace(/\s+/g, '');
    $('code-error').textContent = '';
    $('code').removeAttribute('aria-invalid');
    post('/verify', { code: code }).then(function (r) {
      if (!r.ok) { $('code').setAttribute('aria-invalid', 'true'); $('code-error').textContent = clean(problem(r)); $('code').focus(); return; }
      try { sessionStorage.setItem(store, JSON.stringify(r.body)); } catch (x) { /* private mode: kept in memory only */ }
      showRecord(r.body);
    }, function () { $('code-error').textContent = say('unreachable'); });
  });

  var verified = null;
  function showRecord(v) {
    verified = v;
    $('step-email').hidden = true;
    $('step-record').hidden = false;
    var s = $('sentence');
    s.textContent = v.sentence;
    s.setAttribute('lang', v.sentence_lang);
    $('record').focus();
  }

  var recorder = null, chunks = [], blob = null, started = 0, tick = null, stream = null;
  function pickType() {
    var types = ['audio/webm;codecs=opus', 'audio/webm', 'audio/ogg;codecs=opus', 'audio/mp4'];
    if (typeof MediaRecorder === 'undefined') return null;
    for (var i = 0; i < types.length; i++) if (MediaRecorder.isTypeSupported(types[i])) return types[i];
    return '';
  }
  function stopTracks() { if (stream) stream.getTracks().forEach(function (t) { t.stop(); }); stream = null; }
  function updateSubmit() { $('submit').disabled = !(blob && $('agree').checked); }
  $('agree').addEventListener('change', updateSubmit);

  $('record').addEventListener('click', function () {
    var type = pickType();
    $('record-error').textContent = '';
    if (type === null || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      $('record-error').textContent = say('noRecorder');
      return;
    }
    $('mic-status').textContent = say('askingMic');
    navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: true, noiseSuppression: false } }).then(function (s) {
      stream = s;
      chunks = [];
      blob = null;
      updateSubmit();
      $('playback').hidden = true;
      recorder = type ? new MediaRecorder(s, { mimeType: type }) : new MediaRecorder(s);
      recorder.ondataavailable = function (e) { if (e.data && e.data.size) chunks.push(e.data); };
      recorder.onstop = function () {
        clearInterval(tick);
        stopTracks();
        var elapsed = Date.now() - started;
        blob = new Blob(chunks, { type: recorder.mimeType || type || 'audio/webm' });
        $('record').textContent = say('recordAgain');
        $('record').classList.remove('recording');
        $('record').disabled = false;
        $('stop').disabled = true;
        if (elapsed < minMs) {
          blob = null;
          $('mic-status').textContent = '';
          $('record-error').textContent = say('tooShort', { seconds: (elapsed / 1000).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }), min: minMs / 1000 });
        } else {
          $('mic-status').textContent = say('recorded', { seconds: (elapsed / 1000).toLocaleString(LANG, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
          $('playback').src = URL.createObjectURL(blob);
          $('playback').hidden = false;
        }
        updateSubmit();
      };
      recorder.start(250);
      started = Date.now();
      $('record').disabled = true;
      $('record').classList.add('recording');
      $('stop').disabled = false;
      $('stop').focus();
      $('mic-status').textContent = say('recording');
      tick = setInterval(function () {
        var ms = Date.now() - started;
        $('elapsed').textContent = say('seconds', { n: (ms / 1000).toFixed(0) });
        if (ms >= maxMs) recorder.stop();
      }, 250);
    }, function () {
      $('mic-status').textContent = '';
      $('record-error').textContent = say('micDenied');
    });
  });
  $('stop').addEventListener('click', function () { if (recorder && recorder.state === 'recording') recorder.stop(); });

  $('submit').addEventListener('click', function () {
    if (!blob || !verified) return;
    $('submit').disabled = true;
    $('record-error').textContent = '';
    $('mic-status').textContent = say('uploading');
    fetch(base + '/recording', { method: 'POST', credentials: 'same-origin',
      headers: { 'content-type': blob.type.split(';')[0] || 'audio/webm', 'x-consent-secret': verified.secret, accept: 'application/json', 'accept-language': LANG }, body: blob })
      .then(json).then(function (r) {
        if (!r.ok) {
          $('mic-status').textContent = '';
          $('record-error').textContent = clean(problem(r));
          if (r.status === 401) { try { sessionStorage.removeItem(store); } catch (x) {} $('step-record').hidden = true; $('step-email').hidden = false; $('send-code').hidden = false; $('code-form').hidden = true; }
          updateSubmit();
          return;
        }
        try { sessionStorage.removeItem(store); } catch (x) {}
        $('step-record').hidden = true;
        $('step-done').hidden = false;
        $('step-done').focus();
        $('done-status').textContent = say('thanks');
        wait(0);
      }, function () { $('mic-status').textContent = ''; $('record-error').textContent = say('unreachable'); updateSubmit(); });
  });

  function wait(n) {
    fetch(base + '/status', { headers: { accept: 'application/json', 'accept-language': LANG }, credentials: 'same-origin' }).then(json).then(function (r) {
      var st = r.body && r.body.status;
      if (st === 'ready') { $('done-status').textContent = say('ready'); return; }
      if (st === 'failed') { $('done-status').textContent = say('failed'); return; }
      if (st === 'revoked') { $('done-status').textContent = say('revoked'); return; }
      if (n < 60) setTimeout(function () { wait(n + 1); }, 1000);
      else $('done-status').textContent = say('stillPreparing');
    }, function () { if (n < 60) setTimeout(function () { wait(n + 1); }, 2000); });
  }

  try {
    var saved = JSON.parse(sessionStorage.getItem(store) || 'null');
    if (saved && saved.secret) showRecord(saved);
  } catch (x) { /* nothing saved */ }
})();
`;
