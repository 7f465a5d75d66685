import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../http/schemas.ts';
import { Me } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { me } from '../account.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/me', {
    config: { auth: true },
    schema: {
      summary: 'Identity, permissions and limits of the credential',
      tags: ['Account and usage'],
      response: { 200: Me, ...errorResponses },
    },
    handler: (req) => me(s, caller(req)),
  });
}
