import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseBody } from '../../http/pages.ts';
import type { Services } from '../../services.ts';
import { verifyCode } from '../consent.ts';
import { consentRoutes, hide } from './view.ts';

// POST /consent/:token/verify: step 2, the code ({ code }) -> a secret for the recording and the sentence to read.

const CODE = z.object({ code: z.string().trim().regex(/^\d{6}$/, 'enter the 6 digits of the code we e-mailed you') });

export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.post<{ Params: { token: string } }>('/consent/:token/verify', hide, async (req) => {
    const body = parseBody(CODE, req.body);
    return verifyCode(s, req.params.token, body.code);
  }));
}
