import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/voices/:id', tag: 'Voices', summary: 'Retrieve a voice with its consent status',
    config: { permission: 'voices:read' }, params: IdParams, response: { 200: Voice } });
}
