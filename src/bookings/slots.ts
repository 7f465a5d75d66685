import { DateTime, IANAZone } from 'luxon';
import { invalid } from '../errors.ts';
import type { WorkingHours, WorkingRange } from './hours.ts';

// Free booking slots of a host (api.md: Slots; GET /v1/event-types/{id}/slots
// and POST /v1/bookings). Pure computation, no I/O.
//
// The grid is local wall-clock time in the host's zone: every working range
// of a date offers starts at its start, then every duration_min minutes, as
// long as start + duration fits in the range (wall-clock arithmetic), so a
// 09:00 slot is 09:00 local on both sides of a DST change. A wall time that
// does not exist (spring-forward gap) is skipped; a repeated one (fall-back)
// is offered once, at its first occurrence. A slot is the real-time interval
// [start, start + duration) and is free when it starts at or after notBefore
// and overlaps no busy interval (half-open, so back-to-back is fine).
//
// Speed: luxon's IANAZone.offset costs several microseconds (Intl), so the
// zone's offsets over the requested dates are probed once a day and each
// change located by bisection; every wall-time conversion after that is
// arithmetic. Busy intervals are sorted and merged once, and each candidate
// is checked by binary search.

export type Busy = { start: Date; end: Date };

export type SlotsInput = {
  /** IANA zone of the host. */
  tz: string;
  durationMin: number;
  hours: WorkingHours;
  /** yyyy-mm-dd, a date in the host's zone. */
  from: string;
  /** yyyy-mm-dd, inclusive. */
  to: string;
  /** Unsorted, may overlap. */
  busy: Busy[];
  /** No slot may start before this: now + minimum notice. */
  notBefore: Date;
  /** Nor at or after this (the booking window's end); none: no end. */
  notAfter?: Date;
};

const MIN = 60_000;
const DAY = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export { isValidZone } from '../time-zones.ts';

/**
 * The host's zone, or RangeError. create() caches the zone (and luxon its
 * Intl formatter): the host's zone is configuration, unlike the guest zones
 * isValidZone checks, which should not fill a cache.
 */
function hostZone(tz: string): IANAZone {
  const zone = IANAZone.create(tz);
  if (!zone.isValid || /^[+-]/.test(tz)) throw new RangeError(`unknown time zone '${tz}'`);
  return zone;
}

/** Midnight of a real calendar date yyyy-mm-dd as epoch ms in UTC, or null. */
function dateMs(s: string): number | null {
  const m = DATE.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return null;
  // setUTCFullYear, unlike Date.UTC, leaves years 0-99 alone.
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  if (dt.getUTCFullYear() !== y || dt.getUTCMonth() !== mo - 1 || dt.getUTCDate() !== d) return null;
  return dt.getTime();
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function isoInstant(ms: number): string {
  // Whole minutes in practice; keep seconds, drop milliseconds.
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

/**
 * The zone's UTC offset (minutes) as a function of epoch ms, valid over
 * [lo, hi]: probed once a day, each change located to the minute by
 * bisection. Assumes at most one offset change between two probes a day
 * apart, which holds for every zone's real rules.
 */
function offsetFunction(zone: IANAZone, lo: number, hi: number): (ts: number) => number {
  lo = Math.floor(lo / MIN) * MIN;
  const changes: number[] = []; // instants where the offset changes to offsets[i + 1]
  const offsets: number[] = [zone.offset(lo)];
  let prevT = lo;
  let prevO = offsets[0]!;
  for (let t = lo + DAY; ; t += DAY) {
    const at = Math.min(t, hi);
    const o = zone.offset(at);
    if (o !== prevO) {
      // offset(a) === prevO, offset(b) === o: find the first minute with o.
      let a = prevT;
      let b = Math.ceil(at / MIN) * MIN;
      while (b - a > MIN) {
        const mid = a + Math.floor((b - a) / 2 / MIN) * MIN;
        if (zone.offset(mid) === prevO) a = mid;
        else b = mid;
      }
      changes.push(b);
      offsets.push(o);
      prevO = o;
    }
    prevT = at;
    if (at >= hi) break;
  }
  if (changes.length === 0) {
    const only = offsets[0]!;
    return () => only;
  }
  return (ts) => {
    let i = 0;
    while (i < changes.length && ts >= changes[i]!) i++;
    return offsets[i]!;
  };
}

/**
 * Epoch ms of local wall time `wall` (wall-clock ms as if UTC), at its first
 * occurrence, or null when the wall time does not exist (spring-forward gap).
 * Same method as Temporal's GetPossibleInstantsFor: the offsets a day before
 * and after are the only candidates.
 */
function wallToUtc(offsetAt: (ts: number) => number, wall: number): number | null {
  const before = offsetAt(wall - DAY);
  const after = offsetAt(wall + DAY);
  let best: number | null = null;
  for (const o of before === after ? [before] : [before, after]) {
    const t = wall - o * MIN;
    if (offsetAt(t) === o && (best === null || t < best)) best = t;
  }
  return best;
}

type Interval = { s: number; e: number };

/** Busy intervals sorted and merged into disjoint ones; empty ones dropped. */
function mergeBusy(busy: Busy[]): Interval[] {
  const list: Interval[] = [];
  for (const b of busy) {
    const s = b.start.getTime();
    const e = b.end.getTime();
    if (Number.isNaN(s) || Number.isNaN(e)) throw new RangeError('busy interval with an invalid date');
    if (e > s) list.push({ s, e }); // an empty interval overlaps nothing
  }
  list.sort((a, b) => a.s - b.s);
  const out: Interval[] = [];
  for (const i of list) {
    const last = out[out.length - 1];
    if (last && i.s <= last.e) last.e = Math.max(last.e, i.e);
    else out.push({ ...i });
  }
  return out;
}

/** Whether [s, e) overlaps one of the disjoint, sorted intervals. */
function overlaps(merged: Interval[], s: number, e: number): boolean {
  // The last interval starting before e is the only one that can matter:
  // any earlier one ending after s would force it to start after s too.
  let lo = 0;
  let hi = merged.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (merged[mid]!.s < e) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && merged[lo - 1]!.e > s;
}

type DaySlots = { date: string; free: number[]; candidatesAfterNotice: number };

function validateCommon(i: Omit<SlotsInput, 'from' | 'to'>): { zone: IANAZone; notBefore: number; notAfter: number } {
  const zone = hostZone(i.tz);
  if (!Number.isInteger(i.durationMin) || i.durationMin <= 0) throw new RangeError(`duration must be a positive whole number of minutes, got ${i.durationMin}`);
  const notBefore = i.notBefore.getTime();
  if (Number.isNaN(notBefore)) throw new RangeError('notBefore is an invalid date');
  const notAfter = i.notAfter ? i.notAfter.getTime() : Infinity;
  if (Number.isNaN(notAfter)) throw new RangeError('notAfter is an invalid date');
  return { zone, notBefore, notAfter };
}

/** Free slots (epoch ms, ascending within a day) of each date from..to. */
function slotsByDay(i: Omit<SlotsInput, 'from' | 'to'>, fromMs: number, toMs: number): DaySlots[] {
  const { zone, notBefore, notAfter } = validateCommon(i);
  const days: DaySlots[] = [];
  if (toMs < fromMs) return days;
  const byWeekday: WorkingRange[][] = [[], [], [], [], [], [], [], []];
  for (const r of i.hours) byWeekday[r.weekday]?.push(r);
  for (const list of byWeekday) list.sort((a, b) => a.start - b.start);
  const busy = mergeBusy(i.busy);
  const dur = i.durationMin * MIN;
  // Wall times of the days map to within 14 h of themselves; wallToUtc looks a day further.
  const offsetAt = offsetFunction(zone, fromMs - 3 * DAY, toMs + 3 * DAY);
  for (let day = fromMs; day <= toMs; day += DAY) {
    const weekday = new Date(day).getUTCDay() || 7;
    const out: DaySlots = { date: isoDate(day), free: [], candidatesAfterNotice: 0 };
    for (const r of byWeekday[weekday]!) {
      for (let m = r.start; m + i.durationMin <= r.end; m += i.durationMin) {
        const t = wallToUtc(offsetAt, day + m * MIN);
        if (t === null || t < notBefore || t >= notAfter) continue;
        out.candidatesAfterNotice++;
        if (!overlaps(busy, t, t + dur)) out.free.push(t);
      }
    }
    days.push(out);
  }
  return days;
}

/**
 * Free slots of the dates from..to (inclusive, in the host's zone), as ISO
 * 8601 UTC instants without milliseconds, ascending; and full_days: the dates
 * that have working hours and at least one start at or after notBefore but
 * no free slot. Throws RangeError for an unknown zone, a duration that is not
 * a positive whole number, or dates that are not yyyy-mm-dd calendar dates
 * (callers validate user input first: slotsRange, isValidZone).
 */
export function computeSlots(i: SlotsInput): { slots: string[]; full_days: string[] } {
  const fromMs = dateMs(i.from);
  const toMs = dateMs(i.to);
  if (fromMs === null) throw new RangeError(`from is not a date yyyy-mm-dd: '${i.from}'`);
  if (toMs === null) throw new RangeError(`to is not a date yyyy-mm-dd: '${i.to}'`);
  const all: number[] = [];
  const full_days: string[] = [];
  for (const d of slotsByDay(i, fromMs, toMs)) {
    if (d.free.length === 0 && d.candidatesAfterNotice > 0) full_days.push(d.date);
    for (const t of d.free) all.push(t);
  }
  all.sort((a, b) => a - b);
  const slots: string[] = [];
  let last = NaN;
  for (const t of all) {
    if (t !== last) slots.push(isoInstant(t));
    last = t;
  }
  return { slots, full_days };
}

/**
 * Whether `start` is exactly (to the millisecond) one of the free slots
 * computeSlots lists. A slot starts and ends on the same local date (ranges
 * end by 24:00), so only the local date containing `start` is computed.
 */
export function isOfferedSlot(i: Omit<SlotsInput, 'from' | 'to'>, start: Date): boolean {
  const t = start.getTime();
  if (Number.isNaN(t)) return false;
  const { zone } = validateCommon(i);
  const local = DateTime.fromMillis(t, { zone });
  const day = Date.UTC(local.year, local.month - 1, local.day);
  return slotsByDay(i, day, day).some((d) => d.free.includes(t));
}

const MAX_DAYS = 62;
const LAST_DATE = Date.UTC(9999, 11, 31);
const FORM = 'expected a date YYYY-MM-DD, such as 2026-03-09';

function parseQueryDate(field: 'from' | 'to', v: string): number {
  if (!DATE.test(v)) throw invalid(field, `'${v.slice(0, 40)}' is not a date; ${FORM}`);
  const ms = dateMs(v);
  if (ms === null) throw invalid(field, `'${v}' is not a calendar date; ${FORM}`);
  return ms;
}

/**
 * Validates and completes the query of GET /v1/event-types/{id}/slots; dates
 * are in the host's zone `tz`, "today" is the host's date at `now`.
 * - from: given, or today. A `from` in the past is allowed (past days simply
 *   have no slots).
 * - to: given, or from + 6 days (a week). `to` before `from` is invalid.
 * - Only `to` given: from is today, so a `to` before today is invalid.
 * - At most 62 days, from and to included.
 * Throws invalid('from' | 'to', ...) (400 invalid_request).
 */
export function slotsRange(q: { from?: string; to?: string }, tz: string, now: Date): { from: string; to: string } {
  const today = DateTime.fromJSDate(now, { zone: hostZone(tz) });
  const todayMs = Date.UTC(today.year, today.month - 1, today.day);
  const fromMs = q.from === undefined ? todayMs : parseQueryDate('from', q.from);
  const toMs = q.to === undefined ? fromMs + 6 * DAY : parseQueryDate('to', q.to);
  if (toMs < fromMs) {
    throw invalid('to', q.from === undefined
      ? `'${q.to}' is before today (${isoDate(todayMs)}); give a date from today on`
      : `'${q.to}' is before from (${q.from}); to is the last day included`);
  }
  const days = (toMs - fromMs) / DAY + 1;
  if (days > MAX_DAYS) {
    throw invalid('to', `at most ${MAX_DAYS} days from ${isoDate(fromMs)} to ${isoDate(toMs)} (asked ${days}); the latest to is ${isoDate(fromMs + (MAX_DAYS - 1) * DAY)}`);
  }
  if (toMs > LAST_DATE) throw invalid('to', `must be at most 9999-12-31; ${FORM}`);
  return { from: isoDate(fromMs), to: isoDate(toMs) };
}
