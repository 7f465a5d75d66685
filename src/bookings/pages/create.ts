import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { withTx } from '../../db/pool.ts';
import { ApiError, invalid } from '../../errors.ts';
import { parseBody } from '../../http/pages.ts';
import { mailQuotas, takeQuotas, type Quota } from '../../http/quotas.ts';
import { Email, Lang, OneLine } from '../../http/schemas.ts';
import { now, type Services } from '../../services.ts';
import { iso } from '../rows.ts';
import { createBooking } from '../bookings.ts';
import { isValidZone } from '../slots.ts';
import { bookingErrors, friendlier, hide, linkOf, START } from './view.ts';

// POST /book/:page/:slug: books a slot (JSON from the booking page's script); 201 with the booking,
// its end, title, duration, both zones and its calendar file's address.

/** What createBooking accepts as guest.locale. */
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,4})?$/;

// The guest's limits are those of POST /v1/bookings (routes/create.ts
// CreateBookingBody.guest), flat; a name of blanks only is refused. tz is
// checked against the IANA zones below.
const BookBody = z.object({
  start: z.iso.datetime({ offset: true, ...START }),
  name: OneLine((s) => s.trim().min(1, 'required').max(80)),
  email: Email,
  speak: Lang,
  hear: Lang.optional(),
  tz: z.string().min(1).max(64),
  locale: z.string().max(8).regex(LOCALE, 'must be a locale such as en or pt-BR').default('en'),
});

export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { page: string; slug: string } }>('/book/:page/:slug', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
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
}
