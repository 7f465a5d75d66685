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

/** `limit` of every list: 1-100, default 20, as Stripe's lists (api.md leaves the bounds open). */
export const ListLimit = z.coerce.number().int().min(1).max(100).default(20);

/** Error responses every route can give; the OpenAPI document marks them application/problem+json. */
export const errorResponses = {
  '4XX': Problem,
  '5XX': Problem,
} as const;

// ---- Shapes of endpoints built in later steps (documented now; see src/routes/v1/placeholders.ts).

export const Email = z.email().max(254);

export const Session = z
  .object({
    id: z.string().regex(/^ses_/),
    room_id: z.string().nullable(),
    name: z.string(),
    speak_lang: z.string(),
    hear_lang: z.string(),
    status: z.enum(['joining', 'active', 'ended']),
    billed_seconds: z.int(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Session' });
export type Session = z.infer<typeof Session>;

export const SessionEvent = z
  .object({
    id: z.int(),
    type: z.string(),
    speaker: z.string().nullable(),
    src_lang: z.string().nullable(),
    untrusted_content: z.object({ text: z.string().nullable(), text_in_hear_lang: z.string().nullable() }),
    meta: z.record(z.string(), z.unknown()).optional(),
    created_at: z.string(),
  })
  .meta({ id: 'SessionEvent' });

export const Voice = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(['clone', 'generic']),
    active: z.boolean(),
    gender: z.enum(['male', 'female']).nullable(),
    status: z.enum(['awaiting_consent', 'processing', 'ready', 'failed', 'revoked', 'expired']).optional(),
    consent_url: z.url().nullable().optional(),
    language: z.string().optional(),
    person: z.object({ name: z.string(), email: z.string() }).optional(),
    failure_code: z.string().nullable().optional(),
    expires_at: z.string().nullable().optional(),
    created_at: z.string().optional(),
    livemode: z.boolean().optional(),
  })
  .meta({ id: 'Voice' });

export const CatalogVoice = z
  .object({
    id: z.string(),
    name: z.string(),
    gender: z.enum(['male', 'female']),
    accent: z.string().nullable(),
    description: z.string().nullable(),
    preview_url: z.string().nullable(),
  })
  .meta({ id: 'CatalogVoice' });

export const EventType = z
  .object({
    id: z.string(),
    title: z.string(),
    duration_min: z.int(),
    page: z.string(),
    slug: z.string(),
    url: z.string(),
    active: z.boolean(),
  })
  .meta({ id: 'EventType' });

export const Slots = z
  .object({ tz: z.string(), duration_min: z.int(), slots: z.array(z.string()), full_days: z.array(z.string()) })
  .meta({ id: 'Slots' });

export const Booking = z
  .object({
    id: z.string(),
    room_url: z.string().nullable(),
    manage_url: z.string().nullable(),
    start: z.string(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Booking' });

export const CallPurpose = z.enum(['transactional', 'scheduling', 'support', 'marketing']);
export const ConsentKind = z.enum(['existing_customer', 'prior_express', 'written']);

export const Call = z
  .object({
    id: z.string().regex(/^call_/),
    to: z.string(),
    country: z.string(),
    purpose: CallPurpose,
    status: z.enum(['queued', 'ringing', 'answered', 'completed', 'busy', 'voicemail', 'no_answer', 'failed', 'blocked']),
    ai_disclosure: z.literal(true),
    billed_seconds: z.int(),
    created_at: z.string(),
    answered_at: z.string().nullable().optional(),
    ended_at: z.string().nullable().optional(),
    end_reason: z.string().nullable().optional(),
    livemode: z.boolean(),
  })
  .meta({ id: 'Call' });

export const CallQuote = z
  .object({
    to: z.string(),
    country: z.string(),
    kind: z.string(),
    allowed: z.boolean(),
    minute_factor: z.number(),
    reason: z.string(),
    purpose: z
      .object({
        purpose: z.string(),
        allowed: z.boolean(),
        code: z.string(),
        message: z.string().nullable(),
        requires: z.array(z.string()),
        legal_reviewed: z.boolean(),
      })
      .nullable(),
    simulator: z.string().nullable(),
  })
  .meta({ id: 'CallQuote' });

export const TranscriptSummary = z
  .object({
    id: z.string(),
    room_id: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    segments: z.int(),
    livemode: z.boolean(),
  })
  .meta({ id: 'TranscriptSummary' });

export const Transcript = z
  .object({
    id: z.string(),
    room_id: z.string().nullable(),
    lang: z.string(),
    notice: z.string(),
    segments: z.array(
      z.object({
        speaker: z.string().nullable(),
        src_lang: z.string().nullable(),
        untrusted_content: z.object({ text: z.string().nullable(), text_in_lang: z.string().nullable() }),
        at: z.string(),
      }),
    ),
  })
  .meta({ id: 'Transcript' });

export const PhoneNumber = z
  .object({
    id: z.string(),
    e164: z.string(),
    label: z.string().nullable(),
    status: z.literal('active'),
    shared: z.boolean(),
    default: z.boolean(),
  })
  .meta({ id: 'PhoneNumber' });

const VideoType = z.enum(['talk-neutral', 'talk-agree', 'idle-aside', 'idle-monitor', 'talk-explain', 'talk-question']);
export const Avatar = z
  .object({
    id: z.string(),
    name: z.string(),
    gender: z.enum(['female', 'male', 'other']).nullable(),
    age_band: z.enum(['25-35', '36-50', '51-65']).nullable(),
    style: z.enum(['formal', 'casual']).nullable(),
    poster_url: z.string().nullable(),
    variations: z.array(
      z.object({
        code: z.string(),
        kind: z.enum(['angle', 'scene']),
        photo_url: z.string().nullable(),
        video_types: z.array(VideoType),
        preview_urls: z.record(z.string(), z.string().nullable()),
      }),
    ),
    suggested_voices: z.record(z.string(), z.string()),
  })
  .meta({ id: 'Avatar' });

export const EVENT_TYPES = [
  'room.started', 'room.ended', 'room.participant_joined', 'room.participant_left',
  'session.started', 'session.ended',
  'meeting.created', 'meeting.canceled', 'meeting.updated',
  'booking.created', 'booking.rescheduled', 'booking.canceled',
  'transcript.ready', 'summary.ready',
  'call.blocked', 'call.ringing', 'call.answered', 'call.voicemail', 'call.completed', 'call.failed', 'call.ended',
  'voice.consent_completed', 'voice.ready', 'voice.failed',
  'usage.threshold', 'credential.expiring',
] as const;
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

export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z.string().max(255).describe('Required; any unique value up to 255 characters'),
});
