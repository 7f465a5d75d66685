import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../../http/pages.ts';
import type { Services } from '../../services.ts';
import { leaveAsPerson, leaveUnlessBack } from '../participants.ts';
import { hide, Who } from './live.ts';

// POST /r/:id/leave: the participant leaves ({ participant, secret }); with `unloading` (the tab
// closing, or reloading, sent as a beacon) only unless their page is back in a few seconds.

const LeaveBody = z.object({ ...Who, unloading: z.boolean().optional() });

export default function register(app: FastifyInstance, s: Services) {
  app.post<{ Params: { id: string } }>('/r/:id/leave', hide, async (req) => {
    const body = parseBody(LeaveBody, req.body);
    if (body.unloading) {
      await leaveUnlessBack(s, req.params.id, body.participant, body.secret);
      return { left: false };
    }
    await leaveAsPerson(s, req.params.id, body.participant, body.secret);
    return { left: true };
  });
}
