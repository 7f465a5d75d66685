import type { FastifyInstance } from 'fastify';
import { esc, securityHeaders } from '../../http/pages.ts';
import { BOOKING } from '../../i18n/booking.ts';
import { now, type Services } from '../../services.ts';
import { windowEnd } from '../links.ts';
import { iso } from '../rows.ts';
import { bookingErrors, bookingPage, browserLocale, eventPaths, hide, hostOf, languageOptions, linkOf, notFoundPage, pickerHtml } from './view.ts';

// GET /book/:page/:slug: the booking page of a link (an event type's `url`), in the browser's language.
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { page: string; slug: string } }>('/book/:page/:slug', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const { page, slug } = req.params;
    const l = browserLocale(req);
    const t = BOOKING[l.lang];
    const et = await linkOf(s, page, slug);
    if (!et) return notFoundPage(reply, l, t.linkNotFound);
    const head = `<h1>${esc(et.title)}</h1>` +
      `<p class="meta"><span>${esc(t.minutes(et.duration_min))}</span> · <span>${esc(t.host(await hostOf(s, et)))}</span></p>`;
    if (!et.active) {
      return securityHeaders(reply).send(bookingPage(l, et.title, `${head}<p class="notice" data-paused>${esc(t.paused)}</p>`));
    }
    const paths = eventPaths(et.page, et.slug);
    const attrs = ` data-mode="book" data-slots="${esc(paths.slots)}" data-post="${esc(paths.page)}" data-host-tz="${esc(et.tz)}" data-window-end="${iso(windowEnd(now(s)))}"`;
    const form =
      '<form id="book-form" class="book-form" hidden>' +
      `<h2 id="form-h">${esc(t.yourDetails)}</h2>` +
      '<p id="chosen" class="chosen" aria-live="polite"></p>' +
      `<fieldset><legend>${esc(t.aboutYou)}</legend>` +
      `<p class="field"><label for="name">${esc(t.yourName)}</label>` +
      '<input id="name" name="name" type="text" required maxlength="80" autocomplete="name" aria-describedby="name-error">' +
      '<span id="name-error" class="field-error"></span></p>' +
      `<p class="field"><label for="email">${esc(t.email)}</label>` +
      '<input id="email" name="email" type="email" required maxlength="254" autocomplete="email" aria-describedby="email-error">' +
      '<span id="email-error" class="field-error"></span></p>' +
      '</fieldset>' +
      `<fieldset><legend>${esc(t.languages)}</legend>` +
      `<p class="hint">${esc(t.languagesHint)}</p>` +
      `<p class="field"><label for="speak">${esc(t.speak)}</label><select id="speak" name="speak" aria-describedby="speak-error">${languageOptions(l.lang, l)}</select>` +
      '<span id="speak-error" class="field-error"></span></p>' +
      `<p class="field"><label for="hear">${esc(t.hear)}</label><select id="hear" name="hear" aria-describedby="hear-error">${languageOptions(l.lang, l)}</select>` +
      '<span id="hear-error" class="field-error"></span></p>' +
      '</fieldset>' +
      '<p id="form-error" class="error" role="alert"></p>' +
      `<p><button type="submit" id="book-submit" class="primary">${esc(t.book)}</button></p>` +
      '</form>';
    const done =
      '<section id="done" class="done" hidden tabindex="-1" aria-labelledby="done-h">' +
      `<h2 id="done-h">${esc(t.booked)}</h2>` +
      `<p>${esc(t.mailed)}</p>` +
      '<dl>' +
      `<dt>${esc(t.yourTime)}</dt><dd id="done-guest"></dd>` +
      `<dt>${esc(t.hostTime)}</dt><dd id="done-host"></dd>` +
      `<dt>${esc(t.meetingLink)}</dt><dd><a id="done-room" href="#"></a></dd>` +
      '</dl>' +
      `<p><a id="done-ics" href="#" download="invite.ics">${esc(t.ics)}</a></p>` +
      `<p><a id="done-manage" href="#">${esc(t.manageLink)}</a></p>` +
      '</section>';
    return securityHeaders(reply).send(bookingPage(l, et.title, `${head}<div id="booking">${pickerHtml(et.tz, t)}${form}</div>${done}`, attrs));
  });
}
