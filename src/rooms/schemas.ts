import { z } from 'zod';

// Shapes of rooms (api.md section 2: Room; meetings are rooms too).

export const Room = z
  .object({
    id: z.string(),
    url: z.url(),
    title: z.string(),
    visibility: z.enum(['private', 'public']),
    status: z.enum(['scheduled', 'live', 'ended', 'canceled']).describe('canceled: a meeting canceled before it started (DELETE /v1/meetings/{id})'),
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

export const JoinLink = z.object({ url: z.url(), room_id: z.string() }).meta({ id: 'JoinLink' });

