import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { EventType } from '../../bookings/schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/event-types', {
    config: { auth: true, permission: 'calendar:read' },
    schema: {
      summary: "The organization's booking links",
      tags: ['Meetings and booking'],
      response: { 200: z.object({ data: z.array(EventType) }), ...errorResponses },
    },
    handler: async (req) => {
      const { rows } = await s.pool.query(
        `SELECT id, title, duration_min, page, slug, active FROM event_types WHERE org_id = $1 ORDER BY created_at, id`,
        [caller(req).orgId],
      );
      return { data: rows.map((r) => ({ ...r, url: `${s.config.publicBaseUrl}/book/${r.page}/${r.slug}` })) };
    },
  });
}
