import Holidays from 'date-holidays';
import { DateTime, IANAZone } from 'luxon';
import type { CallingWindow, Weekday } from './types.ts';

// Calling hours in the called party's local time, for the policy engine
// (evaluate.ts): public holidays (national and regional), a window's ranges on
// a local day (narrowed on a holiday's eve and on shortened dates), whether an
// instant is inside it in one zone, the window in words, and the next moment
// every window allows a call in every zone.

const holidayYears = new Map<string, Set<string>>();

/**
 * The public holidays of a year, as local dates (YYYY-MM-DD): the country's,
 * and with `regions`, those of each region too (`all`: every region of the
 * country's). Computed once per country, regions and year.
 */
function publicHolidays(country: string, year: number, regions: string[] | 'all' | undefined): Set<string> {
  const key = `${country}:${regions === undefined ? '' : regions === 'all' ? '*' : regions.join(',')}:${year}`;
  let days = holidayYears.get(key);
  if (!days) {
    const codes = regions === undefined ? [] : regions === 'all' ? Object.keys(new Holidays().getStates(country) ?? {}) : regions;
    days = new Set<string>();
    for (const table of [new Holidays(country), ...codes.map((r) => new Holidays(country, r))]) {
      for (const h of table.getHolidays(year)) if (h.type === 'public') days.add(h.date.slice(0, 10));
    }
    holidayYears.set(key, days);
  }
  return days;
}

type Ranges = Array<[number, number]>;

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));
const inMinutes = (ranges: Array<[string, string]>): Ranges => ranges.map(([a, b]) => [minutes(a), minutes(b)]);

/** The parts of ranges `a` that are also in ranges `b` (minutes of the day). */
function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = [];
  for (const [a0, a1] of a) {
    for (const [b0, b1] of b) {
      const from = Math.max(a0, b0);
      const to = Math.min(a1, b1);
      if (from < to) out.push([from, to]);
    }
  }
  return out;
}

/** The ranges a window allows on a local day, in minutes: the weekday's, narrowed on a holiday's eve and on its shortened dates. */
function rangesOn(w: CallingWindow, country: string, local: DateTime): Ranges {
  let ranges = inMinutes(w.days[local.weekday as Weekday] ?? []);
  if (w.eves) {
    const tomorrow = local.plus({ days: 1 });
    if (publicHolidays(country, tomorrow.year, w.holidayRegions).has(tomorrow.toISODate()!)) ranges = intersect(ranges, inMinutes(w.eves));
  }
  const shortened = w.dates?.[local.toFormat('MM-dd')];
  if (shortened) ranges = intersect(ranges, inMinutes(shortened));
  return ranges;
}

/** Why `at` is outside the window in one zone (null: inside). */
export function outside(w: CallingWindow, country: string, zone: string, at: DateTime): 'outside_calling_hours' | 'public_holiday' | null {
  const local = at.setZone(zone);
  if (w.noPublicHolidays && publicHolidays(country, local.year, w.holidayRegions).has(local.toISODate()!)) return 'public_holiday';
  const m = local.hour * 60 + local.minute;
  return rangesOn(w, country, local).some(([from, to]) => m >= from && m < to) ? null : 'outside_calling_hours';
}

const WEEKDAY_WORDS = ['', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];

/** The window in words: "08:00–21:00 every day", "Mondays 10:00–13:00 and 14:00–20:00, …". */
export function describe(w: CallingWindow): string {
  const groups = new Map<string, number[]>();
  for (let d = 1; d <= 7; d++) {
    const ranges = w.days[d as Weekday];
    if (!ranges || ranges.length === 0) continue;
    const text = ranges.map(([a, b]) => `${a}–${b}`).join(' and ');
    groups.set(text, [...(groups.get(text) ?? []), d]);
  }
  const parts = [...groups].map(([text, days]) => {
    if (days.length === 7) return `${text} every day`;
    if (days.join() === '1,2,3,4,5') return `${text} on weekdays`;
    return `${days.map((d) => WEEKDAY_WORDS[d]).join(', ')} ${text}`;
  });
  const holidays = w.noPublicHolidays
    ? `, not on public holidays${w.holidayRegions === 'all' ? ' (national or of any region)' : w.holidayRegions ? ` (national or of ${w.holidayRegions.join(', ')})` : ''}`
    : '';
  const eves = w.eves ? `; on the day before one, only ${w.eves.map(([a, b]) => `${a}–${b}`).join(' and ')}` : '';
  const dates = Object.entries(w.dates ?? {}).map(([d, r]) => `; on ${d} only ${r.map(([a, b]) => `${a}–${b}`).join(' and ')}`).join('');
  return `${parts.join('; ')}${holidays}${eves}${dates}`;
}

/** An allowed stretch of time (epoch ms, end excluded), and the zone whose local hours start it. */
type Interval = { start: number; end: number; zone: string };

/** Where a window allows calls in one zone, over `days` local days from the day of `now` there. */
function allowedIntervals(w: CallingWindow, country: string, zone: string, now: DateTime, days: number): Interval[] {
  const out: Interval[] = [];
  const first = now.setZone(zone).startOf('day');
  for (let d = 0; d < days; d++) {
    const date = first.plus({ days: d });
    if (w.noPublicHolidays && publicHolidays(country, date.year, w.holidayRegions).has(date.toISODate()!)) continue;
    for (const [from, to] of rangesOn(w, country, date)) {
      const start = date.set({ hour: Math.floor(from / 60), minute: from % 60 }).toMillis();
      const end = to >= 24 * 60 ? date.plus({ days: 1 }).toMillis() : date.set({ hour: Math.floor(to / 60), minute: to % 60 }).toMillis();
      if (end > start) out.push({ start, end, zone });
    }
  }
  return out;
}

/** The parts of two sorted interval lists that are in both; a part starts in the zone whose hours start it. */
function both(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const start = Math.max(x.start, y.start);
    const end = Math.min(x.end, y.end);
    if (start < end) out.push({ start, end, zone: x.start >= y.start ? x.zone : y.zone });
    if (x.end <= y.end) i++;
    else j++;
  }
  return out;
}

/**
 * Zones that keep the same UTC offset as another over the next `days` days
 * give the same hours: one of each kind is enough (the United States' 29
 * zones are 8 kinds). Offsets are compared every 6 hours.
 */
export function distinctZones(zones: string[], now: DateTime, days: number): string[] {
  if (zones.length <= 1) return zones;
  const seen = new Map<string, string>();
  const t0 = now.toMillis();
  for (const z of zones) {
    const zone = IANAZone.create(z);
    let key = '';
    for (let t = t0; t <= t0 + days * 86_400_000; t += 6 * 3_600_000) key += `${zone.offset(t)},`;
    if (!seen.has(key)) seen.set(key, z);
  }
  return [...seen.values()];
}

/**
 * The first moment after `now` when every window allows a call in every zone,
 * within 14 days (null when there is none): each window's allowed stretches
 * in each zone, intersected. A few days are looked at first, then more.
 */
export function nextAllowed(windows: CallingWindow[], country: string, zones: string[], now: DateTime): DateTime | null {
  const t = now.toMillis();
  for (const days of [3, 8, 16]) {
    const kinds = distinctZones(zones, now, days);
    let allowed: Interval[] | null = null;
    for (const w of windows) {
      for (const z of kinds) {
        const mine = allowedIntervals(w, country, z, now, days);
        allowed = allowed === null ? mine : both(allowed, mine);
      }
    }
    const next = (allowed ?? []).find((i) => i.start > t);
    if (next) return DateTime.fromMillis(next.start, { zone: next.zone });
  }
  return null;
}

