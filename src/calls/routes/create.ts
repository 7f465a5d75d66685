import type { FastifyInstance } from 'fastify';
import { errorResponses, IdempotencyHeaders } from '../../http/schemas.ts';
import { Call, PlaceCallBody } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent } from '../../http/idempotency.ts';
import { placeAndDial } from '../place.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).post('/v1/calls', {
    config: { auth: true, permission: 'calls:dial', idempotent: true },
    schema: {
      summary: 'Place a translated call as an AI agent',
      description:
        'A test key\'s call goes through the SIP gateway to the simulated callee, ' +
        'whose outcome follows the last four digits of `to` (0100 busy, 0101 no answer, 0102 voicemail, 0103 failed, others answered). ' +
        'A live key\'s call is a real call through the operator\'s SIP trunk of the `from` number (or the default number), billed from the ' +
        'organization\'s balance (billed seconds × minute_factor) and ended when the balance or the key\'s limits are spent; where the number ' +
        'has no trunk, or no engine covers `agent_lang`, `remote_lang` and speech in `remote_lang`, live keys answer 501 not_available_yet. ' +
        'A call that fails before any SIP answer says why in end_reason: trunk_down (the trunk does not answer its health checks), ' +
        'trunk_busy (its calls-per-second queue is full). ' +
        'A destination or purpose the policy table refuses gives a `blocked` call (call.blocked). The agent always announces it is an AI, ' +
        'first, in `remote_lang`. Take part in the conversation through the session named by `session_id`.',
      tags: ['Phone calls'],
      headers: IdempotencyHeaders,
      body: PlaceCallBody,
      response: { 201: Call, ...errorResponses },
    },
    handler: (req, reply) => placeAndDial(s, caller(req), req.body, (work) => idempotent(s.pool, req, reply, work), req.log),
  });
}
