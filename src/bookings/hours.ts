// Working hours of a booking host: the operator's `--hours` flag, parsed into
// one range per weekday. Pure: no I/O.
//
// Format: items separated by commas (spaces around them optional), each
// `<day>[-<day>] HH:MM-HH:MM`, for example
//   "mon-fri 09:00-17:00"
//   "mon-fri 09:00-12:00, mon-fri 13:00-17:00, sat 10:00-12:00"
//   "fri-mon 22:00-24:00"   (a day range may wrap over the end of the week)
// Days are mon, tue, wed, thu, fri, sat, sun (full names such as "monday"
// are accepted too), in any case. Times are local wall-clock times; an end
// of 24:00 means midnight at the end of the day. Ranges never span midnight:
// a night shift is written as two items ("mon 22:00-24:00, tue 00:00-02:00").
// Nothing is merged: two ranges of the same weekday that overlap are an
// error; ranges that only touch ("09:00-12:00, 12:00-13:00") are fine and
// stay separate (each starts its own slot grid).

export type WorkingRange = {
  /** luxon weekday: 1 = Monday .. 7 = Sunday. */
  weekday: number;
  /** Minutes after local midnight, 0..1439. */
  start: number;
  /** Minutes after local midnight, > start and <= 1440 (24:00). */
  end: number;
};

export type WorkingHours = WorkingRange[];

export class HoursError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HoursError';
  }
}

const DAY_ABBR = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const DAY_FULL = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const DAY_LABEL = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

const EXAMPLE = "such as 'mon-fri 09:00-17:00' or 'mon-fri 09:00-12:00, mon-fri 13:00-17:00'";
const ITEM = /^([a-z]+)(?:\s*-\s*([a-z]+))?\s+([0-9:.]+)\s*-\s*([0-9:.]+)$/i;
const TIME = /^(\d{1,2}):(\d{2})$/;

function dayNumber(word: string, item: string): number {
  const w = word.toLowerCase();
  let i = DAY_ABBR.indexOf(w as (typeof DAY_ABBR)[number]);
  if (i < 0) i = DAY_FULL.indexOf(w as (typeof DAY_FULL)[number]);
  if (i < 0) throw new HoursError(`Bad day '${word}' in '${item}': use mon, tue, wed, thu, fri, sat or sun`);
  return i + 1;
}

function minutes(text: string, item: string, which: 'start' | 'end'): number {
  const m = TIME.exec(text);
  const bad = () => new HoursError(`Bad ${which} time '${text}' in '${item}': use HH:MM from 00:00 to ${which === 'end' ? '24:00' : '23:59'}`);
  if (!m) throw bad();
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) throw bad();
  if (h === 24 && which === 'start') {
    throw new HoursError(`Bad start time '${text}' in '${item}': 24:00 is only allowed as an end time`);
  }
  return h * 60 + min;
}

/** `540` → `"09:00"`, `1440` → `"24:00"`. */
export function formatTime(min: number): string {
  return `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
}

/**
 * Parses the `--hours` flag. Throws HoursError, naming the bad item, for an
 * empty spec or item, an unknown day, a bad time, an end not after its start,
 * and two ranges overlapping on the same weekday. The result is sorted by
 * weekday, then start.
 */
export function parseHours(spec: string): WorkingHours {
  if (spec.trim() === '') {
    throw new HoursError(`Working hours are empty: give at least one range, ${EXAMPLE}`);
  }
  const ranges: (WorkingRange & { item: string })[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') {
      throw new HoursError(`Empty item in working hours '${spec.trim()}': remove the extra comma`);
    }
    const m = ITEM.exec(item);
    if (!m) throw new HoursError(`Cannot read '${item}': expected <day>[-<day>] HH:MM-HH:MM, ${EXAMPLE}`);
    const first = dayNumber(m[1]!, item);
    const last = m[2] === undefined ? first : dayNumber(m[2], item);
    const start = minutes(m[3]!, item, 'start');
    const end = minutes(m[4]!, item, 'end');
    if (end <= start) {
      throw new HoursError(
        `Bad range '${item}': the end ${formatTime(end)} must be after the start ${formatTime(start)} (ranges cannot span midnight; split them at 24:00)`,
      );
    }
    // A day range may wrap: fri-mon is fri, sat, sun, mon.
    for (let d = first; ; d = (d % 7) + 1) {
      ranges.push({ weekday: d, start, end, item });
      if (d === last) break;
    }
  }
  ranges.sort((a, b) => a.weekday - b.weekday || a.start - b.start || a.end - b.end);
  for (let i = 1; i < ranges.length; i++) {
    const a = ranges[i - 1]!;
    const b = ranges[i]!;
    if (a.weekday === b.weekday && b.start < a.end) {
      const where = a.item === b.item ? `'${a.item}' is given twice` : `'${a.item}' and '${b.item}' overlap`;
      throw new HoursError(
        `${where} on ${DAY_LABEL[a.weekday - 1]} (${formatTime(b.start)}-${formatTime(Math.min(a.end, b.end))}); ranges of the same day must not overlap`,
      );
    }
  }
  return ranges.map(({ weekday, start, end }) => ({ weekday, start, end }));
}

/**
 * Canonical text of working hours, in the format parseHours reads: ranges
 * with the same times on consecutive days are written as one day range
 * (wrapping over the week end when that is shorter), ordered by first day,
 * then start time. `parseHours(formatHours(h))` gives back h (sorted).
 */
export function formatHours(h: WorkingHours): string {
  const groups = new Map<string, { start: number; end: number; days: Set<number> }>();
  for (const r of h) {
    const key = `${r.start}-${r.end}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { start: r.start, end: r.end, days: new Set() }));
    g.days.add(r.weekday);
  }
  const items: { day: number; start: number; text: string }[] = [];
  const next = (d: number) => (d % 7) + 1;
  const prev = (d: number) => ((d + 5) % 7) + 1;
  for (const g of groups.values()) {
    const times = `${formatTime(g.start)}-${formatTime(g.end)}`;
    if (g.days.size === 7) {
      items.push({ day: 1, start: g.start, text: `mon-sun ${times}` });
      continue;
    }
    for (const d of g.days) {
      if (g.days.has(prev(d))) continue; // not the first day of its run
      let last = d;
      while (g.days.has(next(last))) last = next(last);
      const days = last === d ? DAY_ABBR[d - 1] : `${DAY_ABBR[d - 1]}-${DAY_ABBR[last - 1]}`;
      items.push({ day: d, start: g.start, text: `${days} ${times}` });
    }
  }
  items.sort((a, b) => a.day - b.day || a.start - b.start);
  return items.map((i) => i.text).join(', ');
}
