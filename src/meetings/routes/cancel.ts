import type { FastifyInstance } from 'fastify';
import { IdParams } from '../../http/schemas.ts';
import { Room } from '../../rooms/schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'DELETE', url: '/v1/meetings/:id', tag: 'Meetings and booking', summary: 'Cancel a meeting',
    config: { permission: 'calendar:write' }, params: IdParams, response: { 200: Room } });
}
