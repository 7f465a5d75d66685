import type { FastifyInstance } from 'fastify';
import { Balance, errorResponses } from '../../../http/schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import type { Services } from '../../../services/context.ts';
import { balance } from '../../../services/account.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/balance', {
    config: { auth: true, permission: 'usage:read' },
    schema: {
      summary: 'Balance in minutes',
      tags: ['Account and usage'],
      response: { 200: Balance, ...errorResponses },
    },
    handler: (req) => balance(s, caller(req)),
  });
}
