import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { Avatar } from '../schemas.ts';
import { zapp } from '../../http/route.ts';
import { AVATARS } from '../data.ts';

export default function register(app: FastifyInstance) {
  zapp(app).get('/v1/avatars', {
    config: { auth: true, permission: 'voices:read' },
    schema: {
      summary: 'Published avatars',
      tags: ['Avatars'],
      response: { 200: z.object({ data: z.array(Avatar) }), ...errorResponses },
    },
    // The cover image is the first variation's photo when no poster exists.
    handler: async () => ({
      data: AVATARS.map((a) => ({ ...a, poster_url: a.poster_url ?? a.variations[0]?.photo_url ?? null })),
    }),
  });
}
