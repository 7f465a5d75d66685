import { DateTime } from 'luxon';
import type { z } from 'zod';
import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { invalid } from '../errors.ts';
import { now, type Caller, type Services } from '../services.ts';
import { parseHours } from './hours.ts';
import { computeSlots, isOfferedSlot, slotsRange, type Busy } from './slots.ts';
import type { Slots as SlotsSchema } from './schemas.ts';
import { ownEventType, windowEnd, MAX_DURATION_MIN, NOTICE_MIN, WINDOW_DAYS, type EventTypeRow } from './links.ts';
import { iso } from './rows.ts';

type Slots = z.infer<typeof SlotsSchema>;

// What keeps a host busy (its bookings and its organization's other meetings)
// and the free slots a booking link offers around it (slots.ts computes them).

/**
 * What keeps a host busy between from and to: its active bookings (of every
 * link of its page) and its organization's meetings that are not bookings
 * (a booking's meeting is counted as the booking; another page's bookings
 * are not this host's). `bookings: false`: the meetings alone.
 */
export async function busyOf(db: Queryable, et: EventTypeRow, livemode: boolean, from: Date, to: Date, o: { bookings?: boolean } = {}): Promise<Busy[]> {
  const { rows } = await db.query<{ s: Date; e: Date }>(prepared(
    `SELECT start_at AS s, end_at AS e FROM bookings
      WHERE $6::boolean AND host = $1 AND livemode = $2 AND status IN ('confirmed', 'rescheduled')
        AND tstzrange(start_at, end_at) && tstzrange($3, $4)
     UNION ALL
     SELECT r.starts_at, r.starts_at + r.duration_min * interval '1 minute' FROM rooms r
      WHERE r.org_id = $5 AND r.livemode = $2 AND r.kind = 'meeting' AND r.status IN ('scheduled', 'live')
        AND r.starts_at < $4 AND r.starts_at > $3::timestamptz - interval '${MAX_DURATION_MIN} minutes'
        AND r.starts_at + r.duration_min * interval '1 minute' > $3
        AND NOT EXISTS (SELECT 1 FROM bookings b WHERE b.room_id = r.id)`,
    [et.page, livemode, from, to, et.org_id, o.bookings ?? true],
  ));
  return rows.map((r) => ({ start: r.s, end: r.e }));
}

/** The instants a range of the host's dates covers, with a day of margin each side. */
export function spanOf(tz: string, from: string, to: string): { from: Date; to: Date } {
  return {
    from: DateTime.fromISO(from, { zone: tz }).minus({ days: 1 }).toJSDate(),
    to: DateTime.fromISO(to, { zone: tz }).plus({ days: 2 }).toJSDate(),
  };
}

export function hoursOf(et: EventTypeRow) {
  return parseHours(et.hours);
}

/** Free slots of a booking link for a mode, over a validated range of the host's dates. */
export async function slotsOf(s: Services, db: Queryable, et: EventTypeRow, livemode: boolean, range: { from: string; to: string }): Promise<Slots> {
  const span = spanOf(et.tz, range.from, range.to);
  const busy = await busyOf(db, et, livemode, span.from, span.to);
  const notBefore = new Date(now(s).getTime() + NOTICE_MIN * 60_000);
  const out = computeSlots({ tz: et.tz, durationMin: et.duration_min, hours: hoursOf(et), from: range.from, to: range.to, busy, notBefore, notAfter: windowEnd(now(s)) });
  return { tz: et.tz, duration_min: et.duration_min, slots: out.slots, full_days: out.full_days };
}

/** GET /v1/event-types/{id}/slots. */
export async function getSlots(s: Services, cred: Caller, id: string, q: { from?: string; to?: string }): Promise<Slots> {
  const et = await ownEventType(s.pool, cred, id);
  return slotsOf(s, s.pool, et, cred.livemode, slotsRange(q, et.tz, now(s)));
}

/**
 * Checks that start is a slot the link offers: on its grid, in its working
 * hours, after the notice, clear of the host's meetings. Bookings are left
 * to the INSERT: one in the way is 409 slot_taken (taken meanwhile), not 400.
 */
export async function checkOffered(s: Services, db: Queryable, et: EventTypeRow, livemode: boolean, field: string, start: Date): Promise<void> {
  const notBefore = new Date(now(s).getTime() + NOTICE_MIN * 60_000);
  const day = 24 * 3600_000;
  const busy = await busyOf(db, et, livemode, new Date(start.getTime() - day), new Date(start.getTime() + 2 * day), { bookings: false });
  if (start.getTime() >= windowEnd(now(s)).getTime()) {
    throw invalid(field, `${iso(start)} is too far ahead: this booking link takes bookings up to ${WINDOW_DAYS} days ahead; list the free slots with its slots`);
  }
  if (!isOfferedSlot({ tz: et.tz, durationMin: et.duration_min, hours: hoursOf(et), notBefore, busy }, start)) {
    throw invalid(field, `${iso(start)} is not a free slot of this booking link (off its ${et.duration_min}-minute grid, outside its working hours, within the next ${NOTICE_MIN} minutes, or during a meeting of the host); list the free ones with its slots`);
  }
}
