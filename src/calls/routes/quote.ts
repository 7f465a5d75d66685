import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CallPurpose, CallQuote, ConsentKind } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/calls/quote', tag: 'Phone calls', summary: 'Quote a destination and purpose',
    config: { permission: 'calls:read' },
    querystring: z.object({ to: z.string().min(1).max(32), purpose: CallPurpose.optional(), consent: ConsentKind.optional(), from: z.string().max(32).optional() }),
    response: { 200: CallQuote } });
}
