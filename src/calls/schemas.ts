import { z } from 'zod';
import { Lang } from '../http/schemas.ts';

// Shapes of phone calls (api.md: Call, Call quote; a phone number is the catalog's, catalog/schemas.ts).

export const CallPurpose = z.enum(['transactional', 'scheduling', 'support', 'marketing']);

export const ConsentKind = z.enum(['existing_customer', 'prior_express', 'written']);

/** POST /v1/calls's body, and the place_call tool's input. */
export const PlaceCallBody = z.object({
  to: z.string().min(4).max(32).describe('The number to call, E.164: + then the country code and number'),
  from: z.string().max(32).optional().describe('Caller id: the id of one of your numbers (GET /v1/numbers); omitted or empty: your default'),
  purpose: CallPurpose,
  consent: z
    .object({ kind: ConsentKind, ref: z.string().max(200).optional().describe('Your reference to the consent record') })
    .optional()
    .describe('The consent the callee gave, when the purpose needs one there (GET /v1/calls/quote says)'),
  agent_lang: Lang.default('en').describe('The language the agent (your client) hears the callee in and speaks'),
  remote_lang: Lang.optional().describe("The callee's language; default: the destination country's main language"),
  voice_id: z.string().max(100).optional(),
  room_id: z.string().max(64).optional()
    .describe('A live room of yours (GET /v1/rooms): once answered and told it is a translated call, the callee is a participant of that room, speaking and hearing remote_lang, instead of talking to an AI agent'),
});

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
    sip_code: z.int().nullable().describe('The final SIP answer to the call\'s INVITE (200, 486, 487, 503...); null before there is one, or when none came (unreachable, blocked)'),
    sip_reason: z.string().nullable().describe('Its reason phrase, as the far end sent it'),
    // Additions of ours beside api.md's fields.
    from: z.string().describe('The caller id it was placed from (E.164)'),
    agent_lang: z.string().describe('The language the agent hears the callee in, and speaks'),
    remote_lang: z.string().describe('The language the callee hears and speaks'),
    session_id: z
      .string()
      .nullable()
      .describe('The call\'s conversation: listen with GET /v1/sessions/{id}/events, speak with POST /v1/sessions/{id}/say, hang up with its leave. Null for a blocked call'),
    room_id: z.string().nullable().describe('The room the callee joins once answered (POST /v1/calls room_id); null for a call with an AI agent'),
    blocked: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe('Why the policy table refused the call (status blocked): a stable code and one sentence; null otherwise'),
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
