import type { FastifyInstance } from 'fastify';
import { ApiError, invalid } from '../../errors.ts';
import { now, type Services } from '../../services.ts';
import { slotsOf } from '../busy.ts';
import { slotsRange } from '../slots.ts';
import { bookingErrors, hide, linkOf } from './view.ts';

// GET /book/:page/:slug/slots: a link's free slots, as GET /v1/event-types/{id}/slots answers them.
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { page: string; slug: string }; Querystring: { from?: unknown; to?: unknown } }>('/book/:page/:slug/slots', { ...hide, errorHandler: bookingErrors(s) }, async (req, reply) => {
    const et = await linkOf(s, req.params.page, req.params.slug);
    if (!et) throw new ApiError('not_found', 'No booking link at this address');
    const q: { from?: string; to?: string } = {};
    for (const k of ['from', 'to'] as const) {
      const v = req.query[k];
      if (v === undefined) continue;
      if (typeof v !== 'string') throw invalid(k, 'give it once, as a date YYYY-MM-DD');
      q[k] = v;
    }
    const range = slotsRange(q, et.tz, now(s));
    // Live mode: the public page shows (and books) the host's real calendar.
    const slots = await slotsOf(s, s.pool, et, true, range);
    reply.header('Cache-Control', 'no-store');
    return slots;
  });
}
