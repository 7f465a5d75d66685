import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdParams, Lang, OneLine, optionalBody } from '../../http/schemas.ts';
import { JoinLink } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { createJoinLink } from '../join-links.ts';
import type { Services } from '../../services.ts';

const Body = z.object({
  name: OneLine((s) => s.min(1).max(80)).optional().describe('Name prefilled for the participant'),
  speak: Lang.optional().describe('Language prefilled for speaking'),
  hear: Lang.optional().describe('Language prefilled for hearing'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/rooms/:id/join-links', {
    config: { auth: true, permission: 'rooms:write' },
    schema: {
      summary: 'Create a signed link that opens the room directly',
      tags: ['Rooms'],
      params: IdParams,
      body: optionalBody(Body),
      response: { 201: JoinLink, ...errorResponses },
    },
    handler: async (req, reply) => {
      const link = await createJoinLink(s, caller(req), req.params.id, req.body);
      reply.code(201);
      return link;
    },
  });
}
