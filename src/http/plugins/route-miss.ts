import fp from 'fastify-plugin';
import { RouteMiss } from '../error-handler.ts';

/**
 * A request no route matches: 405 with Allow when its path takes other
 * methods, else 404. Registered after the authentication hook: a wrong
 * method is answered with the same headers, before any body is read.
 */
export default fp(async (app) => {
  const miss = new RouteMiss(app);
  app.addHook('onRoute', miss.onRoute);
  app.setNotFoundHandler(miss.notFoundHandler);
  app.addHook('onRequest', miss.onRequest);
}, { name: 'route-miss', dependencies: ['authentication'] });
