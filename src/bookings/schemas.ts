import { z } from 'zod';

// Shapes of booking links, slots and bookings (api.md: Event type, Slots, Booking).

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
