import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Email, errorResponses, IdempotencyHeaders, Lang, OneLine } from '../../../http/schemas.ts';
import { Room } from '../../schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import { idempotent } from '../../../http/idempotency.ts';
import { createMeeting, END_GRACE_MIN } from '../meetings.ts';
import { isValidZone } from '../../../time-zones.ts';
import type { Services } from '../../../services.ts';

const EXAMPLES = 'e.g. 2026-12-01T15:00:00Z or 2026-12-01T15:00:00-03:00';
/** A date and time without an offset says which part is missing; anything else what is expected. */
const startsAtError = (iss: { input?: unknown }) =>
  typeof iss.input === 'string' && /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(iss.input.trim())
    ? `include a time-zone offset, ${EXAMPLES}`
    : `must be a date and time with a time-zone offset, ${EXAMPLES}`;

export const CreateMeetingBody = z.object({
  title: OneLine((s) => s.min(1).max(120)),
  starts_at: z.iso.datetime({ offset: true, error: startsAtError }).describe('ISO 8601 with a time zone offset (Z or +hh:mm); not in the past'),
  duration_min: z.int().min(5).max(720).default(30),
  invitees: z.array(Email).max(100).default([]).describe('E-mail addresses; each is sent an invitation with a calendar file'),
  langs: z.array(Lang).max(20).default([]),
  visibility: z.enum(['private', 'public']).default('private'),
  tz: z.string().max(64).refine(isValidZone, 'must be an IANA time zone such as Europe/Lisbon').optional()
    .describe('The host\'s time zone, shown in invitations beside UTC (default UTC)'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/meetings', {
    config: { auth: true, permission: 'calendar:write', idempotent: true },
    schema: {
      summary: 'Schedule a meeting',
      description: `Creates a room in status scheduled. It goes live at starts_at and ends ${END_GRACE_MIN} minutes after its planned end; invitees are e-mailed the link with a calendar file, and reminded 24 hours and 15 minutes before.`,
      tags: ['Meetings and booking'],
      headers: IdempotencyHeaders,
      body: CreateMeetingBody,
      response: { 201: Room, ...errorResponses },
    },
    handler: (req, reply) =>
      idempotent(s.pool, req, reply, async (tx) => ({ status: 201, body: await createMeeting(s, tx, caller(req), req.body) })),
  });
}
