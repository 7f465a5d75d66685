import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Booking } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';
import { assertLanguagesAllowed } from '../../restrictions.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/bookings', tag: 'Meetings and booking', summary: 'Book a slot for a guest',
    config: { permission: 'calendar:write', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      event_type_id: z.string().max(100).optional(),
      page: z.string().max(100).optional(),
      event: z.string().max(100).optional(),
      start: z.iso.datetime({ offset: true }),
      guest: z.object({
        name: z.string().min(1).max(80),
        email: Email,
        speak: Lang,
        hear: Lang.optional(),
        tz: z.string().max(64).default('UTC'),
        locale: z.string().max(8).default('en'),
      }),
      answers: z.record(z.string(), z.unknown()).optional(),
    }),
    restrict: (cred, b) => {
      assertLanguagesAllowed(cred, 'guest.speak', [b.guest?.speak]);
      assertLanguagesAllowed(cred, 'guest.hear', [b.guest?.hear]);
    },
    response: { 201: Booking } });
}
