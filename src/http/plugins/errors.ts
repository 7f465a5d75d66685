import fp from 'fastify-plugin';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/** The one error mapping (http/error-handler.ts makeErrorHandler) for every route and hook of the app. */
export default fp<{ handler: (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void }>(async (app, { handler }) => {
  app.setErrorHandler(handler);
}, { name: 'errors' });
