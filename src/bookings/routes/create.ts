import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, errorResponses, IdempotencyHeaders, Lang, OneLine } from '../../http/schemas.ts';
import { Booking } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent, type Once } from '../../http/idempotency.ts';
import type { Credential } from '../../credentials.ts';
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
    name: OneLine((s) => s.min(1).max(80)),
    email: Email,
    speak: Lang,
    hear: Lang.optional(),
    tz: z.string().max(64).default('UTC'),
    locale: z.string().max(8).default('en'),
  }),
  answers: z.record(z.string().max(100), Answer).refine((o) => Object.keys(o).length <= 50, 'at most 50 answers').optional(),
});

/** POST /v1/bookings and the book_slot tool: the key's restrictions, then the booking, once per key. */
export function bookSlot(s: Services, cred: Credential, body: z.output<typeof CreateBookingBody>, once: Once<z.output<typeof Booking>>) {
  assertLanguagesAllowed(cred, 'guest.speak', [body.guest.speak]);
  assertLanguagesAllowed(cred, 'guest.hear', [body.guest.hear]);
  return once(async (tx) => ({ status: 201, body: await createBooking(s, tx, cred, body) }));
}

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
    handler: (req, reply) => bookSlot(s, caller(req), req.body, (work) => idempotent(s.pool, req, reply, work)),
  });
}
