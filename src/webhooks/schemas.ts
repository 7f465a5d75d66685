import { z } from 'zod';
import { EVENT_TYPES } from '../../machines/event-types.ts';

// Shapes of webhook endpoints, deliveries and the event log (api.md sections 4 and 6).

export const EventTypeName = z.enum(EVENT_TYPES);

export const WebhookEndpoint = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    status: z.enum(['active', 'disabled']),
    livemode: z.boolean(),
    created_at: z.string(),
    description: z.string().nullable().describe('Free text given at creation; null when none'),
  })
  .meta({ id: 'WebhookEndpoint' });

export const WebhookEndpointWithSecret = WebhookEndpoint.extend({
  secret: z.string().regex(/^whsec_/).describe('Signing secret; shown only in this answer'),
}).meta({ id: 'WebhookEndpointWithSecret' });

export const DeliveryAttempt = z
  .object({
    attempt: z.int().describe('1 for the first attempt of this delivery'),
    at: z.string(),
    ok: z.boolean().describe('true when the endpoint answered 2xx in time'),
    status: z.int().nullable().describe('HTTP status answered; null when none (timeout, refused, DNS)'),
    latency_ms: z.int(),
    error: z.string().nullable(),
    trigger: z.enum(['schedule', 'resend', 'test']),
  })
  .meta({ id: 'DeliveryAttempt' });

export const Delivery = z
  .object({
    id: z.string().regex(/^whd_/),
    endpoint_id: z.string(),
    event_id: z.string().regex(/^evt_/),
    type: z.string(),
    test: z.boolean().describe('A test event sent with POST .../test'),
    status: z.enum(['pending', 'succeeded', 'failed']).describe('succeeded once any attempt got a 2xx; failed when the retry schedule ran out'),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
    attempts: z.array(DeliveryAttempt),
  })
  .meta({ id: 'WebhookDelivery' });

export const EventLogEntry = z
  .object({
    id: z.string().regex(/^evt_/),
    type: z.string(),
    created: z.int(),
    livemode: z.boolean(),
    org_id: z.string(),
    api_version: z.literal('v1'),
    data: z.object({ object: z.looseObject({ id: z.string() }) }),
  })
  .meta({ id: 'EventLogEntry' });

export const TestDelivery = z
  .object({
    ok: z.boolean(),
    status: z.number().nullable(),
    latency_ms: z.number(),
    delivery_id: z.string(),
    error: z.string().nullable(),
  })
  .meta({ id: 'TestDelivery' });

/** Tag and settings shared by the webhook and event-log endpoints. */
export const WEBHOOKS_TAG = 'Webhooks and events';
export const WEBHOOKS_ROUTE = { auth: true, permission: 'webhooks:write' } as const;
