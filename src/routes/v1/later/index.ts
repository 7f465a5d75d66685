import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  Booking, Call, CallPurpose, CallQuote, ConsentKind, Email, IdParams, IdempotencyHeaders,
  Lang, Room, Session, SessionEvent, Slots, Transcript, TranscriptSummary, Voice,
} from '../../../http/schemas.ts';
import { registerPlaceholders, type Placeholder } from './placeholder.ts';
import {
  assertDestinationAllowed, assertLanguagesAllowed, assertNumberAllowed, assertVoiceAllowed, countryOf,
} from '../../../services/restrictions.ts';

const list = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });
const Limit = z.coerce.number().int().min(1).max(100).optional();
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const routes: Placeholder[] = [
  // Meetings and booking
  { method: 'GET', url: '/v1/meetings', tag: 'Meetings and booking', summary: 'List meetings by start time',
    config: { permission: 'calendar:read' },
    querystring: z.object({ from: z.string().max(40).optional(), to: z.string().max(40).optional(), limit: Limit }),
    response: { 200: list(Room) } },
  { method: 'POST', url: '/v1/meetings', tag: 'Meetings and booking', summary: 'Schedule a meeting',
    config: { permission: 'calendar:write', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      title: z.string().min(1).max(120),
      starts_at: z.iso.datetime({ offset: true }),
      duration_min: z.int().min(5).max(720).default(30),
      invitees: z.array(Email).max(100).default([]),
      langs: z.array(Lang).max(20).default([]),
      visibility: z.enum(['private', 'public']).default('private'),
    }),
    restrict: (cred, b) => assertLanguagesAllowed(cred, 'langs', b.langs ?? []),
    response: { 201: Room } },
  { method: 'DELETE', url: '/v1/meetings/:id', tag: 'Meetings and booking', summary: 'Cancel a meeting',
    config: { permission: 'calendar:write' }, params: IdParams, response: { 200: Room } },
  { method: 'GET', url: '/v1/event-types/:id/slots', tag: 'Meetings and booking', summary: 'Free slots of a booking link',
    config: { permission: 'calendar:read' }, params: IdParams,
    querystring: z.object({ from: z.string().regex(DATE, 'must be a date YYYY-MM-DD').optional(), to: z.string().regex(DATE, 'must be a date YYYY-MM-DD').optional() }),
    response: { 200: Slots } },
  { method: 'POST', url: '/v1/bookings', tag: 'Meetings and booking', summary: 'Book a slot for a guest',
    config: { permission: 'calendar:write', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      event_type_id: z.string().max(100).optional(),
      page: z.string().max(100).optional(),
      event: z.string().max(100).optional(),
      start: z.iso.datetime({ offset: true }),
      guest: z.object({
        name: z.string().min(1).max(80),
        email: Email,
        speak: Lang,
        hear: Lang.optional(),
        tz: z.string().max(64).default('UTC'),
        locale: z.string().max(8).default('en'),
      }),
      answers: z.record(z.string(), z.unknown()).optional(),
    }),
    restrict: (cred, b) => {
      assertLanguagesAllowed(cred, 'guest.speak', [b.guest?.speak]);
      assertLanguagesAllowed(cred, 'guest.hear', [b.guest?.hear]);
    },
    response: { 201: Booking } },

  // Voices
  { method: 'GET', url: '/v1/voices', tag: 'Voices', summary: "The organization's voices",
    config: { permission: 'voices:read' }, response: { 200: list(Voice) } },
  { method: 'POST', url: '/v1/voices', tag: 'Voices', summary: 'Clone a voice through the consent flow',
    config: { permission: 'voices:clone', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      name: z.string().min(1).max(60),
      language: Lang,
      person: z.object({ name: z.string().min(1).max(80), email: Email }),
    }),
    restrict: (cred, b) => assertLanguagesAllowed(cred, 'language', [b.language]),
    response: { 202: Voice } },
  { method: 'POST', url: '/v1/voices/generic', tag: 'Voices', summary: "Add a generic voice to the caller's voices",
    config: { permission: 'voices:write' },
    body: z.object({ voice_id: z.string().regex(/^generic_[0-9A-Za-z]{6,40}$/, 'must look like generic_XXXXXX') }),
    restrict: (cred, b) => assertVoiceAllowed(cred, 'voice_id', b.voice_id),
    response: { 200: Voice } },
  { method: 'GET', url: '/v1/voices/:id', tag: 'Voices', summary: 'Retrieve a voice with its consent status',
    config: { permission: 'voices:read' }, params: IdParams, response: { 200: Voice } },
  { method: 'POST', url: '/v1/test-helpers/voices/:id/complete-consent', tag: 'Voices', summary: 'Test mode: complete the consent as if recorded',
    config: { permission: 'voices:clone' }, params: IdParams, response: { 200: Voice } },

  // Phone calls
  { method: 'GET', url: '/v1/calls/quote', tag: 'Phone calls', summary: 'Quote a destination and purpose',
    config: { permission: 'calls:read' },
    querystring: z.object({ to: z.string().min(1).max(32), purpose: CallPurpose.optional(), consent: ConsentKind.optional(), from: z.string().max(32).optional() }),
    response: { 200: CallQuote } },
  { method: 'POST', url: '/v1/calls', tag: 'Phone calls', summary: 'Place a translated call as an AI agent',
    config: { permission: 'calls:dial', idempotent: true }, headers: IdempotencyHeaders,
    body: z.object({
      to: z.string().min(4).max(32),
      from: z.string().max(32).optional(),
      purpose: CallPurpose,
      consent: z.object({ kind: ConsentKind, ref: z.string().max(200).optional() }).optional(),
      agent_lang: Lang.default('en'),
      remote_lang: Lang.optional(),
      voice_id: z.string().max(100).optional(),
    }),
    restrict: (cred, b) => {
      assertDestinationAllowed(cred, 'to', countryOf(b.to));
      assertNumberAllowed(cred, 'from', b.from);
      assertLanguagesAllowed(cred, 'agent_lang', [b.agent_lang]);
      assertLanguagesAllowed(cred, 'remote_lang', [b.remote_lang]);
      assertVoiceAllowed(cred, 'voice_id', b.voice_id);
    },
    response: { 201: Call } },
  { method: 'GET', url: '/v1/calls', tag: 'Phone calls', summary: 'Calls placed by this credential, newest first',
    config: { permission: 'calls:read' }, response: { 200: list(Call) } },
  { method: 'GET', url: '/v1/calls/:id', tag: 'Phone calls', summary: 'Retrieve a call',
    config: { permission: 'calls:read' }, params: IdParams, response: { 200: Call } },
  { method: 'POST', url: '/v1/calls/:id/hangup', tag: 'Phone calls', summary: 'Hang up a call (idempotent)',
    config: { permission: 'calls:dial' }, params: IdParams, response: { 200: Call } },
];

export default function register(app: FastifyInstance) {
  registerPlaceholders(app, routes);
}
