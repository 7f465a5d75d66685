import type { FastifyInstance } from 'fastify';
import { mailQuotas } from '../../http/quotas.ts';
import type { Services } from '../../services.ts';
import { sendCode } from '../consent.ts';
import { consentRoutes, hide } from './view.ts';

// POST /consent/:token/code: step 1, a one-time code mailed to the request's e-mail address.
export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.post<{ Params: { token: string } }>('/consent/:token/code', hide, async (req, reply) => {
    return reply.code(200).send(await sendCode(s, req.params.token, (to) => mailQuotas(s.config.publicLimits, req.ip, to)));
  }));
}
