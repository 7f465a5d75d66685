import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import type { Services } from '../../services.ts';
import { voiceByConsentToken } from '../consent.ts';
import { consentRoutes, hide } from './view.ts';

// GET /consent/:token/status: the voice's status (the page waits for `ready`).
export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.get<{ Params: { token: string } }>('/consent/:token/status', hide, async (req, reply) => {
    const r = await voiceByConsentToken(s.pool, req.params.token);
    if (!r) throw new ApiError('not_found', 'No consent request at this address');
    return reply.header('Cache-Control', 'no-store').send({ status: r.status, failure_code: r.failure_code });
  }));
}
