import { z } from 'zod';
import { DateOnly, Email, Lang, OneLine } from '../http/schemas.ts';

// Shapes of booking links, slots and bookings (api.md: Event type, Slots,
// Booking), and what asks for them (the endpoints' and the tools' input).

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

/** GET /v1/event-types/{id}/slots and find_slots: dates of the host's time zone. */
export const SlotsQuery = z.object({ from: DateOnly.optional(), to: DateOnly.optional() });

const Answer = z.union([z.string().max(2000), z.number(), z.boolean(), z.null()]);

/** POST /v1/bookings and book_slot. */
export const CreateBookingBody = z.object({
  event_type_id: z.string().max(100).optional().describe('Your own booking link'),
  page: z.string().max(100).optional().describe("Another organization's booking page (with event)"),
  event: z.string().max(100).optional().describe('The event slug on that page'),
  start: z.iso.datetime({ offset: true }).describe('A free slot (GET /v1/event-types/{id}/slots), ISO 8601'),
  guest: z.object({
    name: OneLine((s) => s.min(1).max(80)),
    email: Email,
    speak: Lang,
    hear: Lang.optional(),
    tz: z.string().max(64).default('UTC'),
    locale: z.string().max(8).default('en'),
  }),
  answers: z.record(z.string().max(100), Answer).refine((o) => Object.keys(o).length <= 50, 'at most 50 answers').optional(),
});
