import type { FastifyReply, FastifyRequest } from 'fastify';
import { DateTime } from 'luxon';
import { orgName } from '../../db/organizations.ts';
import { ApiError, invalid } from '../../errors.ts';
import { esc, layout, PAGE_LANGUAGES, pageErrorHandler, securityHeaders } from '../../http/pages.ts';
import { mailQuotas, type Quota } from '../../http/quotas.ts';
import type { BookedMeeting, Services } from '../../services.ts';
import { publicEventType, type EventTypeRow } from '../links.ts';
import { BOOKING, type BookingTexts } from '../../i18n/booking.ts';
import { acceptedLocale, dateTimeRange, ENGLISH, type Locale } from '../../i18n/lang.ts';

// What the booking and manage pages share (no I/O but the lookups below):
// their layout, the slot picker's markup, the host's name, dates.
//
// The public, server-rendered booking pages (no API key), a file each here:
//
// - GET  /book/:page/:slug                 the booking page of a link (book.ts)
// - GET  /book/:page/:slug/slots           its free slots as JSON (Slots), dates in the host's zone (slots.ts)
// - POST /book/:page/:slug                 books a slot (JSON from the page's script); 201 Booking (create.ts)
// - GET  /bookings/manage/:token           the guest's page of a booking, its `manage_url` (manage.ts)
// - POST /bookings/manage/:token/cancel    cancels it (cancel.ts)
// - POST /bookings/manage/:token/reschedule  moves it to another free slot ({ start }) (reschedule.ts)
// - GET  /bookings/manage/:token/invite.ics  the meeting's current calendar file (invite.ts)
//
// Pages load nothing from another origin: the script (assets/booking.js) and
// the stylesheets are served here (http/assets.ts), under a strict
// Content-Security-Policy (no inline script or style), and use the system
// fonts. The script asks the browser for the guest's time zone and shows the
// slots grouped by day in it; the guest can pick another zone. Everything a
// person typed is escaped (esc) in HTML and set with textContent by the script.
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

export const hide = { schema: { hide: true } } as const;

/** The booking routes' errors: a booking's `guest.email` is the form's `email`. */
export const bookingErrors = (s: Services) => pageErrorHandler(`${s.config.publicBaseUrl}/docs/errors`, { field: (f) => f.replace(/^guest\./, '') });

/** A page or slug that can be in event_types (the CLI writes a-z, 0-9, -); anything else is simply not found. */
const PATH_PART = /^[A-Za-z0-9._~-]{1,100}$/;

export const START = { error: 'must be a date and time such as 2026-12-01T14:00:00Z' } as const;

/** The booking pages' layout: their stylesheet and script, their language, and the script's texts in it. */
export function bookingPage(l: Locale, title: string, main: string, mainAttrs = ''): string {
  const attrs = `${mainAttrs} data-date-locale="${esc(l.intl)}" data-msgs="${esc(JSON.stringify(BOOKING[l.lang].script))}"`;
  return layout(title, main, { styles: ['booking.css'], scripts: ['booking.js'], mainAttrs: attrs, lang: l.tag });
}

export function notFoundPage(reply: FastifyReply, l: Locale, [heading, text]: readonly [string, string]) {
  return securityHeaders(reply, { private: true }).code(404).send(bookingPage(l, heading, `<h1>${esc(heading)}</h1><p>${esc(text)}</p>`));
}

/** The browser's language (the booking page's). */
export function browserLocale(req: FastifyRequest): Locale {
  return acceptedLocale(req.headers['accept-language']) ?? ENGLISH;
}

/**
 * The host as a person reads it: its organization's name (`tolk org create
 * --name`), the name its mails invite in; the page's slug (demo-lkwrtz) is a
 * part of the link, not a name, and shows only when the name is blank.
 * There is no display name of a page or a person to prefer.
 */
export async function hostOf(s: Services, et: EventTypeRow): Promise<string> {
  const org = (await orgName(s.pool, et.org_id)).trim();
  return org || et.page;
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

export function languageOptions(selected: string, l: Locale): string {
  return PAGE_LANGUAGES.map(([code, english, native]) =>
    `<option value="${code}"${code === selected ? ' selected' : ''}>${esc(languageLabel(code, english, native, l))}</option>`).join('');
}

/** The slot picker both pages use; the script fills it (time zones, days, slots). */
export function pickerHtml(hostTz: string, t: BookingTexts): string {
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
export function whenText(start: Date, end: Date, tz: string, l: Locale = ENGLISH): string {
  if (l.lang !== 'en') return dateTimeRange(start, end, tz, l);
  const a = DateTime.fromJSDate(start, { zone: tz }).setLocale('en-GB');
  const b = DateTime.fromJSDate(end, { zone: tz }).setLocale('en-GB');
  return `${a.toFormat('cccc d LLLL yyyy, HH:mm')}–${b.toFormat(a.hasSame(b, 'day') ? 'HH:mm' : 'cccc d LLLL, HH:mm')}`;
}

export function eventPaths(page: string, slug: string) {
  const base = `/book/${encodeURIComponent(page)}/${encodeURIComponent(slug)}`;
  return { page: base, slots: `${base}/slots` };
}

export async function linkOf(s: Services, page: string, slug: string): Promise<EventTypeRow | null> {
  if (!PATH_PART.test(page) || !PATH_PART.test(slug)) return null;
  return publicEventType(s.pool, page, slug);
}

/** The guest's own join link (name and languages prefilled, as in the invitation mail), or the room's url once it is over. */
export function guestJoinLink(s: Services, b: { guest_name: string; guest_email: string; guest_speak: string; guest_hear: string | null }, m: BookedMeeting): Promise<string> {
  return s.reactions.bookedMeetings.guestLink(s, s.pool, m, { name: b.guest_name, speak: b.guest_speak, hear: b.guest_hear, email: b.guest_email });
}

/** The service's messages for a start that is not offered name the API's slots route; the page says it plainly. */
export function friendlier(err: unknown): never {
  if (err instanceof ApiError && err.code === 'invalid_request' && /^start: .* is not a free slot/.test(err.message)) {
    throw invalid('start', 'this time is not free; pick another time');
  }
  throw err;
}

/** A change through a manage link mails guest and host: the mail limits, and a few changes a day per booking. */
export const changeLimits = (s: Services, ip: string) => (b: { id: string; guest_email: string }): Quota[] => [
  ...mailQuotas(s.config.publicLimits, ip, b.guest_email),
  { bucket: `manage:${b.id}`, limit: s.config.publicLimits.changesPerBookingDay, windowSeconds: 86_400, what: 'changes to this booking today' },
];
