import fp from 'fastify-plugin';

/**
 * Many clients send `Content-Type: application/json` with every POST, also
 * when there is nothing to send (leave, rotate-secret, test): an empty or
 * blank body is no body, as with Stripe's API. Anything else goes through
 * Fastify's own JSON parser (prototype-poisoning protection included). JSON is
 * the only body parsed: any other Content-Type (text/plain too) is 415.
 */
export default fp(async (app) => {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    parseJson(req, body as string, done);
  });
}, { name: 'json-body' });
