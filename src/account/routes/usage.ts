import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { Usage } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { usage } from '../account.ts';
import type { Services } from '../../services.ts';
import type { RequestStats } from '../../http/request-stats.ts';

const Query = z.object({
  from: z.string().max(40).optional().describe('First day (YYYY-MM-DD or ISO 8601), default the first of this month'),
  to: z.string().max(40).optional().describe('Last day included, default today (UTC)'),
  group_by: z.enum(['day', 'credential']).optional().describe('Default day'),
});

export default function register(app: FastifyInstance, s: Services & { stats: RequestStats }) {
  zapp(app).get('/v1/usage', {
    config: { auth: true, permission: 'usage:read' },
    schema: {
      summary: 'Usage by day or by credential',
      tags: ['Account and usage'],
      querystring: Query,
      response: { 200: Usage, ...errorResponses },
    },
    handler: async (req) => {
      // This process's pending request counts first, so a caller sees its own requests.
      await s.stats.flush().catch(() => {});
      return usage(s, s.pool, caller(req), req.query);
    },
  });
}
