import type { FastifyInstance } from 'fastify';
import { BOOKING } from '../../i18n/booking.ts';
import type { Services } from '../../services.ts';
import { bookingByToken } from '../manage.ts';
import { bookingErrors, browserLocale, guestJoinLink, hide, notFoundPage } from './view.ts';

// GET /bookings/manage/:token/invite.ics: the meeting's calendar file as it is now: REQUEST with its
// current sequence, or CANCEL once canceled (same UID as the mails).
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { token: string } }>('/bookings/manage/:token/invite.ics', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const found = await bookingByToken(s, s.pool, req.params.token);
    if (!found) {
      const l = browserLocale(req);
      return notFoundPage(reply, l, [BOOKING[l.lang].bookingNotFound[0], BOOKING[l.lang].bookingNotFoundShort]);
    }
    const { booking: b, et, meeting: m } = found;
    const canceled = b.status === 'canceled' || m.status === 'canceled';
    const link = canceled ? m.url : await guestJoinLink(s, b, m);
    const ics = await s.reactions.bookedMeetings.calendar(s, s.pool, m, {
      method: canceled ? 'CANCEL' : 'REQUEST',
      link,
      start: m.startsAt ?? b.start_at,
      durationMin: m.durationMin ?? et.duration_min,
      tz: m.tz ?? et.tz,
      guest: { email: b.guest_email, name: b.guest_name },
    });
    return reply
      .type('text/calendar; charset=utf-8')
      .header('Content-Disposition', 'attachment; filename="invite.ics"')
      .header('Cache-Control', 'no-store')
      .header('X-Content-Type-Options', 'nosniff')
      .send(ics);
  });
}
