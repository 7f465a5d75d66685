import type { z } from 'zod';
import type { Queryable } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';
import { ID_PATTERN } from '../ids.ts';
import { notFound } from '../errors.ts';
import type { Caller, Services } from '../services.ts';
import type { EventType as EventTypeSchema } from './schemas.ts';

type EventType = z.infer<typeof EventTypeSchema>;

// Booking links (api.md: Event type): a host's page and a link's slug, its
// meeting length, time zone, working hours and language; how far ahead and how
// soon a slot may be booked.

/** No slot starts sooner than this after now (minimum notice). */
export const NOTICE_MIN = 60;
/**
 * Nor later than this many days after now: the window the booking page
 * offers, and all a booking (by page or API) may take, so nobody can fill a
 * host's calendar years ahead. Calendly's and Cal.com's default is 60 days too.
 */
export const WINDOW_DAYS = 60;

/** The first instant no slot may start at or after: now + WINDOW_DAYS. */
export function windowEnd(at: Date): Date {
  return new Date(at.getTime() + WINDOW_DAYS * 86_400_000);
}
/** The longest meeting: a slot's neighbours within it can overlap it. */
export const MAX_DURATION_MIN = 720;

export type EventTypeRow = {
  id: string;
  org_id: string;
  page: string;
  slug: string;
  title: string;
  duration_min: number;
  tz: string;
  hours: string;
  active: boolean;
  lang: string;
};

export const ET_COLUMNS = 'id, org_id, page, slug, title, duration_min, tz, hours, active, lang';

export function bookingPageUrl(base: string, page: string, slug: string): string {
  return `${base}/book/${encodeURIComponent(page)}/${encodeURIComponent(slug)}`;
}

export function toEventType(base: string, r: EventTypeRow): EventType {
  return { id: r.id, title: r.title, duration_min: r.duration_min, page: r.page, slug: r.slug, url: bookingPageUrl(base, r.page, r.slug), active: r.active };
}

/** GET /v1/event-types: the organization's booking links. */
export async function listEventTypes(s: Services, cred: Caller): Promise<{ data: EventType[] }> {
  const { rows } = await s.pool.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE org_id = $1 ORDER BY created_at, id`, [cred.orgId]));
  return { data: rows.map((r) => toEventType(s.config.publicBaseUrl, r)) };
}

/** One of the caller's organization's booking links (404 otherwise). */
export async function ownEventType(db: Queryable, cred: Pick<Caller, 'orgId'>, id: string, field = 'id'): Promise<EventTypeRow> {
  if (!ID_PATTERN.test(id)) throw notFound(field === 'id' ? 'event type' : `event type (${field})`, id);
  const { rows } = await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE id = $1 AND org_id = $2`, [id, cred.orgId]));
  if (!rows[0]) throw notFound(field === 'id' ? 'event type' : `event type (${field})`, id);
  return rows[0];
}

/** A booking link by its page and slug, anyone's (the public link). */
export async function publicEventType(db: Queryable, page: string, slug: string): Promise<EventTypeRow | null> {
  const { rows } = await db.query<EventTypeRow>(prepared(`SELECT ${ET_COLUMNS} FROM event_types WHERE page = $1 AND slug = $2`, [page, slug]));
  return rows[0] ?? null;
}
