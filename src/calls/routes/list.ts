import type { FastifyInstance } from 'fastify';
import { DataList } from '../../http/schemas.ts';
import { Call } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/calls', tag: 'Phone calls', summary: 'Calls placed by this credential, newest first',
    config: { permission: 'calls:read' }, response: { 200: DataList(Call) } });
}
