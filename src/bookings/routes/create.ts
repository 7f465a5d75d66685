import type { FastifyInstance } from 'fastify';
import { errorResponses, IdempotencyHeaders } from '../../http/schemas.ts';
import { Booking, CreateBookingBody } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { bookSlot } from '../bookings.ts';
import type { Services } from '../../services.ts';

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
