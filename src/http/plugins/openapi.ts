import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { API_VERSION_DATE } from '../../config.ts';

/**
 * The OpenAPI 3.1 document, generated from the routes' zod schemas as they
 * are registered (served by the reference plugin); each operation names the
 * permission it needs (x-permission). Registered before any route.
 */
export default fp<{ publicBaseUrl: string }>(async (app, { publicBaseUrl }) => {
  app.addHook('onRoute', (route) => {
    const permission = route.config?.permission;
    if (permission && route.schema) (route.schema as Record<string, unknown>)['x-permission'] = permission;
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Tolk API',
        version: API_VERSION_DATE,
        description:
          'Live-translation rooms, meetings and booking links, voices, AI agent sessions, translated phone calls, transcripts and webhooks. ' +
          'Every request carries `Authorization: Bearer <API key>`; errors are application/problem+json.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key: sk_test_… or sk_live_…' } },
      },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
}, { name: 'openapi' });
