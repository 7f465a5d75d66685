import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { revokePage } from './revoke-page.ts';
import { consentRoutes, hide } from './view.ts';

// POST /consent/revoke/:token: withdraws the consent (the withdrawal page's form), then shows the page that says so.
export default function register(app: FastifyInstance, s: Services) {
  consentRoutes(app, s, (c) => c.post<{ Params: { token: string } }>('/consent/revoke/:token', hide, (req, reply) => revokePage(s, req, reply, true)));
}
