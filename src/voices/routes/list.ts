import type { FastifyInstance } from 'fastify';
import { DataList, errorResponses } from '../../http/schemas.ts';
import { Voice } from '../schemas.ts';
import { caller, zapp } from '../../http/route.ts';
import { listVoices } from '../voices.ts';
import type { Services } from '../../services.ts';

export default function register(app: FastifyInstance, s: Services) {
  zapp(app).get('/v1/voices', {
    config: { auth: true, permission: 'voices:read' },
    schema: {
      summary: "The organization's voices",
      description: "The organization's ready clones, the caller's own clones in every state, and the generic voices the organization added, in the key's mode, oldest first.",
      tags: ['Voices'],
      response: { 200: DataList(Voice), ...errorResponses },
    },
    handler: (req) => listVoices(s, caller(req)),
  });
}
