import type { Queryable } from '../../db/pool.ts';
import { prepared } from '../../db/pool.ts';
import { transition, writeEvent } from '../../actors/store.ts';
import type { BookedMeeting, BookedMeetings } from '../../services.ts';
import { joinUrl, linkSigningKey } from '../join-links.ts';
import { roomUrl, toRoom } from '../rooms.ts';
import { meetingCalendar } from './calendar.ts';
import { meetingUid, organizerOf } from './invitations.ts';
import { armTimers, expiresAt, mailGuests, MEETING_COLUMNS, scheduleMeeting, type MeetingRow } from './meetings.ts';

// A booking's meeting as the bookings reach it (services.ts BookedMeetings,
// given to them by src/reactions.ts): they make, read, move and cancel it
// here, and never read or write a room themselves.

function booked(base: string, m: MeetingRow): BookedMeeting {
  return {
    id: m.id, orgId: m.org_id, status: m.status, title: m.title, startsAt: m.starts_at, durationMin: m.duration_min, tz: m.tz,
    sequence: m.sequence, invitees: m.invitees, createdAt: m.created_at, expiresAt: m.expires_at, url: roomUrl(base, m.id),
  };
}

async function rowOf(db: Queryable, roomId: string, lock = false): Promise<MeetingRow | undefined> {
  const { rows } = await db.query<MeetingRow>(prepared(`SELECT ${MEETING_COLUMNS} FROM rooms WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [roomId]));
  return rows[0];
}

export const BOOKED_MEETINGS: BookedMeetings = {
  async schedule(s, tx, host, m, guests) {
    // Private: its guests come in by their own join links, nobody by its bare address.
    const { row } = await scheduleMeeting(s, tx, { id: host.credentialId, orgId: host.orgId, livemode: host.livemode }, {
      title: m.title, starts_at: m.start.toISOString(), start: m.start, duration_min: m.durationMin, invitees: guests.map((g) => g.email),
      langs: m.langs, visibility: 'private', tz: m.tz,
    }, { guests });
    return booked(s.config.publicBaseUrl, { ...row, org_id: host.orgId, kind: 'meeting', tz: m.tz, sequence: 0 });
  },

  async read(s, db, roomId, opts) {
    const row = await rowOf(db, roomId, opts?.lock);
    return row && booked(s.config.publicBaseUrl, row);
  },

  async cancel(s, tx, roomId) {
    const base = s.config.publicBaseUrl;
    const t = await transition<MeetingRow>(tx, 'room', roomId, { type: 'CANCEL' }, {
      returning: MEETING_COLUMNS, objectFor: (row) => toRoom(base, row), set: (_after, before) => ({ sequence: before.sequence + 1 }),
    });
    if (t.changed) await mailGuests(s, tx, 'cancellation', t.row);
    return { changed: t.changed, meeting: booked(base, t.row) };
  },

  async move(s, tx, roomId, start, durationMin) {
    // Locked already by the booking's change (it locks the meeting's row before its own).
    const m = (await rowOf(tx, roomId))!;
    const sequence = m.sequence + 1;
    const expires = expiresAt(start, durationMin);
    await tx.query(prepared(`UPDATE rooms SET starts_at = $2, expires_at = $3, sequence = $4 WHERE id = $1`, [m.id, start, expires, sequence]));
    const moved: MeetingRow = { ...m, starts_at: start, expires_at: expires, sequence };
    await writeEvent(tx, { orgId: m.org_id, livemode: m.livemode }, 'meeting.updated', toRoom(s.config.publicBaseUrl, moved));
    await armTimers(s, tx, { id: m.id, start, durationMin: m.duration_min ?? durationMin, sequence });
    await mailGuests(s, tx, 'update', moved);
  },

  async guestLink(s, db, m, guest) {
    if (m.status !== 'scheduled' && m.status !== 'live') return m.url;
    const prefill = { name: guest.name, speak: guest.speak, ...(guest.hear ? { hear: guest.hear } : {}), ...(guest.email ? { email: guest.email } : {}) };
    return joinUrl(s.config.publicBaseUrl, await linkSigningKey(db), { id: m.id, expires_at: m.expiresAt }, prefill);
  },

  async calendar(s, db, m, file) {
    const organizer = await organizerOf(s, db, m.orgId);
    const guest = file.guest.email.toLowerCase();
    return meetingCalendar({
      uid: meetingUid(m.id, s.config.publicBaseUrl),
      sequence: m.sequence,
      method: file.method,
      title: m.title,
      description: `${m.title}\nJoin: ${file.link}`,
      url: file.link,
      start: file.start,
      durationMin: file.durationMin,
      tz: file.tz,
      organizer,
      attendees: m.invitees.map((email) => (email.toLowerCase() === guest ? { email, name: file.guest.name } : { email })),
      created: m.createdAt,
    });
  },
};
