import type { FastifyInstance } from 'fastify';
import { DataList } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/voices', tag: 'Voices', summary: "The organization's voices",
    config: { permission: 'voices:read' }, response: { 200: DataList(Voice) } });
}
