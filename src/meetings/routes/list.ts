import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { DataList, ListLimit } from '../../http/schemas.ts';
import { Room } from '../../rooms/schemas.ts';
import { notAvailableYet } from '../../http/not-available.ts';

export default function register(app: FastifyInstance) {
  notAvailableYet(app, { method: 'GET', url: '/v1/meetings', tag: 'Meetings and booking', summary: 'List meetings by start time',
    config: { permission: 'calendar:read' },
    querystring: z.object({ from: z.string().max(40).optional(), to: z.string().max(40).optional(), limit: ListLimit }),
    response: { 200: DataList(Room) } });
}
