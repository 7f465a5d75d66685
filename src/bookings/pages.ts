import type { FastifyInstance, FastifyReply } from 'fastify';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { withTx } from '../db/pool.ts';
import { orgName } from '../db/organizations.ts';
import { ApiError, invalid } from '../errors.ts';
import { esc, layout, PAGE_STYLE, pageErrorHandler, parseBody, securityHeaders, sendAsset } from '../http/pages.ts';
import { Email, Lang, OneLine } from '../http/schemas.ts';
import { meetingCalendar } from '../mail/calendar.ts';
import { meetingUid, organizerOf } from '../meetings/invitations.ts';
import type { MeetingRow } from '../meetings/meetings.ts';
import { joinUrl, linkSigningKey } from '../rooms/join-links.ts';
import { roomUrl } from '../rooms/rooms.ts';
import { now, type Services } from '../services.ts';
import {
  bookingByToken,
  cancelByToken,
  createBooking,
  bookingPageUrl,
  iso,
  manageView,
  publicEventType,
  rescheduleByToken,
  slotsOf,
  windowEnd,
  type EventTypeRow,
} from './bookings.ts';
import { isValidZone, slotsRange } from './slots.ts';
import { mailQuotas, takeQuotas, type Quota } from '../http/quotas.ts';
import { BOOKING, type BookingTexts } from '../i18n/booking.ts';
import { acceptedLocale, dateTimeRange, ENGLISH, pickLocale, type Locale } from '../i18n/lang.ts';

// The public, server-rendered booking pages (no API key):
//
// - GET  /book/:page/:slug                 the booking page of a link (an event type's `url`)
// - GET  /book/:page/:slug/slots           its free slots as JSON (Slots), dates in the host's zone
// - POST /book/:page/:slug                 books a slot (JSON from the page's script); 201 Booking
// - GET  /bookings/manage/:token           the guest's page of a booking (its `manage_url`)
// - POST /bookings/manage/:token/cancel    cancels it
// - POST /bookings/manage/:token/reschedule  moves it to another free slot ({ start })
// - GET  /bookings/manage/:token/invite.ics  the meeting's current calendar file
// - GET  /book/assets/booking.js|.css      the pages' one script and stylesheet
//
// Pages load nothing from another origin: the script and the stylesheet are
// served here, under a strict Content-Security-Policy (no inline script or
// style), and use the system fonts. The script asks the browser for the
// guest's time zone and shows the slots grouped by day in it; the guest can
// pick another zone. Everything a person typed is escaped (esc) in HTML and
// set with textContent by the script.
//
// The JSON routes answer errors as problem+json (errors.ts) with two more
// members: `field` (the input at fault, or null) and `error` (the message),
// and never 5xx for bad input. Routes are hidden from /v1/openapi.json.
//
// Language (i18n/booking.ts: en, pt, es, de, fr; English for others): the
// booking page speaks the browser's (Accept-Language), the manage page the
// guest's `locale`; <html lang> says which, the script's texts come with the
// page (data-msgs), and its dates are written in the page's language (the
// browser's own variant of it when it is the same language).

/** A page or slug that can be in event_types (the CLI writes a-z, 0-9, -); anything else is simply not found. */
const PATH_PART = /^[A-Za-z0-9._~-]{1,100}$/;
/** What createBooking accepts as guest.locale. */
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$/;

/** Languages offered in the form's selects (any language code is accepted by the API). */
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

// The body of POST /book/:page/:slug: the guest's limits are those of POST
// /v1/bookings (routes/create.ts CreateBookingBody.guest), flat; a name of
// blanks only is refused. tz is checked against the IANA zones below.
const BookBody = z.object({
  start: z.iso.datetime({ offset: true, error: 'must be a date and time such as 2026-12-01T14:00:00Z' }),
  name: OneLine((s) => s.trim().min(1, 'required').max(80)),
  email: Email,
  speak: Lang,
  hear: Lang.optional(),
  tz: z.string().min(1).max(64),
  locale: z.string().max(8).regex(LOCALE, 'must be a locale such as en or pt-BR').default('en'),
});

const RescheduleBody = z.object({
  start: z.iso.datetime({ offset: true, error: 'must be a date and time such as 2026-12-01T14:00:00Z' }),
});

/** The booking pages' layout: their stylesheet and script, their language, and the script's texts in it. */
function bookingPage(l: Locale, title: string, main: string, mainAttrs = ''): string {
  const attrs = `${mainAttrs} data-date-locale="${esc(l.intl)}" data-msgs="${esc(JSON.stringify(BOOKING[l.lang].script))}"`;
  return layout(title, main, { css: '/book/assets/booking.css', js: '/book/assets/booking.js', mainAttrs: attrs, lang: l.tag });
}

function notFoundPage(reply: FastifyReply, l: Locale, [heading, text]: readonly [string, string]) {
  return securityHeaders(reply, { private: true }).code(404).send(bookingPage(l, heading, `<h1>${esc(heading)}</h1><p>${esc(text)}</p>`));
}

/** The browser's language (the booking page's). */
function browserLocale(req: { headers: Record<string, string | string[] | undefined> }): Locale {
  return acceptedLocale(req.headers['accept-language']) ?? ENGLISH;
}

/** The organization's name, shown as the host beside the page. */
function hostLabel(page: string, org: string): string {
  return org !== page ? `${page} (${org})` : page;
}

/** A language's name in the page's language, with its own name beside it ("alemão (Deutsch)"). */
function languageLabel(code: string, english: string, native: string, l: Locale): string {
  let name = english;
  if (l.lang !== 'en') {
    try {
      name = new Intl.DisplayNames([l.intl], { type: 'language' }).of(code) ?? english;
    } catch {
      name = english;
    }
  }
  return name === native ? name : `${name} (${native})`;
}

function languageOptions(selected: string, l: Locale): string {
  return PAGE_LANGUAGES.map(([code, english, native]) =>
    `<option value="${code}"${code === selected ? ' selected' : ''}>${esc(languageLabel(code, english, native, l))}</option>`).join('');
}

/** The slot picker both pages use; the script fills it (time zones, days, slots). */
function pickerHtml(hostTz: string, t: BookingTexts): string {
  return '<section class="picker" aria-labelledby="pick-h">' +
    `<h2 id="pick-h">${esc(t.pickTime)}</h2>` +
    `<p class="field"><label for="tz">${esc(t.yourZone)}</label>` +
    `<select id="tz" name="tz"><option value="${esc(hostTz)}">${esc(hostTz)}</option></select></p>` +
    '<div class="week">' +
    `<button type="button" id="prev-week">${esc(t.prevWeek)}</button>` +
    '<span id="week-label"></span>' +
    `<button type="button" id="next-week">${esc(t.nextWeek)}</button>` +
    '</div>' +
    `<p id="slots-status" role="status" aria-live="polite">${esc(t.script.loading)}</p>` +
    '<p id="slots-error" class="error" role="alert"></p>' +
    '<div id="days"></div>' +
    '</section>';
}

/**
 * Wall-clock time of [start, end) in tz, in the page's language: in English
 * "Tuesday 10 March 2026, 09:00–09:30", else as that language writes it
 * ("terça-feira, 10 de março de 2026 às 09:00–09:30").
 */
function whenText(start: Date, end: Date, tz: string, l: Locale = ENGLISH): string {
  if (l.lang !== 'en') return dateTimeRange(start, end, tz, l);
  const a = DateTime.fromJSDate(start, { zone: tz }).setLocale('en-GB');
  const b = DateTime.fromJSDate(end, { zone: tz }).setLocale('en-GB');
  return `${a.toFormat('cccc d LLLL yyyy, HH:mm')}–${b.toFormat(a.hasSame(b, 'day') ? 'HH:mm' : 'cccc d LLLL, HH:mm')}`;
}

function eventPaths(page: string, slug: string) {
  const base = `/book/${encodeURIComponent(page)}/${encodeURIComponent(slug)}`;
  return { page: base, slots: `${base}/slots` };
}

async function linkOf(s: Services, page: string, slug: string): Promise<EventTypeRow | null> {
  if (!PATH_PART.test(page) || !PATH_PART.test(slug)) return null;
  return publicEventType(s.pool, page, slug);
}

/** The guest's own join link (name and languages prefilled, as in the invitation mail), or the room's url once it is over. */
async function guestJoinLink(s: Services, b: { room_id: string; guest_name: string; guest_speak: string; guest_hear: string | null }, m: MeetingRow): Promise<string> {
  const base = s.config.publicBaseUrl;
  if (m.status !== 'scheduled' && m.status !== 'live') return roomUrl(base, m.id);
  return joinUrl(base, await linkSigningKey(s.pool), m, { name: b.guest_name, speak: b.guest_speak, ...(b.guest_hear ? { hear: b.guest_hear } : {}) });
}


export default function register(app: FastifyInstance, s: Services) {
  /** A change through a manage link mails guest and host: the mail limits, and a few changes a day per booking. */
  const changeLimits = (ip: string) => (b: { id: string; guest_email: string }): Quota[] => [
    ...mailQuotas(s.config.publicLimits, ip, b.guest_email),
    { bucket: `manage:${b.id}`, limit: s.config.publicLimits.changesPerBookingDay, windowSeconds: 86_400, what: 'changes to this booking today' },
  ];
  app.register(async (pages) => {
    pages.setErrorHandler(pageErrorHandler(s, { field: (f) => f.replace(/^guest\./, '') }));
    const hide = { schema: { hide: true } };

    pages.get('/book/assets/booking.js', hide, async (_req, reply) =>
      sendAsset(reply, 'text/javascript', SCRIPT));
    pages.get('/book/assets/booking.css', hide, async (_req, reply) =>
      sendAsset(reply, 'text/css', PAGE_STYLE));

    // The booking page of a link.
    pages.get<{ Params: { page: string; slug: string } }>('/book/:page/:slug', hide, async (req, reply) => {
      const { page, slug } = req.params;
      const l = browserLocale(req);
      const t = BOOKING[l.lang];
      const et = await linkOf(s, page, slug);
      if (!et) return notFoundPage(reply, l, t.linkNotFound);
      const host = hostLabel(et.page, await orgName(s.pool, et.org_id));
      const head = `<h1>${esc(et.title)}</h1>` +
        `<p class="meta"><span>${esc(t.minutes(et.duration_min))}</span> · <span>${esc(t.host(host))}</span></p>`;
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

    // Free slots of a link, as GET /v1/event-types/{id}/slots answers them.
    pages.get<{ Params: { page: string; slug: string }; Querystring: { from?: unknown; to?: unknown } }>('/book/:page/:slug/slots', hide, async (req, reply) => {
      const et = await linkOf(s, req.params.page, req.params.slug);
      if (!et) throw new ApiError('not_found', 'No booking link at this address');
      const q: { from?: string; to?: string } = {};
      for (const k of ['from', 'to'] as const) {
        const v = req.query[k];
        if (v === undefined) continue;
        if (typeof v !== 'string') throw invalid(k, 'give it once, as a date YYYY-MM-DD');
        q[k] = v;
      }
      const range = slotsRange(q, et.tz, now(s));
      // Live mode: the public page shows (and books) the host's real calendar.
      const slots = await slotsOf(s, s.pool, et, true, range);
      reply.header('Cache-Control', 'no-store');
      return slots;
    });

    // Books a slot: the guest's own booking, for real.
    pages.post<{ Params: { page: string; slug: string } }>('/book/:page/:slug', hide, async (req, reply) => {
      const { page, slug } = req.params;
      const et = await linkOf(s, page, slug);
      if (!et) throw new ApiError('not_found', 'No booking link at this address');
      if (!et.active) throw new ApiError('conflict', 'Booking on this link is paused; please try again later');
      const body = parseBody(BookBody, req.body);
      if (!isValidZone(body.tz)) throw invalid('tz', `'${body.tz.slice(0, 64)}' is not a time zone such as Europe/Lisbon`);
      // Live mode (livemode true): a guest on the public page books the host's
      // real calendar, in the host's organization; the booker is the page itself.
      // The guest and the host are mailed: counted against the page's limits first, in the booking's
      // transaction (a booking refused or failing counts nothing).
      const l = s.config.publicLimits;
      const quotas: Quota[] = [
        ...mailQuotas(l, req.ip, body.email),
        { bucket: `book:link:${et.id}`, limit: l.bookingsPerLinkHour, windowSeconds: 3600, what: 'bookings on this link' },
      ];
      const booking = await withTx(s.pool, async (tx) => {
        await takeQuotas(tx, quotas, now(s).getTime());
        return createBooking(s, tx, { id: 'page', orgId: et.org_id, livemode: true }, {
          page: et.page,
          event: et.slug,
          start: body.start,
          guest: { name: body.name, email: body.email, speak: body.speak, ...(body.hear ? { hear: body.hear } : {}), tz: body.tz, locale: body.locale },
        });
      }).catch(friendlier);
      const start = new Date(booking.start);
      return reply.code(201).send({
        ...booking,
        end: iso(new Date(start.getTime() + et.duration_min * 60_000)),
        title: et.title,
        duration_min: et.duration_min,
        host_tz: et.tz,
        guest_tz: body.tz,
        ics_url: booking.manage_url ? `${booking.manage_url}/invite.ics` : null,
      });
    });

    // The guest's page of a booking, in the guest's language.
    pages.get<{ Params: { token: string }; Querystring: { done?: unknown } }>('/bookings/manage/:token', hide, async (req, reply) => {
      const found = await bookingByToken(s.pool, req.params.token);
      if (!found) {
        const l = browserLocale(req);
        return notFoundPage(reply, l, BOOKING[l.lang].bookingNotFound);
      }
      const { booking: b, et, meeting: m } = found;
      const l = pickLocale(b.guest_locale);
      const t = BOOKING[l.lang];
      const v = manageView(s.config.publicBaseUrl, b, et, m);
      const selfPath = `/bookings/manage/${encodeURIComponent(req.params.token)}`;
      const active = (b.status === 'confirmed' || b.status === 'rescheduled') && m.status === 'scheduled';
      const over = b.status === 'canceled' || b.status === 'completed' || m.status === 'canceled' || m.status === 'ended';
      const link = over ? null : await guestJoinLink(s, b, m);
      const host = hostLabel(et.page, await orgName(s.pool, et.org_id));
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
      let actions = '';
      if (active) {
        const paths = eventPaths(et.page, et.slug);
        actions =
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

    pages.post<{ Params: { token: string } }>('/bookings/manage/:token/cancel', hide, async (req, reply) => {
      const b = await cancelByToken(s, req.params.token, changeLimits(req.ip));
      reply.header('Cache-Control', 'no-store');
      return { id: b.id, status: b.status };
    });

    pages.post<{ Params: { token: string } }>('/bookings/manage/:token/reschedule', hide, async (req, reply) => {
      const body = parseBody(RescheduleBody, req.body);
      const b = await rescheduleByToken(s, req.params.token, body.start, changeLimits(req.ip)).catch(friendlier);
      reply.header('Cache-Control', 'no-store');
      return { id: b.id, status: b.status, start: iso(b.start_at) };
    });

    // The meeting's calendar file as it is now: REQUEST with its current
    // sequence, or CANCEL once canceled (same UID as the mails).
    pages.get<{ Params: { token: string } }>('/bookings/manage/:token/invite.ics', hide, async (req, reply) => {
      const found = await bookingByToken(s.pool, req.params.token);
      if (!found) {
        const l = browserLocale(req);
        return notFoundPage(reply, l, [BOOKING[l.lang].bookingNotFound[0], BOOKING[l.lang].bookingNotFoundShort]);
      }
      const { booking: b, et, meeting: m } = found;
      const base = s.config.publicBaseUrl;
      const canceled = b.status === 'canceled' || m.status === 'canceled';
      const organizer = await organizerOf(s, s.pool, m.org_id);
      const link = canceled ? roomUrl(base, m.id) : await guestJoinLink(s, b, m);
      const ics = meetingCalendar({
        uid: meetingUid(m.id, base),
        sequence: m.sequence,
        method: canceled ? 'CANCEL' : 'REQUEST',
        title: m.title,
        description: `${m.title}\nJoin: ${link}`,
        url: link,
        start: m.starts_at ?? b.start_at,
        durationMin: m.duration_min ?? et.duration_min,
        tz: m.tz ?? et.tz,
        organizer,
        attendees: m.invitees.map((email) => (email.toLowerCase() === b.guest_email.toLowerCase() ? { email, name: b.guest_name } : { email })),
        created: m.created_at,
      });
      return reply
        .type('text/calendar; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="invite.ics"')
        .header('Cache-Control', 'no-store')
        .header('X-Content-Type-Options', 'nosniff')
        .send(ics);
    });
  });
}

/** The service's messages for a start that is not offered name the API's slots route; the page says it plainly. */
function friendlier(err: unknown): never {
  if (err instanceof ApiError && err.code === 'invalid_request' && /^start: .* is not a free slot/.test(err.message)) {
    throw invalid('start', 'this time is not free; pick another time');
  }
  throw err;
}

// The pages' script (one file, no dependencies): the slot picker in the
// guest's time zone, the booking form, and the manage page's buttons. Written
// without template literals: it lives in one here.
const SCRIPT = String.raw`(function () {
  'use strict';
  var app = document.getElementById('app');
  if (!app || !app.dataset.mode) return;
  var cfg = app.dataset;
  var LOCALE = (navigator.languages && navigator.languages[0]) || navigator.language || 'en';
  try { new Intl.DateTimeFormat(LOCALE); } catch (e) { LOCALE = 'en'; }
  // The page's texts, and its dates in its language: the browser's own variant of it, else the page's.
  var M = {};
  try { M = JSON.parse(cfg.msgs || '{}'); } catch (e) { M = {}; }
  function say(key, values) {
    return String(M[key] || key).replace(/\{(\w+)\}/g, function (all, k) { return values && k in values ? String(values[k]) : all; });
  }
  var pageLang = String(document.documentElement.lang || 'en').toLowerCase().split('-')[0];
  var DATES = String(LOCALE).toLowerCase().split('-')[0] === pageLang ? LOCALE : (cfg.dateLocale || pageLang);
  try { new Intl.DateTimeFormat(DATES); } catch (e) { DATES = 'en-GB'; }
  var DAY = 86400000;
  var fmts = {};

  function fmt(tz, opts) {
    var key = tz + '|' + JSON.stringify(opts);
    if (!fmts[key]) {
      var o = { timeZone: tz };
      for (var k in opts) o[k] = opts[k];
      fmts[key] = new Intl.DateTimeFormat(DATES, o);
    }
    return fmts[key];
  }
  function ymdIn(ms, tz) {
    var key = 'ymd|' + tz;
    if (!fmts[key]) fmts[key] = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', calendar: 'gregory', numberingSystem: 'latn' });
    var p = {};
    fmts[key].formatToParts(new Date(ms)).forEach(function (x) { p[x.type] = x.value; });
    return p.year + '-' + p.month + '-' + p.day;
  }
  function addDays(ymd, n) { return new Date(Date.parse(ymd + 'T00:00:00Z') + n * DAY).toISOString().slice(0, 10); }
  function dayLabel(ymd, opts) { return fmt('UTC', opts).format(new Date(Date.parse(ymd + 'T00:00:00Z'))); }
  function timeLabel(iso, tz) { return fmt(tz, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso)); }
  function fullLabel(iso, tz) {
    return fmt(tz, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' }).format(new Date(iso)) + ' (' + tz + ')';
  }
  function validZone(tz) { try { new Intl.DateTimeFormat('en', { timeZone: tz }); return true; } catch (e) { return false; } }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function $(id) { return document.getElementById(id); }
  function getJson(res) {
    return res.text().then(function (t) {
      var body = null;
      try { body = t ? JSON.parse(t) : null; } catch (e) { body = null; }
      return { ok: res.ok, status: res.status, body: body || {} };
    });
  }
  function post(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify(body || {})
    }).then(getJson);
  }
  var TAKEN = say('taken');
  function problemText(r) {
    if (r.body && r.body.code === 'slot_taken') return TAKEN;
    // A limit says what there were too many of and when to come back.
    if (r.status === 429 && r.body && r.body.code === 'rate_limited' && r.body.error) return r.body.error;
    if (r.status === 429 || r.status >= 500) return say('busy');
    return (r.body && (r.body.error || r.body.message)) || say('problem', { status: r.status });
  }

  // The slot picker: time zone select, week navigation, days of slot buttons.
  function Picker(opts) {
    var tzSel = $('tz'), prev = $('prev-week'), next = $('next-week'), label = $('week-label');
    var status = $('slots-status'), error = $('slots-error'), days = $('days');
    var browserTz = 'UTC';
    try { browserTz = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'; } catch (e) { browserTz = 'UTC'; }
    if (!validZone(browserTz)) browserTz = 'UTC';
    var zones = [];
    try { zones = Intl.supportedValuesOf('timeZone').slice(); } catch (e) { zones = []; }
    [browserTz, cfg.hostTz, 'UTC'].forEach(function (z) { if (z && zones.indexOf(z) < 0) zones.push(z); });
    zones.sort();
    tzSel.textContent = '';
    zones.forEach(function (z) {
      var o = el('option', { value: z }, z.replace(/_/g, ' '));
      if (z === browserTz) o.selected = true;
      tzSel.appendChild(o);
    });
    var tz = browserTz, week = 0, seq = 0, selected = null, shown = [];

    function load() {
      var start = addDays(ymdIn(Date.now(), tz), week * 7), end = addDays(start, 6);
      // Dates of the host around the guest's week: a guest's date is within two days of the host's.
      var url = cfg.slots + '?from=' + addDays(start, -2) + '&to=' + addDays(end, 2);
      var mine = ++seq;
      prev.disabled = week === 0;
      // The booking window: no week after the one its last day is in.
      next.disabled = !!cfg.windowEnd && addDays(end, 1) > ymdIn(Date.parse(cfg.windowEnd) - 1, tz);
      label.textContent = dayLabel(start, { day: 'numeric', month: 'short' }) + ' – ' + dayLabel(end, { day: 'numeric', month: 'short', year: 'numeric' });
      status.textContent = say('loading');
      error.textContent = '';
      days.setAttribute('aria-busy', 'true');
      fetch(url, { headers: { accept: 'application/json' }, credentials: 'same-origin' }).then(getJson).then(function (r) {
        if (mine !== seq) return;
        days.removeAttribute('aria-busy');
        if (!r.ok) { status.textContent = ''; error.textContent = say('loadError', { problem: problemText(r) }); return; }
        render(r.body.slots || [], start, end);
      }, function () {
        if (mine !== seq) return;
        days.removeAttribute('aria-busy');
        status.textContent = '';
        error.textContent = say('loadOffline');
      });
    }

    function render(slots, start, end) {
      var byDay = {};
      shown = [];
      slots.forEach(function (iso) {
        var d = ymdIn(Date.parse(iso), tz);
        if (d < start || d > end) return;
        (byDay[d] = byDay[d] || []).push(iso);
        shown.push(iso);
      });
      days.textContent = '';
      for (var d = start; d <= end; d = addDays(d, 1)) {
        if (!byDay[d]) continue;
        var fs = el('fieldset', { 'class': 'day', 'data-date': d });
        fs.appendChild(el('legend', {}, dayLabel(d, { weekday: 'long', day: 'numeric', month: 'long' })));
        var grid = el('div', { 'class': 'times' });
        byDay[d].forEach(function (iso) {
          var b = el('button', { type: 'button', 'class': 'slot', 'data-start': iso, 'aria-pressed': iso === selected ? 'true' : 'false' });
          b.appendChild(el('time', { datetime: iso }, timeLabel(iso, tz)));
          grid.appendChild(b);
        });
        fs.appendChild(grid);
        days.appendChild(fs);
      }
      status.textContent = shown.length
        ? say(shown.length === 1 ? 'freeOne' : 'freeMany', { n: shown.length, tz: tz.replace(/_/g, ' ') })
        : next.disabled ? say('noneLast') : say('noneNext');
    }

    days.addEventListener('click', function (e) {
      var b = e.target.closest ? e.target.closest('button.slot') : null;
      if (!b) return;
      selected = b.getAttribute('data-start');
      Array.prototype.forEach.call(days.querySelectorAll('button.slot'), function (x) {
        x.setAttribute('aria-pressed', x === b ? 'true' : 'false');
      });
      opts.onPick(selected);
    });
    prev.addEventListener('click', function () { if (week > 0) { week--; load(); } });
    next.addEventListener('click', function () { week++; load(); });
    tzSel.addEventListener('change', function () {
      if (!validZone(tzSel.value)) return;
      tz = tzSel.value;
      load();
      if (opts.onZone) opts.onZone(tz);
    });
    load();
    return {
      tz: function () { return tz; },
      selected: function () { return selected; },
      clear: function () { selected = null; },
      refresh: load
    };
  }

  function bookPage() {
    var form = $('book-form'), chosen = $('chosen'), submit = $('book-submit'), formError = $('form-error');
    var fields = ['name', 'email', 'speak', 'hear'];
    var lang = String(LOCALE).toLowerCase().split('-')[0];
    ['speak', 'hear'].forEach(function (id) {
      var s = $(id);
      for (var i = 0; i < s.options.length; i++) if (s.options[i].value === lang) s.value = lang;
    });
    var locale = /^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$/.test(LOCALE) && LOCALE.length <= 8 ? LOCALE : (/^[a-z]{2,3}$/.test(lang) ? lang : 'en');
    function showChosen() {
      var iso = picker.selected();
      chosen.textContent = iso ? say('yourTime', { time: fullLabel(iso, picker.tz()) }) : say('noTime');
    }
    function clearErrors() {
      formError.textContent = '';
      fields.forEach(function (f) { $(f).removeAttribute('aria-invalid'); $(f + '-error').textContent = ''; });
    }
    var picker = Picker({
      onPick: function () { form.hidden = false; clearErrors(); showChosen(); $('name').focus(); },
      onZone: showChosen
    });
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      clearErrors();
      var start = picker.selected();
      if (!start) { formError.textContent = say('pickFirst'); return; }
      submit.disabled = true;
      submit.textContent = say('booking');
      post(cfg.post, {
        start: start, name: $('name').value, email: $('email').value, speak: $('speak').value, hear: $('hear').value,
        tz: picker.tz(), locale: locale
      }).then(function (r) {
        submit.disabled = false;
        submit.textContent = say('book');
        if (r.ok) return done(r.body);
        if (r.body.code === 'slot_taken' || (r.body.field === 'start')) {
          formError.textContent = r.body.code === 'slot_taken' ? TAKEN : say('noLongerFree');
          picker.clear();
          showChosen();
          picker.refresh();
          return;
        }
        var f = r.body.field;
        if (f && fields.indexOf(f) >= 0) {
          $(f).setAttribute('aria-invalid', 'true');
          $(f + '-error').textContent = String(r.body.error || r.body.message || say('invalid')).replace(/^[A-Za-z_.]+: /, '');
          formError.textContent = say('checkForm');
          $(f).focus();
          return;
        }
        formError.textContent = problemText(r);
      }, function () {
        submit.disabled = false;
        submit.textContent = say('book');
        formError.textContent = say('offline');
      });
    });
    function done(b) {
      $('booking').hidden = true;
      $('done-guest').textContent = fullLabel(b.start, picker.tz());
      $('done-host').textContent = fullLabel(b.start, b.host_tz || cfg.hostTz);
      var room = $('done-room');
      room.textContent = b.room_url || '';
      room.href = b.room_url || '#';
      $('done-manage').href = b.manage_url || '#';
      $('done-ics').href = b.ics_url || '#';
      var d = $('done');
      d.hidden = false;
      d.focus();
    }
  }

  function managePage() {
    var err = $('manage-error'), picker = null;
    var rs = $('reschedule'), confirm = $('cancel-confirm'), move = $('move-confirm'), moveChosen = $('move-chosen');
    function busy(on) {
      Array.prototype.forEach.call(app.querySelectorAll('button'), function (b) {
        if (on) {
          b.setAttribute('data-was', b.disabled ? '1' : '');
          b.disabled = true;
        } else {
          b.disabled = b.getAttribute('data-was') === '1';
        }
      });
    }
    function showMove() {
      var iso = picker && picker.selected();
      moveChosen.textContent = iso ? say('newTime', { time: fullLabel(iso, picker.tz()) }) : say('pickNew');
      move.disabled = !iso;
    }
    $('reschedule-open').addEventListener('click', function () {
      confirm.hidden = true;
      rs.hidden = false;
      if (!picker) picker = Picker({ onPick: function () { showMove(); move.focus(); }, onZone: showMove });
      $('tz').focus();
    });
    $('move-close').addEventListener('click', function () { rs.hidden = true; $('reschedule-open').focus(); });
    move.addEventListener('click', function () {
      var start = picker && picker.selected();
      if (!start) return;
      err.textContent = '';
      busy(true);
      post(cfg.reschedule, { start: start }).then(function (r) {
        if (r.ok) { location.replace(cfg.self + '?done=rescheduled'); return; }
        busy(false);
        if (r.body.code === 'slot_taken' || r.body.field === 'start') {
          err.textContent = r.body.code === 'slot_taken' ? TAKEN : say('noLongerFree');
          picker.clear();
          showMove();
          picker.refresh();
          return;
        }
        err.textContent = problemText(r);
      }, function () { busy(false); err.textContent = say('offline'); });
    });
    $('cancel-open').addEventListener('click', function () {
      rs.hidden = true;
      confirm.hidden = false;
      $('cancel-yes').focus();
    });
    $('cancel-no').addEventListener('click', function () { confirm.hidden = true; $('cancel-open').focus(); });
    $('cancel-yes').addEventListener('click', function () {
      err.textContent = '';
      busy(true);
      post(cfg.cancel, {}).then(function (r) {
        if (r.ok) { location.replace(cfg.self + '?done=canceled'); return; }
        busy(false);
        err.textContent = problemText(r);
      }, function () { busy(false); err.textContent = say('offline'); });
    });
  }

  if (cfg.mode === 'book') bookPage();
  else if (cfg.mode === 'manage') managePage();
})();
`;
