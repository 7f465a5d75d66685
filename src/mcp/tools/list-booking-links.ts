import { z } from 'zod';
import { DataList } from '../../http/schemas.ts';
import { EventType } from '../../bookings/schemas.ts';
import { listEventTypes } from '../../bookings/links.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'list_booking_links',
  title: 'List booking links',
  description:
    "Lists your organization's booking links (event types): id, title, length in minutes, the public page and slug, and whether " +
    'it takes bookings. Use an id with find_slots to see free times, then book_slot. Mirrors GET /v1/event-types.',
  http: 'GET /v1/event-types',
  permission: 'calendar:read',
  write: false,
  input: z.object({}),
  output: DataList(EventType),
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (ctx) => listEventTypes(ctx.deps, ctx.cred),
  text: (r) =>
    r.data.length === 0
      ? 'No booking links.'
      : `${r.data.length} booking link${r.data.length === 1 ? '' : 's'}:\n${r.data
          .map((e) => `- ${e.id}: "${e.title}", ${e.duration_min} min, ${e.page}/${e.slug}${e.active ? '' : ' (paused)'}`)
          .join('\n')}\n${json(r)}`,
});
