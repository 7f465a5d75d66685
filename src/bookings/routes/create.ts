import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, errorResponses, IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Booking } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { assertLanguagesAllowed } from '../../restrictions.ts';
import { createBooking } from '../bookings.ts';
import type { Services } from '../../services.ts';

const Answer = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);

export const CreateBookingBody = z.object({
  event_type_id: z.string().max(100).optional().describe('Your own booking link'),
  page: z.string().max(100).optional().describe("Another organization's booking page (with event)"),
  event: z.string().max(100).optional().describe('The event slug on that page'),
  start: z.iso.datetime({ offset: true }).describe('A free slot (GET /v1/event-types/{id}/slots), ISO 8601'),
  guest: z.object({
    name: z.string().min(1).max(80),
    email: Email,
    speak: Lang,
    hear: Lang.optional(),
    tz: z.string().max(64).default('UTC'),
    locale: z.string().max(8).default('en'),
  }),
  answers: z.record(z.string().max(100), Answer).refine((o) => Object.keys(o).length <= 50, 'at most 50 answers').optional(),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/bookings', {
    config: { auth: true, permission: 'calendar:write', idempotent: true },
    schema: {
      summary: 'Book a slot for a guest',
      description: 'Send event_type_id for your own link, or page and event for another one. The meeting is created with the guest\'s languages and invitations are e-mailed to guest and host; 409 slot_taken when the slot was booked meanwhile.',
      tags: ['Meetings and booking'],
      headers: IdempotencyHeaders,
      body: CreateBookingBody,
      response: { 201: Booking, ...errorResponses },
    },
    handler: (req, reply) => {
      const cred = caller(req);
      assertLanguagesAllowed(cred, 'guest.speak', [req.body.guest.speak]);
      assertLanguagesAllowed(cred, 'guest.hear', [req.body.guest.hear]);
      return idempotent(s.pool, req, reply, async (tx) => ({ status: 201, body: await createBooking(s, tx, cred, req.body) }));
    },
  });
}
