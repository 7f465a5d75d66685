import fp from 'fastify-plugin';
import type { RequestStats } from '../request-stats.ts';

/** Each key's requests and errors, counted as answers go (http/request-stats.ts), written when the app closes. */
export default fp<{ stats: RequestStats }>(async (app, { stats }) => {
  // A callback hook, not an async one: it runs for every answer, thousands at once when a phrase reaches long-polls.
  app.addHook('onResponse', (req, reply, done) => {
    if (req.cred) stats.record(req.cred.id, req.cred.orgId, req.cred.livemode, reply.statusCode >= 400);
    done();
  });
  app.addHook('onClose', async () => {
    await stats.close();
  });
}, { name: 'request-stats', dependencies: ['authentication'] });
