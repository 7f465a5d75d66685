import { z } from 'zod';

// Shapes of api.md section 2. These zod schemas validate requests, type the
// handlers, serialize responses and generate /v1/openapi.json.

export const Problem = z
  .object({
    type: z.string().describe('Link ending in #<code>'),
    title: z.string().describe('Equal to code'),
    status: z.int(),
    code: z.string().describe('Stable; branch on it'),
    message: z.string().describe('For people; names the field for invalid_request'),
    request_id: z.string().regex(/^req_/),
  })
  .meta({ id: 'Problem' });

export const LANG = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;
export const Lang = z.string().regex(LANG, 'must be a language code such as en or pt-BR');

export const Room = z
  .object({
    id: z.string(),
    url: z.url(),
    title: z.string(),
    visibility: z.enum(['private', 'public']),
    status: z.enum(['scheduled', 'live', 'ended']),
    created_at: z.string(),
    expires_at: z.string(),
    starts_at: z.string().nullable(),
    duration_min: z.int().nullable(),
    invitees: z.array(z.string()),
    langs: z.array(z.string()),
    livemode: z.boolean(),
  })
  .meta({ id: 'Room' });
export type Room = z.infer<typeof Room>;

export const RoomList = z.object({ data: z.array(Room), has_more: z.boolean() });

export const Me = z
  .object({
    credential: z.object({
      kind: z.enum(['key', 'oauth', 'client']),
      id: z.string(),
      name: z.string(),
      mode: z.enum(['live', 'test']),
      needs_review: z.boolean(),
    }),
    organization: z.object({ id: z.string(), name: z.string() }).nullable(),
    user: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
    permissions: z.array(z.string()),
    limits: z.object({
      spend_day_minutes: z.number().nullable(),
      spend_month_minutes: z.number().nullable(),
      per_call_minutes: z.number().nullable(),
      requests_per_minute: z.number(),
      spent_today_minutes: z.number(),
      spent_month_minutes: z.number(),
    }),
    pricing: z.object({ api_minute_factor: z.number(), listen_text_factor: z.number() }),
  })
  .meta({ id: 'Me' });

export const Balance = z
  .object({
    minutes_left: z.number(),
    seconds_left: z.int(),
    low: z.boolean(),
    source: z.enum(['organization', 'personal', 'test']),
    livemode: z.boolean(),
  })
  .meta({ id: 'Balance' });

export const Usage = z
  .object({
    from: z.string(),
    to: z.string(),
    total_minutes: z.number(),
    requests: z.int(),
    errors: z.int(),
    data: z.array(
      z.object({
        day: z.string().optional(),
        credential_id: z.string().optional(),
        name: z.string().optional(),
        minutes: z.number(),
        requests: z.int().optional(),
        errors: z.int().optional(),
      }),
    ),
  })
  .meta({ id: 'Usage' });

export const JoinLink = z.object({ url: z.url(), room_id: z.string() }).meta({ id: 'JoinLink' });

// Path ids are not pattern-checked here: an id that cannot exist answers 404 like any unknown id.
export const IdParams = z.object({ id: z.string() });

/** Error responses every route can give; the OpenAPI document marks them application/problem+json. */
export const errorResponses = {
  '4XX': Problem,
  '5XX': Problem,
} as const;
