import { DateTime } from 'luxon';
import type { Client, Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import type { Services } from '../services.ts';
import { queueMail, mailFrom } from '../mail/mail.ts';
import { meetingCalendar } from '../mail/calendar.ts';
import { joinUrl, linkSigningKey } from '../rooms/join-links.ts';
import { roomUrl, type RoomRow } from '../rooms/rooms.ts';

// The mails of a meeting: the invitation (with its calendar file, METHOD
// REQUEST), the update when its time moves (REQUEST again, same UID, higher
// SEQUENCE), the cancellation (METHOD CANCEL, same UID) and the reminders 24
// hours and 15 minutes before. One message per guest, each with the guest's
// own join link (a private room needs one; it is prefilled with the guest's
// name and languages when a booking gave them), written to the mail outbox
// in the caller's transaction (mail/mail.ts: test-mode mail never leaves it).
// Texts are in English.

export type MeetingMailKind = 'invitation' | 'update' | 'cancellation' | 'reminder_24h' | 'reminder_15m';

export type Guest = { email: string; name?: string; speak?: string; hear?: string; tz?: string };

export type MeetingForMail = {
  orgId: string;
  room: RoomRow & { tz: string; sequence: number };
  guests: Guest[];
  /** Who invites: the organization's owner, else the service's own address. */
  organizer?: { name: string; email: string };
};

/** The calendar UID of a meeting: stable for its whole life, whatever changes. */
export function meetingUid(roomId: string, base: string): string {
  return `${roomId}@${new URL(base).hostname || 'tolk'}`;
}

function when(start: Date, tz: string): string {
  return `${DateTime.fromJSDate(start, { zone: tz }).toFormat("cccc d LLLL yyyy, HH:mm")} (${tz})`;
}

/** The address part of a From header such as `Tolk <no-reply@example.com>`. */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from;
}

/** Who invites to an organization's meetings: its owner, else the service's own address. */
export async function organizerOf(s: Services, db: Queryable, orgId: string): Promise<{ name: string; email: string }> {
  const { rows } = await db.query(prepared(`SELECT name, owner_email FROM organizations WHERE id = $1`, [orgId]));
  const org = rows[0];
  return { name: org?.name ?? 'Tolk', email: org?.owner_email ?? addressOf(mailFrom(s.config)) };
}

function subjectOf(kind: MeetingMailKind, title: string, start: string): string {
  switch (kind) {
    case 'invitation': return `Invitation: ${title} @ ${start}`;
    case 'update': return `Updated invitation: ${title} @ ${start}`;
    case 'cancellation': return `Canceled: ${title} @ ${start}`;
    case 'reminder_24h': return `Reminder: ${title} tomorrow @ ${start}`;
    case 'reminder_15m': return `Starting in 15 minutes: ${title}`;
  }
}

export async function sendMeetingMail(s: Services, tx: Client, kind: MeetingMailKind, m: MeetingForMail): Promise<void> {
  if (m.guests.length === 0) return;
  const room = m.room;
  const start = room.starts_at!;
  const duration = room.duration_min ?? 30;
  const organizer = m.organizer ?? (await organizerOf(s, tx, m.orgId));
  const key = kind === 'cancellation' ? null : await linkSigningKey(tx);
  const base = s.config.publicBaseUrl;
  const title = room.title;
  const hostTime = when(start, room.tz);
  const utc = `${start.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  for (const g of m.guests) {
    const link = key
      ? joinUrl(base, key, room, { ...(g.name ? { name: g.name } : {}), ...(g.speak ? { speak: g.speak } : {}), ...(g.hear ? { hear: g.hear } : {}) })
      : roomUrl(base, room.id);
    const local = g.tz && g.tz !== room.tz ? `\nYour time: ${when(start, g.tz)}` : '';
    const lines = [
      kind === 'cancellation' ? `${organizer.name} canceled this meeting.` : `${organizer.name} invites you to a meeting with live translation.`,
      '',
      `${title}`,
      `When: ${hostTime}, ${duration} minutes${local}`,
      `In UTC: ${utc}`,
      ...(kind === 'cancellation' ? [] : ['', `Join: ${link}`, '', 'Each participant speaks and hears their own language.']),
    ];
    const ics = kind === 'reminder_24h' || kind === 'reminder_15m'
      ? undefined
      : {
        method: kind === 'cancellation' ? 'CANCEL' as const : 'REQUEST' as const,
        content: meetingCalendar({
          uid: meetingUid(room.id, base),
          sequence: room.sequence,
          method: kind === 'cancellation' ? 'CANCEL' : 'REQUEST',
          title,
          description: `${title}\nJoin: ${link}`,
          url: link,
          start,
          durationMin: duration,
          tz: room.tz,
          organizer,
          attendees: m.guests.map((a) => ({ email: a.email, ...(a.name ? { name: a.name } : {}) })),
          created: room.created_at,
        }),
      };
    await queueMail(s, tx, {
      orgId: m.orgId,
      livemode: room.livemode,
      to: g.email,
      subject: subjectOf(kind, title, hostTime),
      text: lines.join('\n'),
      ...(ics ? { ics } : {}),
    });
  }
}
