import type { FastifyInstance } from 'fastify';
import { esc, securityHeaders } from '../../http/pages.ts';
import { BOOKING } from '../../i18n/booking.ts';
import { pickLocale } from '../../i18n/lang.ts';
import { now, type Services } from '../../services.ts';
import { bookingPageUrl, windowEnd } from '../links.ts';
import { iso } from '../rows.ts';
import { bookingByToken, manageView } from '../manage.ts';
import { isValidZone } from '../slots.ts';
import { bookingErrors, bookingPage, browserLocale, eventPaths, guestJoinLink, hide, hostOf, notFoundPage, pickerHtml, whenText } from './view.ts';

// GET /bookings/manage/:token: the guest's page of a booking (its `manage_url`), in the guest's
// language: when, with whom, the meeting's link, its calendar file, and while it is ahead, buttons
// to move it (the slot picker) or cancel it; once canceled, a way to book another time.
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { token: string }; Querystring: { done?: unknown } }>('/bookings/manage/:token', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const found = await bookingByToken(s, s.pool, req.params.token);
    if (!found) {
      const l = browserLocale(req);
      return notFoundPage(reply, l, BOOKING[l.lang].bookingNotFound);
    }
    const { booking: b, et, meeting: m } = found;
    const l = pickLocale(b.guest_locale);
    const t = BOOKING[l.lang];
    const v = manageView(b, et, m);
    const selfPath = `/bookings/manage/${encodeURIComponent(req.params.token)}`;
    const active = (b.status === 'confirmed' || b.status === 'rescheduled') && m.status === 'scheduled';
    const over = b.status === 'canceled' || b.status === 'completed' || m.status === 'canceled' || m.status === 'ended';
    const link = over ? null : await guestJoinLink(s, b, m);
    const host = await hostOf(s, et);
    const done = req.query.done === 'rescheduled' ? `<p class="notice" role="status">${esc(t.moved)}</p>`
      : req.query.done === 'canceled' ? `<p class="notice" role="status">${esc(t.canceledDone)}</p>` : '';
    const statusLine = b.status === 'canceled' ? t.line.canceled
      : b.status === 'completed' ? t.line.completed
        : m.status === 'live' ? t.line.live
          : m.status === 'ended' ? t.line.ended
            : m.status === 'canceled' ? t.line.meetingCanceled : '';
    const guestTz = isValidZone(b.guest_tz) ? b.guest_tz : 'UTC';
    const statusText = (t.status as Record<string, string>)[v.status] ?? v.status;
    const details =
      `<h1>${esc(v.title)}</h1>` + done +
      `<p class="status" data-status="${esc(v.status)}">${esc(t.statusLabel)} <strong>${esc(statusText)}</strong>${statusLine ? ` — ${esc(statusLine)}` : ''}</p>` +
      '<dl>' +
      `<dt>${esc(t.yourTimeIn(guestTz))}</dt><dd><time datetime="${esc(v.start)}">${esc(whenText(b.start_at, b.end_at, guestTz, l))}</time></dd>` +
      `<dt>${esc(t.hostTimeIn(et.tz))}</dt><dd>${esc(whenText(b.start_at, b.end_at, et.tz, l))}</dd>` +
      `<dt>${esc(t.duration)}</dt><dd>${esc(t.minutes(v.duration_min))}</dd>` +
      `<dt>${esc(t.hostLabel)}</dt><dd>${esc(host)}</dd>` +
      `<dt>${esc(t.guest)}</dt><dd>${esc(v.guest.name)}</dd>` +
      (link ? `<dt>${esc(t.meetingLink)}</dt><dd><a href="${esc(link)}" id="room-link">${esc(link)}</a></dd>` : '') +
      '</dl>' +
      `<p><a href="${esc(selfPath)}/invite.ics" download="invite.ics" id="ics-link">${esc(t.ics)}</a></p>`;
    if (active) {
      const paths = eventPaths(et.page, et.slug);
      const actions =
        '<section class="change" aria-labelledby="change-h">' +
        `<h2 id="change-h">${esc(t.change)}</h2>` +
        `<p class="actions"><button type="button" id="reschedule-open">${esc(t.reschedule)}</button>` +
        `<button type="button" id="cancel-open" class="danger">${esc(t.cancel)}</button></p>` +
        '<div id="cancel-confirm" class="confirm" hidden>' +
        `<p id="cancel-q">${esc(t.cancelQuestion)}</p>` +
        `<p class="actions"><button type="button" id="cancel-yes" class="danger primary">${esc(t.cancelYes)}</button>` +
        `<button type="button" id="cancel-no">${esc(t.cancelNo)}</button></p>` +
        '</div>' +
        '<div id="reschedule" hidden>' + pickerHtml(et.tz, t) +
        `<p id="move-chosen" class="chosen" aria-live="polite">${esc(t.script.pickNew)}</p>` +
        `<p class="actions"><button type="button" id="move-confirm" class="primary" disabled>${esc(t.moveTo)}</button>` +
        `<button type="button" id="move-close">${esc(t.close)}</button></p>` +
        '</div>' +
        '<p id="manage-error" class="error" role="alert"></p>' +
        '</section>';
      const attrs = ` data-mode="manage" data-slots="${esc(paths.slots)}" data-host-tz="${esc(et.tz)}" data-window-end="${iso(windowEnd(now(s)))}" data-self="${esc(selfPath)}"` +
        ` data-cancel="${esc(selfPath)}/cancel" data-reschedule="${esc(selfPath)}/reschedule"`;
      return securityHeaders(reply, { private: true }).send(bookingPage(l, v.title, details + actions, attrs));
    }
    // Canceled: the way to pick another time is on the page, not only in a mail.
    const again = b.status === 'canceled' || m.status === 'canceled'
      ? `<p><a class="button primary" id="book-again" href="${esc(bookingPageUrl(s.config.publicBaseUrl, et.page, et.slug))}">${esc(t.bookAnother)}</a></p>`
      : '';
    return securityHeaders(reply, { private: true }).send(bookingPage(l, v.title, details + again));
  });
}
