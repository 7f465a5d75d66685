import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdempotencyHeaders, Lang, OneLine, optionalBody } from '../../http/schemas.ts';
import { Room } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { createRoom } from '../rooms.ts';
import type { Services } from '../../services.ts';

export const CreateRoomBody = z.object({
  title: OneLine((s) => s.max(120)).default(''),
  visibility: z.enum(['private', 'public']).default('private'),
  langs: z.array(Lang).max(20).default([]).describe('Languages expected; helps warm-up'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/rooms', {
    config: { auth: true, permission: 'rooms:write', idempotent: true },
    schema: {
      summary: 'Create an instant room',
      tags: ['Rooms'],
      headers: IdempotencyHeaders,
      body: optionalBody(CreateRoomBody),
      response: { 201: Room, ...errorResponses },
    },
    handler: (req, reply) =>
      idempotent(s.pool, req, reply, async (tx) => ({ status: 201, body: await createRoom(s, tx, caller(req), req.body) })),
  });
}
