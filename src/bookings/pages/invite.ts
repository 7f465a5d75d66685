import type { FastifyInstance } from 'fastify';
import { BOOKING } from '../../i18n/booking.ts';
import { meetingCalendar } from '../../meetings/calendar.ts';
import { meetingUid, organizerOf } from '../../meetings/invitations.ts';
import { roomUrl } from '../../rooms/rooms.ts';
import type { Services } from '../../services.ts';
import { bookingByToken } from '../manage.ts';
import { bookingErrors, browserLocale, guestJoinLink, hide, notFoundPage } from './view.ts';

// GET /bookings/manage/:token/invite.ics: the meeting's calendar file as it is now: REQUEST with its
// current sequence, or CANCEL once canceled (same UID as the mails).
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { token: string } }>('/bookings/manage/:token/invite.ics', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
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
}
