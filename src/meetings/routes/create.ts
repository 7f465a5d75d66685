import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Room } from '../../rooms/schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';
import { assertLanguagesAllowed } from '../../restrictions.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/meetings', tag: 'Meetings and booking', summary: 'Schedule a meeting',
    config: { permission: 'calendar:write', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      title: z.string().min(1).max(120),
      starts_at: z.iso.datetime({ offset: true }),
      duration_min: z.int().min(5).max(720).default(30),
      invitees: z.array(Email).max(100).default([]),
      langs: z.array(Lang).max(20).default([]),
      visibility: z.enum(['private', 'public']).default('private'),
    }),
    restrict: (cred, b) => assertLanguagesAllowed(cred, 'langs', b.langs ?? []),
    response: { 201: Room } });
}
