import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses, IdempotencyHeaders, Lang } from '../../http/schemas.ts';
import { Call, CallPurpose, ConsentKind } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { idempotent, type Once } from '../../http/idempotency.ts';
import type { Credential } from '../../credentials.ts';
import type { FastifyBaseLogger } from 'fastify';
import { placeCall, type Placed } from '../place.ts';
import { writeDialJob } from '../jobs.ts';
import type { Services } from '../../services.ts';

export const PlaceCallBody = z.object({
  to: z.string().min(4).max(32).describe('The number to call, E.164: + then the country code and number'),
  from: z.string().max(32).optional().describe('Caller id: the id of one of your numbers (GET /v1/numbers); omitted or empty: your default'),
  purpose: CallPurpose,
  consent: z
    .object({ kind: ConsentKind, ref: z.string().max(200).optional().describe('Your reference to the consent record') })
    .optional()
    .describe('The consent the callee gave, when the purpose needs one there (GET /v1/calls/quote says)'),
  agent_lang: Lang.default('en').describe('The language the agent (your client) hears the callee in and speaks'),
  remote_lang: Lang.optional().describe("The callee's language; default: the destination country's main language"),
  voice_id: z.string().max(100).optional(),
});

/** POST /v1/calls and the place_call tool: the call, placed once per key, then dialed by this process's gateway. */
export async function placeAndDial(s: Services, cred: Credential, body: z.output<typeof PlaceCallBody>, once: Once<z.output<typeof Call>>, log: FastifyBaseLogger) {
  let dial: Placed['state'];
  const call = await once(async (tx) => {
    const placed = await placeCall(s, tx, cred, body, (t, id) => writeDialJob(s, t, id));
    dial = placed.state;
    return { status: 201, body: placed.call };
  });
  // Committed with this process's gateway as its own: dialed now (should this process die first, another gateway's sweep dials it).
  if (dial && s.gateway) {
    const callId = dial.call.id;
    s.gateway.dialPlaced(dial).catch((err) => log.error({ err, callId }, 'dial failed'));
  }
  return call;
}

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
