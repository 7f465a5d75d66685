import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { Slots, SlotsQuery } from '../../bookings/schemas.ts';
import { getSlots } from '../../bookings/busy.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'find_slots',
  title: 'Find free slots',
  description:
    "Lists the free start times of a booking link between two dates of the host's time zone (from and to inclusive, YYYY-MM-DD, " +
    'at most 62 days; default the next 7 days). Times are ISO 8601 with the host\'s offset; pass one unchanged as start to book_slot. ' +
    'Mirrors GET /v1/event-types/{id}/slots.',
  http: 'GET /v1/event-types/{id}/slots',
  permission: 'calendar:read',
  write: false,
  input: z.object({
    event_type_id: PathId.describe('The booking link (et_...), from list_booking_links'),
    ...SlotsQuery.shape,
  }),
  output: Slots,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (ctx, { event_type_id, ...q }) => getSlots(ctx.deps, ctx.cred, event_type_id, q),
  text: (r) =>
    `${r.slots.length} free slot${r.slots.length === 1 ? '' : 's'} of ${r.duration_min} min (host time zone ${r.tz})` +
    `${r.full_days.length ? `; fully booked: ${r.full_days.join(', ')}` : ''}.\n${json(r)}`,
});
