import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/calls/:id', tag: 'Phone calls', summary: 'Retrieve a call',
    config: { permission: 'calls:read' }, params: IdParams, response: { 200: Call } });
}
