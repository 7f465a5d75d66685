import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DateOnly, IdParams } from '../../http/schemas.ts';
import { Slots } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/event-types/:id/slots', tag: 'Meetings and booking', summary: 'Free slots of a booking link',
    config: { permission: 'calendar:read' }, params: IdParams,
    querystring: z.object({ from: DateOnly.optional(), to: DateOnly.optional() }),
    response: { 200: Slots } });
}
