import type { Client, Queryable } from '../../db/pool.ts';
import { organizationOf } from '../../db/organizations.ts';
import type { MeetingGuest, Services } from '../../services.ts';
import { meetingCalendar } from './calendar.ts';
import { meetingMailText, type MeetingMailKind } from './mail-texts.ts';
import { joinUrl, linkSigningKey } from '../join-links.ts';
import { roomUrl, type RoomRow } from '../rooms.ts';

// The mails of a meeting: the invitation (with its calendar file, METHOD
// REQUEST), the update when its time moves (REQUEST again, same UID, higher
// SEQUENCE), the cancellation (METHOD CANCEL, same UID) and the reminders 24
// hours and 15 minutes before. One message per guest, each with the guest's
// own join link (a private room needs one; it is prefilled with the guest's
// name and languages when a booking gave them), written to the mail outbox
// in the caller's transaction (through the mail port, reactions.ts: test-mode
// mail never leaves it). Texts are in the guest's language where it is known (mail-texts.ts).

export type { MeetingMailKind };

/** Declared with the port the bookings invite their guests through (services.ts BookedMeetings). */
export type Guest = MeetingGuest;

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

/** The address part of a From header such as `Tolk <no-reply@example.com>`. */
function addressOf(from: string): string {
  return /<([^>]+)>/.exec(from)?.[1] ?? from;
}

/** Who invites to an organization's meetings: its owner, else the service's own address. */
export async function organizerOf(s: Services, db: Queryable, orgId: string): Promise<{ name: string; email: string }> {
  const org = await organizationOf(db, orgId);
  return { name: org?.name ?? 'Tolk', email: org?.ownerEmail ?? addressOf(s.reactions.mailFrom(s.config)) };
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
  for (const g of m.guests) {
    const link = key
      ? joinUrl(base, key, room, { ...(g.name ? { name: g.name } : {}), ...(g.speak ? { speak: g.speak } : {}), ...(g.hear ? { hear: g.hear } : {}), email: g.email })
      : roomUrl(base, room.id);
    const mail = meetingMailText({
      kind, locale: g.locale, organizer: organizer.name, title, start, durationMin: duration, tz: room.tz, guestTz: g.tz, link,
    });
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
    await s.reactions.queueMail(s, tx, {
      orgId: m.orgId,
      livemode: room.livemode,
      to: g.email,
      subject: mail.subject,
      text: mail.text,
      ...(ics ? { ics } : {}),
    });
  }
}
