import {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendar,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import { DateTime, IANAZone } from 'luxon';

// The calendar file of a meeting's invitation (METHOD:REQUEST) and of its
// cancellation (METHOD:CANCEL), RFC 5545 / iTIP (RFC 5546), made to open in
// Google Calendar, Outlook and Apple Calendar alike.
//
// Time: DTSTART/DTEND are the host's wall-clock time with TZID=<host's IANA
// zone>, and the file carries that zone's VTIMEZONE, so the exact instant
// (UTC) is defined by the file itself and calendars show the meeting in the
// host's zone as well as the reader's own. ical-generator has no time zone
// database; vtimezone() below writes the VTIMEZONE from luxon's (the
// platform's ICU) offsets: yearly RRULE observances when the zone follows an
// "n-th (or last) weekday of a month" rule, as Outlook expects, else one
// observance per transition around the meeting. A UTC host zone (or an
// unknown one) gives plain UTC times (DTSTART:...Z) and no VTIMEZONE, and so
// does a meeting that starts or ends in an hour the zone repeats (its
// wall-clock time would be ambiguous).
// DTSTAMP and CREATED are always UTC.

export type MeetingCalendar = {
  /** Stable per meeting: a later file with the same UID and a higher SEQUENCE replaces the event. */
  uid: string;
  sequence: number;
  method: 'REQUEST' | 'CANCEL';
  title: string;
  description: string;
  /** The room link; LOCATION and URL. */
  url: string;
  start: Date;
  durationMin: number;
  /** The host's IANA time zone. */
  tz: string;
  organizer: { name: string; email: string };
  attendees: Array<{ email: string; name?: string }>;
  created?: Date;
  /** DTSTAMP (default: now). */
  stamp?: Date;
};

export const CALENDAR_PRODID = '-//Tolk//Meetings//EN';

export function meetingCalendar(m: MeetingCalendar): string {
  const end = new Date(m.start.getTime() + m.durationMin * 60_000);
  let zone = calendarZone(m.tz);
  // A wall-clock time of the hour a zone repeats (clocks going back) is
  // ambiguous: RFC 5545 3.3.5 says it names the first pass, ical.js (for
  // one) reads the second. A meeting starting or ending in such an hour is
  // written in UTC instead.
  if (zone && (wallTimeIsRepeated(zone, m.start.getTime()) || wallTimeIsRepeated(zone, end.getTime()))) zone = null;
  const cal = new ICalCalendar({
    // ical-generator writes "PRODID:-" followed by this.
    prodId: CALENDAR_PRODID.slice(1),
    method: m.method === 'CANCEL' ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  // name null: the calendar itself has no zone, so DTSTAMP and CREATED stay
  // UTC (RFC 5545 requires it of DTSTAMP); the generator is called for the event's zone.
  if (zone) cal.timezone({ name: null, generator: (tz) => vtimezone(tz, m.start, end) });
  const event = cal.createEvent({
    id: m.uid,
    sequence: m.sequence,
    stamp: m.stamp ?? new Date(),
    // A luxon DateTime: with a zone set, ical-generator writes a native Date
    // in the process's local time, a DateTime in its zone.
    start: zone ? DateTime.fromJSDate(m.start, { zone }) : m.start,
    end: zone ? DateTime.fromJSDate(end, { zone }) : end,
    timezone: zone,
    summary: m.title,
    description: m.description,
    location: m.url,
    url: m.url,
    status: m.method === 'CANCEL' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: m.organizer.name, email: m.organizer.email },
    created: m.created ?? null,
  });
  for (const a of m.attendees) {
    event.createAttendee({
      email: a.email,
      name: a.name ?? a.email,
      role: ICalAttendeeRole.REQ,
      status: ICalAttendeeStatus.NEEDSACTION,
      rsvp: true,
    });
  }
  return cal.toString();
}

/** The zone to write DTSTART/DTEND in, or null for UTC (a UTC zone, or one the platform does not know). */
function calendarZone(tz: string): string | null {
  if (!tz || !IANAZone.isValidZone(tz)) return null;
  const zone = IANAZone.create(tz);
  if (/^(Etc\/)?(UTC|UCT|GMT|Zulu|Universal|Greenwich)$/i.test(tz) || zone.name === 'UTC') return null;
  return tz;
}

/** The wall-clock time of instant ms in tz is shown at another instant too (an hour the zone repeats). */
function wallTimeIsRepeated(tz: string, ms: number): boolean {
  const zone = IANAZone.create(tz);
  const wall = ms + zone.offset(ms) * 60_000;
  // Every instant showing that wall-clock time, under the offsets in force around it.
  const offsets = new Set([zone.offset(ms - DAY_MS), zone.offset(ms), zone.offset(ms + DAY_MS)]);
  return [...offsets].some((o) => wall - o * 60_000 !== ms && zone.offset(wall - o * 60_000) === o);
}

type Transition = { at: number; from: number; to: number };

const DAY_MS = 86_400_000;
const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/**
 * A VTIMEZONE for tz valid from the year before the meeting's start through
 * the year after its end. Offsets are in minutes east of UTC.
 */
export function vtimezone(tz: string, start: Date, end: Date): string {
  const zone = IANAZone.create(tz);
  const year = DateTime.fromJSDate(start, { zone }).year;
  const lastYear = Math.max(year, DateTime.fromJSDate(end, { zone }).year) + 1;
  const key = `${tz} ${year} ${lastYear}`;
  let v = vtimezones.get(key);
  if (v === undefined) {
    if (vtimezones.size >= 1000) vtimezones.clear();
    v = writeVtimezone(zone, tz, year, lastYear, start);
    vtimezones.set(key, v);
  }
  return v;
}

// Written once per zone and years in the process (each takes a few milliseconds).
const vtimezones = new Map<string, string>();

function writeVtimezone(zone: IANAZone, tz: string, year: number, lastYear: number, start: Date): string {
  const transitions = findTransitions(zone, Date.UTC(year - 1, 0, 1), Date.UTC(lastYear + 1, 0, 1));
  const lines = ['BEGIN:VTIMEZONE', `TZID:${tz}`];
  if (transitions.length === 0) {
    // No change around the meeting: one observance.
    const offset = zone.offset(start.getTime());
    lines.push('BEGIN:STANDARD', 'DTSTART:19700101T000000', `TZOFFSETFROM:${fmtOffset(offset)}`, `TZOFFSETTO:${fmtOffset(offset)}`, 'END:STANDARD');
  } else {
    const rules = yearlyRules(zone, transitions, year - 1, lastYear);
    if (rules) {
      for (const r of rules) {
        lines.push(
          `BEGIN:${r.kind}`,
          `DTSTART:${fmtLocal(r.first)}`,
          `TZOFFSETFROM:${fmtOffset(r.t.from)}`,
          `TZOFFSETTO:${fmtOffset(r.t.to)}`,
          `RRULE:FREQ=YEARLY;BYMONTH=${r.month};BYDAY=${r.nth}${WEEKDAYS[r.weekday - 1]}`,
          `END:${r.kind}`,
        );
      }
    } else {
      // Irregular rules: each transition as an observance of its own.
      for (const t of transitions) {
        const kind = observanceKind(zone, t);
        lines.push(`BEGIN:${kind}`, `DTSTART:${fmtLocal(t.at + t.from * 60_000)}`, `TZOFFSETFROM:${fmtOffset(t.from)}`, `TZOFFSETTO:${fmtOffset(t.to)}`, `END:${kind}`);
      }
    }
  }
  lines.push('END:VTIMEZONE');
  return lines.join('\r\n');
}

/** The offset changes of zone in [from, to), to the minute (zones change at most daily). */
function findTransitions(zone: IANAZone, from: number, to: number): Transition[] {
  const out: Transition[] = [];
  let prev = zone.offset(from);
  for (let t = from; t < to; t += DAY_MS) {
    const next = zone.offset(t + DAY_MS);
    if (next === prev) continue;
    // The offset changes within (t, t + 1 day]: bisect to the minute.
    let lo = t;
    let hi = t + DAY_MS;
    while (hi - lo > 60_000) {
      const mid = lo + Math.floor((hi - lo) / 120_000) * 60_000;
      if (zone.offset(mid) === prev) lo = mid;
      else hi = mid;
    }
    out.push({ at: hi, from: prev, to: next });
    prev = next;
  }
  return out;
}

/** DAYLIGHT for a change to a summer offset (above the lower of January's and July's), else STANDARD. */
function observanceKind(zone: IANAZone, t: Transition): 'DAYLIGHT' | 'STANDARD' {
  const y = new Date(t.at).getUTCFullYear();
  const standard = Math.min(zone.offset(Date.UTC(y, 0, 1)), zone.offset(Date.UTC(y, 6, 1)));
  return t.to > standard ? 'DAYLIGHT' : 'STANDARD';
}

type Rule = { kind: 'DAYLIGHT' | 'STANDARD'; t: Transition; month: number; weekday: number; nth: number; time: string; first: number };

/**
 * The transitions as yearly rules (n-th or last weekday of a month, at one
 * wall-clock time, between the same offsets), when every year from firstYear
 * to lastYear follows the same rules exactly; else null.
 */
function yearlyRules(zone: IANAZone, transitions: Transition[], firstYear: number, lastYear: number): Rule[] | null {
  const byYear = new Map<number, Transition[]>();
  for (const t of transitions) {
    const y = new Date(t.at + t.from * 60_000).getUTCFullYear();
    byYear.set(y, [...(byYear.get(y) ?? []), t]);
  }
  const model = byYear.get(firstYear);
  if (!model || model.length > 4) return null;
  const rules: Rule[] = [];
  for (const t of model) {
    const local = new Date(t.at + t.from * 60_000);
    const month = local.getUTCMonth() + 1;
    const day = local.getUTCDate();
    const weekday = ((local.getUTCDay() + 6) % 7) + 1;
    const time = local.toISOString().slice(11, 19);
    const daysInMonth = new Date(Date.UTC(local.getUTCFullYear(), month, 0)).getUTCDate();
    const candidates = [...(day <= 28 ? [Math.ceil(day / 7)] : []), ...(day + 7 > daysInMonth ? [-1] : [])];
    const nth = candidates.find((n) => {
      for (let y = firstYear; y <= lastYear; y++) {
        const d = nthWeekday(y, month, weekday, n);
        if (d === null) return false;
        const at = Date.parse(`${d}T${time}Z`) - t.from * 60_000;
        if (!(byYear.get(y) ?? []).some((u) => u.at === at && u.from === t.from && u.to === t.to)) return false;
      }
      return true;
    });
    if (nth === undefined) return null;
    rules.push({ kind: observanceKind(zone, t), t, month, weekday, nth, time, first: local.getTime() });
  }
  // Nothing but these rules' changes in any year.
  for (let y = firstYear; y <= lastYear; y++) if ((byYear.get(y) ?? []).length !== rules.length) return null;
  return rules;
}

/** YYYY-MM-DD of the n-th (-1: last) weekday (1 = Monday) of month in year, or null when there is none. */
function nthWeekday(year: number, month: number, weekday: number, n: number): string | null {
  let day: number;
  if (n > 0) {
    const firstWeekday = ((new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7) + 1;
    day = 1 + ((weekday - firstWeekday + 7) % 7) + (n - 1) * 7;
  } else {
    const last = new Date(Date.UTC(year, month, 0));
    const lastWeekday = ((last.getUTCDay() + 6) % 7) + 1;
    day = last.getUTCDate() - ((lastWeekday - weekday + 7) % 7);
  }
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1) return null;
  return d.toISOString().slice(0, 10);
}

/** A UTC-fields timestamp as an RFC 5545 local DATE-TIME (no Z). */
function fmtLocal(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');
}

/** Minutes east of UTC as an RFC 5545 UTC-OFFSET (+HHMM). */
function fmtOffset(min: number): string {
  const a = Math.abs(min);
  return `${min < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}${String(a % 60).padStart(2, '0')}`;
}
