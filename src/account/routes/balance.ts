import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../http/schemas.ts';
import { Balance } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { balance } from '../../billing/balance.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/balance', {
    config: { auth: true, permission: 'usage:read' },
    schema: {
      summary: 'Balance in minutes',
      tags: ['Account and usage'],
      response: { 200: Balance, ...errorResponses },
    },
    handler: (req) => balance(s.pool, caller(req)),
  });
}
