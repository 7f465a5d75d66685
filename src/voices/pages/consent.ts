import type { FastifyInstance } from 'fastify';
import { esc } from '../../http/pages.ts';
import { CONSENT } from '../../i18n/consent.ts';
import { languageName } from '../../i18n/lang.ts';
import { now, type Services } from '../../services.ts';
import { consentLocale, utcDateTime } from '../texts.ts';
import { linkOpen, MAX_RECORDING_MS, MIN_RECORDING_MS, voiceByConsentToken } from '../consent.ts';
import { maskEmail } from '../rows.ts';
import { browserLocale, closedPage, consentPage, consentRoutes, headers, hide, message } from './view.ts';
import { orgName } from '../../db/organizations.ts';

// GET /consent/:token: the consent page, in the voice's language: who asks for the person's voice
// and why, then three steps (the code, the recording, the wait), driven by assets/consent.js.
export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.get<{ Params: { token: string } }>('/consent/:token', hide, async (req, reply) => {
    const r = await voiceByConsentToken(s.pool, req.params.token);
    if (!r) {
      const l = browserLocale(req);
      return message(reply, l, 404, CONSENT[l.lang].notFound, 'not_found');
    }
    if (!linkOpen(r, now(s))) return closedPage(reply, r);
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
  }));
}
