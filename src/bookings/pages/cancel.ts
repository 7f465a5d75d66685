import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { cancelByToken } from '../manage.ts';
import { bookingErrors, changeLimits, hide } from './view.ts';

// POST /bookings/manage/:token/cancel: the guest cancels their booking (the manage page's button).
export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { token: string } }>('/bookings/manage/:token/cancel', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const b = await cancelByToken(s, req.params.token, changeLimits(s, req.ip));
    reply.header('Cache-Control', 'no-store');
    return { id: b.id, status: b.status };
  });
}
