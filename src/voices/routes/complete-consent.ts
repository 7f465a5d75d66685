import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/test-helpers/voices/:id/complete-consent', tag: 'Voices', summary: 'Test mode: complete the consent as if recorded',
    config: { permission: 'voices:clone' }, params: IdParams, response: { 200: Voice } });
}
