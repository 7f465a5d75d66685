import fp from 'fastify-plugin';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';

/** Every route's schemas are zod's: they validate the input and serialize the answer (http/route.ts zapp). */
export default fp(async (app) => {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
}, { name: 'zod' });
