import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DataList, errorResponses, ListLimit } from '../../../http/schemas.ts';
import { Room } from '../../schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import { listMeetings } from '../meetings.ts';
import type { Services } from '../../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/meetings', {
    config: { auth: true, permission: 'calendar:read' },
    schema: {
      summary: 'List meetings by start time',
      description: 'Ascending by starts_at. from (inclusive) and to (exclusive) bound starts_at: ISO 8601 with an offset, or a date (00:00 UTC). Canceled and ended meetings are listed with their status.',
      tags: ['Meetings and booking'],
      querystring: z.object({ from: z.string().max(40).optional(), to: z.string().max(40).optional(), limit: ListLimit }),
      response: { 200: DataList(Room), ...errorResponses },
    },
    handler: (req) => listMeetings(s, caller(req), req.query),
  });
}
