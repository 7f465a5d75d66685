import fp from 'fastify-plugin';
import { readIdempotencyKey } from '../idempotency.ts';
import { rejectDeep, rejectNul } from '../input-guard.ts';

/** What every input is checked for before its route's schema: U+0000, and an idempotent route's key. */
export default fp(async (app) => {
  app.decorateRequest('idempotency', null);
  app.addHook('preValidation', (req, _reply, done) => {
    // PostgreSQL text cannot hold U+0000; refuse it here, naming the field, instead of failing in SQL.
    try {
      // A tool's arguments are checked as the tool's (mcp/tools.ts), where an error names the argument.
      if (req.routeOptions.config.mcp) rejectDeep('body', req.body);
      else {
        rejectNul('query', req.query);
        rejectNul('body', req.body);
      }
      if (req.routeOptions.config.idempotent) readIdempotencyKey(req);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
}, { name: 'input-guard' });
