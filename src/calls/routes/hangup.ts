import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'POST', url: '/v1/calls/:id/hangup', tag: 'Phone calls', summary: 'Hang up a call (idempotent)',
    config: { permission: 'calls:dial' }, params: IdParams, response: { 200: Call } });
}
