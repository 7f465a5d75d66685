import { z } from 'zod';

// Shapes of the account endpoints (api.md: Me, Balance, Usage).

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
