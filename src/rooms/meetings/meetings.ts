import type { Client } from '../../db/pool.ts';
import { prepared, withTx } from '../../db/pool.ts';
import { ID_PATTERN, newId } from '../../ids.ts';
import { ApiError, invalid, notFound } from '../../errors.ts';
import { createPersistedActor, transition } from '../../actors/store.ts';
import { inTx } from '../../jobs/in-tx.ts';
import { now, type Caller, type Services } from '../../services.ts';
import { assertLanguagesAllowed } from '../../restrictions.ts';
import { toRoom, ROOM_COLUMNS, type RoomRow } from '../rooms.ts';
import type { Room } from '../schemas.ts';
import { sendMeetingMail, type Guest, type MeetingMailKind } from './invitations.ts';

// Meetings (api.md: Room as meeting, POST/GET/DELETE /v1/meetings, the room
// state table): a meeting is a room of kind 'meeting' whose actor
// (machines/room.ts) starts `scheduled`. Its timers are pg-boss jobs written
// in the transaction that sets them (XState does not re-arm `after` timers
// when a snapshot is restored):
// - start, at starts_at: START (`live`, room.started and meeting.updated);
// - end, at starts_at + duration + END_GRACE_MIN: END expired (`ended`);
//   also the room's expires_at, so the minute sweep of rooms/jobs.ts ends it
//   should the job be lost;
// - reminders to the invitees 24 hours and 15 minutes before, each only when
//   that moment is still ahead when the timers are set.
// Every timer carries the meeting's calendar sequence: a meeting moved since
// (a rescheduled booking) has a higher one, and the old timer does nothing.

/** How long a meeting's room stays open after its planned end (our choice: people overrun). */
export const END_GRACE_MIN = 15;
/** Reminders before starts_at, in minutes. */
export const REMINDERS = [
  { kind: 'remind_24h', before: 24 * 60 },
  { kind: 'remind_15m', before: 15 },
] as const;
export const MEETING_TIMER_QUEUE = 'meeting-timer';
/** A starts_at this far in the past still counts as now (clocks of clients and servers differ). */
const PAST_TOLERANCE_MS = 30_000;
/** The furthest a meeting can be planned. */
const MAX_AHEAD_MS = 3 * 366 * 24 * 3600_000;

export type TimerKind = 'start' | 'end' | (typeof REMINDERS)[number]['kind'];
export type TimerJob = { roomId: string; sequence: number; kind: TimerKind };

export type ScheduleInput = {
  title: string;
  starts_at: string;
  duration_min: number;
  invitees: string[];
  langs: string[];
  visibility: 'private' | 'public';
  tz?: string;
};

/** When a meeting's room ends (its end timer, its expires_at): its planned end and the grace period. */
export function expiresAt(start: Date, durationMin: number): Date {
  return new Date(start.getTime() + (durationMin + END_GRACE_MIN) * 60_000);
}

/**
 * The meeting's timers, as pg-boss jobs in tx: one statement for them all.
 * Times are on the service clock (Services.clock), turned into this
 * machine's time for pg-boss.
 */
export async function armTimers(s: Services, tx: Client, m: { id: string; start: Date; durationMin: number; sequence: number }): Promise<void> {
  const at = now(s).getTime();
  const offset = Date.now() - at;
  const job = (kind: TimerKind, when: number) => ({
    data: { roomId: m.id, sequence: m.sequence, kind } satisfies TimerJob,
    startAfter: new Date(Math.max(when, at) + offset),
  });
  const jobs = [job('start', m.start.getTime()), job('end', expiresAt(m.start, m.durationMin).getTime())];
  for (const r of REMINDERS) {
    const when = m.start.getTime() - r.before * 60_000;
    if (when > at) jobs.push(job(r.kind, when));
  }
  await s.boss.insert(MEETING_TIMER_QUEUE, jobs, inTx(tx));
}

/** Checks starts_at: an offset is required by the schema; not in the past, not absurdly far. */
export function checkStart(s: Services, field: string, startsAt: string): Date {
  const start = new Date(startsAt);
  if (Number.isNaN(start.getTime())) throw invalid(field, 'is not a date and time');
  const t = now(s).getTime();
  if (start.getTime() < t - PAST_TOLERANCE_MS) throw invalid(field, `is in the past (now is ${new Date(t).toISOString()})`);
  if (start.getTime() > t + MAX_AHEAD_MS) throw invalid(field, 'is more than 3 years ahead');
  return start;
}

/** Invitee addresses once each (case-insensitively), in the order given. */
function uniqueEmails(list: string[]): string[] {
  const seen = new Set<string>();
  return list.filter((e) => {
    const k = e.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type NewMeeting = {
  room: Room;
  row: RoomRow;
};

/**
 * Creates a meeting in tx: the room and its actor (SCHEDULE: meeting.created),
 * its timers, and the invitations. Bookings call it with their own guest
 * details (`guests`: who is invited, with their prefilled names and languages).
 */
export async function scheduleMeeting(
  s: Services,
  tx: Client,
  cred: Pick<Caller, 'id' | 'orgId' | 'livemode'>,
  input: ScheduleInput & { start: Date },
  opts: { guests?: Guest[]; organizer?: { name: string; email: string } } = {},
): Promise<NewMeeting> {
  const id = newId('room');
  const created = now(s);
  const invitees = uniqueEmails(input.invitees);
  const tz = input.tz ?? 'UTC';
  const row: RoomRow = {
    id, title: input.title, visibility: input.visibility, status: 'scheduled', created_at: created,
    expires_at: expiresAt(input.start, input.duration_min), starts_at: input.start, duration_min: input.duration_min,
    invitees, langs: input.langs, livemode: cred.livemode,
  };
  const room = toRoom(s.config.publicBaseUrl, row);
  await createPersistedActor(tx, {
    id,
    machine: 'room',
    owner: { orgId: cred.orgId, livemode: cred.livemode },
    event: { type: 'SCHEDULE' },
    objectFor: () => room,
    row: {
      id, org_id: cred.orgId, livemode: cred.livemode, credential_id: cred.id, kind: 'meeting', title: input.title,
      visibility: input.visibility, langs: input.langs, invitees, created_at: created, expires_at: row.expires_at,
      starts_at: input.start, duration_min: input.duration_min, tz, sequence: 0,
    },
  });
  await armTimers(s, tx, { id, start: input.start, durationMin: input.duration_min, sequence: 0 });
  const guests = opts.guests ?? invitees.map((email) => ({ email }));
  await sendMeetingMail(s, tx, 'invitation', { orgId: cred.orgId, room: { ...row, tz, sequence: 0 }, guests, organizer: opts.organizer });
  return { room, row };
}

/** POST /v1/meetings. */
export async function createMeeting(s: Services, tx: Client, cred: Caller, input: ScheduleInput): Promise<Room> {
  assertLanguagesAllowed(cred, 'langs', input.langs);
  const start = checkStart(s, 'starts_at', input.starts_at);
  return (await scheduleMeeting(s, tx, cred, { ...input, start })).room;
}

/** A bound of GET /v1/meetings: an ISO 8601 date and time with its offset, or a date (00:00 UTC). */
function bound(field: string, v: string | undefined): Date | null {
  if (v === undefined) return null;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v;
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(date);
  const d = new Date(date);
  // A date the calendar does not have (2026-02-30) is rolled over by Date: compare it back.
  if (!ok || Number.isNaN(d.getTime()) || (date !== v && d.toISOString().slice(0, 10) !== v)) {
    throw invalid(field, 'must be an ISO 8601 date and time with an offset, such as 2026-12-01T09:00:00Z, or a date such as 2026-12-01');
  }
  return d;
}

/**
 * GET /v1/meetings: the meetings of the caller's organization and mode,
 * ordered by start time, ascending; `from` inclusive, `to` exclusive, both
 * on starts_at; without them, every meeting (canceled and ended ones too:
 * their status says so).
 */
export async function listMeetings(s: Services, cred: Caller, q: { from?: string; to?: string; limit: number }): Promise<{ data: Room[] }> {
  const from = bound('from', q.from);
  const to = bound('to', q.to);
  if (from && to && to.getTime() <= from.getTime()) throw invalid('to', 'must be after from');
  const { rows } = await s.pool.query<RoomRow>(prepared(
    `SELECT ${ROOM_COLUMNS} FROM rooms
      WHERE org_id = $1 AND livemode = $2 AND kind = 'meeting'
        AND ($3::timestamptz IS NULL OR starts_at >= $3) AND ($4::timestamptz IS NULL OR starts_at < $4)
      ORDER BY starts_at, id LIMIT $5`,
    [cred.orgId, cred.livemode, from, to, q.limit],
  ));
  return { data: rows.map((r) => toRoom(s.config.publicBaseUrl, r)) };
}

export type MeetingRow = RoomRow & { org_id: string; kind: string; tz: string | null; sequence: number };
// Spelled out, not built from ROOM_COLUMNS at load time: rooms.ts and this module import each other.
export const MEETING_COLUMNS = 'id, title, visibility, status, created_at, expires_at, starts_at, duration_min, invitees, langs, livemode, org_id, kind, tz, sequence';

/** The guests of a meeting's mails: a booking's guest (with name and languages) and host, or the invitees. */
async function guestsOf(tx: Client, m: MeetingRow) {
  const { rows } = await tx.query(prepared(
    `SELECT guest_email, guest_name, guest_speak, guest_hear, guest_tz, guest_locale FROM bookings WHERE room_id = $1 ORDER BY created_at LIMIT 1`,
    [m.id],
  ));
  const b = rows[0];
  return m.invitees.map((email) =>
    b && email.toLowerCase() === String(b.guest_email).toLowerCase()
      ? { email, name: b.guest_name as string, speak: b.guest_speak as string, hear: (b.guest_hear as string | null) ?? undefined, tz: b.guest_tz as string, locale: b.guest_locale as string }
      : { email });
}

/** Mails to a meeting's guests, as it is now (after a change: its new sequence). */
export async function mailGuests(s: Services, tx: Client, kind: MeetingMailKind, m: MeetingRow): Promise<void> {
  await sendMeetingMail(s, tx, kind, { orgId: m.org_id, room: { ...m, tz: m.tz ?? 'UTC' }, guests: await guestsOf(tx, m) });
}

/**
 * DELETE /v1/meetings/{id}: cancels a scheduled meeting (CANCEL: `canceled`,
 * meeting.canceled; a booking made on it is canceled too), raises its
 * calendar sequence and tells the invitees (METHOD:CANCEL, same UID).
 * Canceling a canceled meeting returns it unchanged; a meeting that has
 * started or ended can no longer be canceled (409 conflict).
 */
export async function cancelMeeting(s: Services, cred: Caller, id: string): Promise<Room> {
  if (!ID_PATTERN.test(id)) throw notFound('meeting', id);
  return withTx(s.pool, async (tx) => {
    const { rows } = await tx.query(prepared(`SELECT org_id, livemode, kind FROM rooms WHERE id = $1`, [id]));
    const r = rows[0];
    if (!r || r.org_id !== cred.orgId || r.livemode !== cred.livemode || r.kind !== 'meeting') throw notFound('meeting', id);
    const base = s.config.publicBaseUrl;
    const t = await transition<MeetingRow>(tx, 'room', id, { type: 'CANCEL' }, {
      returning: MEETING_COLUMNS,
      objectFor: (row) => toRoom(base, row),
      set: (_after, before) => ({ sequence: before.sequence + 1 }),
    });
    if (!t.changed) {
      if (t.row.status === 'canceled') return toRoom(base, t.row);
      throw new ApiError('conflict', `meeting ${id} is ${t.row.status}; only a scheduled meeting can be canceled (DELETE /v1/rooms/${id} ends a live one)`);
    }
    // Its booking is canceled, what was said in it becomes its transcript (reactions.ts).
    await s.reactions.meetingCanceled(s, tx, id);
    await mailGuests(s, tx, 'cancellation', t.row);
    return toRoom(base, t.row);
  });
}

/** A meeting timer fired (MEETING_TIMER_QUEUE). */
export async function fireTimer(s: Services, job: TimerJob): Promise<void> {
  await withTx(s.pool, async (tx) => {
    const { rows } = await tx.query<MeetingRow>(prepared(`SELECT ${MEETING_COLUMNS} FROM rooms WHERE id = $1 FOR UPDATE`, [job.roomId]));
    const m = rows[0];
    // Gone, or moved since this timer was set (its new timers will do it), or canceled.
    if (!m || m.sequence !== job.sequence) return;
    const base = s.config.publicBaseUrl;
    switch (job.kind) {
      case 'start':
        await transition<MeetingRow>(tx, 'room', m.id, { type: 'START' }, { returning: MEETING_COLUMNS, objectFor: (row) => toRoom(base, row) });
        return;
      case 'end': {
        const before = m.status;
        const t = await transition<MeetingRow>(tx, 'room', m.id, { type: 'END', reason: 'expired' }, {
          returning: MEETING_COLUMNS, objectFor: (row) => toRoom(base, row),
        });
        // As rooms.ts end() does: its sessions and people leave, its booking settles, its log becomes its transcript.
        if (t.changed) await s.reactions.roomEnded(s, tx, { id: m.id, kind: m.kind, started: before === 'live' });
        return;
      }
      default:
        if (m.status === 'scheduled') await mailGuests(s, tx, job.kind === 'remind_24h' ? 'reminder_24h' : 'reminder_15m', m);
    }
  });
}
