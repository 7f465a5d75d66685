import { Booking, CreateBookingBody } from '../../bookings/schemas.ts';
import { bookSlot } from '../../bookings/bookings.ts';
import { bodyOf, defineTool, IdempotencyArg, json, once } from '../tool.ts';

export default defineTool({
  name: 'book_slot',
  title: 'Book a slot',
  description:
    'Books a free slot for a guest: a meeting room is created with the guest\'s languages and invitations with a calendar file are ' +
    'e-mailed to guest and host. Send event_type_id for your own link, or page and event for someone else\'s. start must be a slot ' +
    'from find_slots; slot_taken means it was booked meanwhile (find another). Mirrors POST /v1/bookings.',
  http: 'POST /v1/bookings',
  permission: 'calendar:write',
  write: true,
  input: CreateBookingBody.extend({ idempotency_key: IdempotencyArg }),
  output: Booking,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (ctx, { idempotency_key, ...body }, raw) =>
    bookSlot(ctx.deps, ctx.cred, body, (work) => once(ctx, idempotency_key, { method: 'POST', path: '/v1/bookings', body: bodyOf(raw, 'idempotency_key') }, work)),
  text: (b) => `Booked ${b.start} (booking ${b.id}).${b.room_url ? ` Room: ${b.room_url}.` : ''}${b.manage_url ? ` Manage: ${b.manage_url}.` : ''}\n${json(b)}`,
});
