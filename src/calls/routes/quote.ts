import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { CallPurpose, CallQuote, ConsentKind } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { quoteCall } from '../quote.ts';
import type { Services } from '../../services.ts';

export const QuoteQuery = z.object({
  to: z.string().min(1).max(32),
  purpose: CallPurpose.optional(),
  consent: ConsentKind.optional(),
  from: z.string().max(32).optional().describe('The id of the number the call would go out from (GET /v1/numbers); the default number when omitted'),
});

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/calls/quote', {
    config: { auth: true, permission: 'calls:read' },
    schema: {
      summary: 'Quote a destination and purpose',
      description:
        'Country, number kind and minute factor of `to`, and whether a call of `purpose` with `consent` may be placed to it now: ' +
        'the verdict POST /v1/calls would give at this moment (the country\'s and the state\'s rules, calling hours in every zone the number may ring in, ' +
        'the caller id `from` would give, this organization\'s earlier calls to the number). `to` comes back masked. Test keys also see the simulated outcome.',
      tags: ['Phone calls'],
      querystring: QuoteQuery,
      response: { 200: CallQuote, ...errorResponses },
    },
    handler: (req) => quoteCall(s, caller(req), req.query),
  });
}
