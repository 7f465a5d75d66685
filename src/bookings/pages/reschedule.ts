import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../../http/pages.ts';
import type { Services } from '../../services.ts';
import { iso } from '../rows.ts';
import { rescheduleByToken } from '../manage.ts';
import { bookingErrors, changeLimits, friendlier, hide, START } from './view.ts';

// POST /bookings/manage/:token/reschedule: the guest moves their booking to another free slot ({ start }).

const RescheduleBody = z.object({ start: z.iso.datetime({ offset: true, ...START }) });

export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { token: string } }>('/bookings/manage/:token/reschedule', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const body = parseBody(RescheduleBody, req.body);
    const b = await rescheduleByToken(s, req.params.token, body.start, changeLimits(s, req.ip)).catch(friendlier);
    reply.header('Cache-Control', 'no-store');
    return { id: b.id, status: b.status, start: iso(b.start_at) };
  });
}
