import Fastify from 'fastify';
import { V1_ROUTES } from '../../src/routes.ts';

/**
 * Every /v1 operation the app registers (src/routes.ts V1_ROUTES), as
 * "METHOD /v1/path/{param}" in the OpenAPI document's spelling, sorted: what
 * a test walking /v1/openapi.json must find there, no more and no fewer.
 * Registration only: the routes' services are never called.
 */
export function v1Operations(): string[] {
  const app = Fastify();
  const ops: string[] = [];
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) {
      if (method !== 'HEAD') ops.push(`${method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    }
  });
  for (const register of V1_ROUTES) register(app, {} as never);
  return ops.sort();
}
