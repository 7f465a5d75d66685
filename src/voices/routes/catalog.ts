import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorResponses } from '../../http/schemas.ts';
import { CatalogVoice } from '../schemas.ts';
import { zapp } from '../../http/route.ts';
import { CATALOG_VOICES } from '../catalog.ts';

export default function register(app: FastifyInstance) {
  zapp(app).get('/v1/voices/catalog', {
    config: { auth: true, permission: 'voices:read' },
    schema: {
      summary: 'Catalog of generic voices (no consent needed)',
      tags: ['Voices'],
      response: { 200: z.object({ data: z.array(CatalogVoice) }), ...errorResponses },
    },
    handler: async () => ({ data: CATALOG_VOICES.map((v) => ({ ...v })) }),
  });
}
