import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  Delivery, EventLogEntry, EventTypeName, IdParams, ListLimit, TestDelivery, WebhookEndpoint, WebhookEndpointWithSecret, errorResponses,
} from '../../../http/schemas.ts';
import { caller, zapp } from '../../../http/route.ts';
import type { Services } from '../../../services/context.ts';
import {
  createEndpoint, deleteEndpoint, listDeliveries, listEndpoints, listEvents, resendDelivery, rotateSecret, sendTestEvent,
} from '../../../services/webhooks.ts';

const TAG = 'Webhooks and events';

export default function register(app: FastifyInstance, s: Services) {
  const r = zapp(app);
  const write = { auth: true, permission: 'webhooks:write' } as const;

  r.get('/v1/webhook-endpoints', {
    config: write,
    schema: { summary: 'Webhook endpoints of this environment', tags: [TAG], response: { 200: z.object({ data: z.array(WebhookEndpoint) }), ...errorResponses } },
    handler: (req) => listEndpoints(s, caller(req)),
  });

  r.post('/v1/webhook-endpoints', {
    config: write,
    schema: {
      summary: 'Register a webhook endpoint',
      description: 'The url must be https and resolve to public addresses only; redirects are not followed. The signing secret is in this answer and never again.',
      tags: [TAG],
      body: z.object({
        url: z.string().max(2000),
        events: z.array(EventTypeName).min(1).max(100),
        description: z.string().max(200).optional(),
      }),
      response: { 201: WebhookEndpointWithSecret, ...errorResponses },
    },
    handler: async (req, reply) => reply.code(201).send(await createEndpoint(s, caller(req), req.body)),
  });

  r.delete('/v1/webhook-endpoints/:id', {
    config: write,
    schema: {
      summary: 'Delete a webhook endpoint',
      tags: [TAG],
      params: IdParams,
      response: { 200: z.object({ id: z.string(), deleted: z.literal(true) }), ...errorResponses },
    },
    handler: (req) => deleteEndpoint(s, caller(req), req.params.id),
  });

  r.post('/v1/webhook-endpoints/:id/rotate-secret', {
    config: write,
    schema: {
      summary: 'Rotate the signing secret',
      description: 'The new secret is shown once. For 24 hours both secrets sign and Service-Signature carries two v1 values.',
      tags: [TAG],
      params: IdParams,
      response: { 200: z.object({ id: z.string(), secret: z.string().regex(/^whsec_/) }), ...errorResponses },
    },
    handler: (req) => rotateSecret(s, caller(req), req.params.id),
  });

  r.post('/v1/webhook-endpoints/:id/test', {
    config: write,
    schema: {
      summary: 'Send a signed test event now',
      description: 'The test event is recorded as a delivery (see deliveries) but not retried and not written to the event log.',
      tags: [TAG],
      params: IdParams,
      body: z.object({ type: EventTypeName.default('meeting.created') }).nullish(),
      response: { 200: TestDelivery, ...errorResponses },
    },
    handler: (req) => sendTestEvent(s, caller(req), req.params.id, req.body?.type ?? 'meeting.created'),
  });

  r.get('/v1/webhook-endpoints/:id/deliveries', {
    config: write,
    schema: {
      summary: 'Deliveries to an endpoint, newest first, with every attempt',
      tags: [TAG],
      params: IdParams,
      querystring: z.object({ limit: ListLimit, starting_after: z.string().max(100).optional().describe('Id of the last delivery of the previous page') }),
      response: { 200: z.object({ data: z.array(Delivery), has_more: z.boolean() }), ...errorResponses },
    },
    handler: (req) => listDeliveries(s, caller(req), req.params.id, req.query.limit, req.query.starting_after),
  });

  r.post('/v1/webhook-endpoints/:id/deliveries/:delivery_id/resend', {
    config: write,
    schema: {
      summary: 'Send a delivery again now',
      description: 'Same body and event id as before, signed anew; the attempt is added to the delivery.',
      tags: [TAG],
      params: z.object({ id: z.string(), delivery_id: z.string() }),
      response: { 200: TestDelivery, ...errorResponses },
    },
    handler: (req) => resendDelivery(s, caller(req), req.params.id, req.params.delivery_id),
  });

  r.get('/v1/events', {
    config: { auth: true, permission: 'events:read' },
    schema: {
      summary: 'Event log of the last 30 days, newest first',
      tags: [TAG],
      querystring: z.object({
        type: z.string().max(100).optional().describe('An event type, or a family such as `call.*`'),
        since: z.string().max(40).optional().describe('ISO 8601 date-time or Unix seconds; events created at or after it'),
        limit: ListLimit,
        starting_after: z.string().max(100).optional().describe('Id of the last event of the previous page'),
      }),
      response: { 200: z.object({ data: z.array(EventLogEntry), has_more: z.boolean() }), ...errorResponses },
    },
    handler: (req) => listEvents(s, caller(req), req.query),
  });
}
