import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateTime, IANAZone } from 'luxon';
import { HoursError, formatHours, parseHours, type WorkingHours } from '../../src/bookings/hours.ts';
import { computeSlots, isOfferedSlot, isValidZone, slotsRange, type Busy, type SlotsInput } from '../../src/bookings/slots.ts';
import { ApiError } from '../../src/errors.ts';

// Free booking slots (src/bookings/hours.ts, src/bookings/slots.ts): pure
// computation, no database. The grid is local wall-clock time in the host's
// zone, so the UTC instants below are what a guest's calendar would show.

const EPOCH = new Date(0);
const busy = (start: string, end: string): Busy => ({ start: new Date(start), end: new Date(end) });

function slots(tz: string, hours: string, from: string, to: string, more: Partial<SlotsInput> = {}) {
  return computeSlots({ tz, durationMin: 60, hours: parseHours(hours), from, to, busy: [], notBefore: EPOCH, ...more });
}

/** Local wall time of an ISO instant in a zone, as "yyyy-MM-dd HH:mm". */
function local(iso: string, tz: string): string {
  return DateTime.fromISO(iso, { zone: tz }).toFormat('yyyy-MM-dd HH:mm');
}

function hoursErr(spec: string): HoursError {
  try {
    parseHours(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(HoursError);
    return e as HoursError;
  }
  throw new Error(`parseHours accepted '${spec}'`);
}

describe('parseHours', () => {
  it('reads a weekday range into one range per day, in minutes', () => {
    expect(parseHours('mon-fri 09:00-17:00')).toEqual([1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: 540, end: 1020 })));
  });

  it('reads several items, in any case and spacing, sorted by weekday then start', () => {
    const h = parseHours('Mon-Fri 13:00-17:00,mon-FRI 09:00-12:00 ,  SAT 10:00-12:00');
    expect(h).toHaveLength(11);
    expect(h.filter((r) => r.weekday === 3)).toEqual([
      { weekday: 3, start: 540, end: 720 },
      { weekday: 3, start: 780, end: 1020 },
    ]);
    expect(h.at(-1)).toEqual({ weekday: 6, start: 600, end: 720 });
    expect(h.some((r) => r.weekday === 7)).toBe(false);
  });

  it('wraps a day range over the week end and allows 24:00 as an end', () => {
    expect(parseHours('fri-mon 22:00-24:00')).toEqual([1, 5, 6, 7].map((weekday) => ({ weekday, start: 1320, end: 1440 })));
  });

  it('accepts full day names, single days and ranges that only touch', () => {
    expect(parseHours('monday 08:30-11:00, mon 11:00-12:15, sunday 00:00-00:05')).toEqual([
      { weekday: 1, start: 510, end: 660 },
      { weekday: 1, start: 660, end: 735 },
      { weekday: 7, start: 0, end: 5 },
    ]);
  });

  it('rejects empty specs and empty items', () => {
    expect(hoursErr('').message).toMatch(/empty/i);
    expect(hoursErr('   ').message).toMatch(/empty/i);
    expect(hoursErr('mon 09:00-10:00,').message).toMatch(/empty item/i);
    expect(hoursErr('mon 09:00-10:00,, tue 09:00-10:00').message).toMatch(/empty item/i);
  });

  it('rejects items of the wrong shape, naming them', () => {
    for (const item of ['mon-fri', '09:00-17:00', 'mon-fri 09:00-17:00 extra', 'mon-fri 09:00 17:00', 'tue,thu 08:30-11:00']) {
      expect(hoursErr(item).message).toMatch(/expected <day>\[-<day>\] HH:MM-HH:MM/);
    }
    expect(hoursErr('mon-fri 9-17').message).toBe("Bad start time '9' in 'mon-fri 9-17': use HH:MM from 00:00 to 23:59");
    // "tue" alone is the bad item of "tue,thu ...".
    expect(hoursErr('tue,thu 08:30-11:00').message).toContain("'tue'");
  });

  it('rejects unknown days, naming the day and the item', () => {
    const e = hoursErr('mon-fri 09:00-12:00, mox-fri 13:00-17:00');
    expect(e.message).toContain("'mox'");
    expect(e.message).toContain("'mox-fri 13:00-17:00'");
    expect(hoursErr('mon-fry 09:00-17:00').message).toContain("'fry'");
  });

  it('rejects bad times, naming the time', () => {
    for (const [spec, time] of [
      ['mon 25:00-26:00', '25:00'],
      ['mon 09:60-10:00', '09:60'],
      ['mon 09:00-24:30', '24:30'],
      ['mon 09:00-10:0', '10:0'],
      ['mon 09.00-10:00', '09.00'],
    ] as const) {
      expect(hoursErr(spec).message).toContain(`'${time}'`);
    }
    expect(hoursErr('mon 24:00-24:00').message).toMatch(/24:00 is only allowed as an end/);
  });

  it('rejects an end not after its start', () => {
    expect(hoursErr('mon 17:00-09:00').message).toMatch(/'mon 17:00-09:00'.*end 09:00 must be after the start 17:00/);
    expect(hoursErr('mon 09:00-09:00').message).toMatch(/must be after/);
  });

  it('rejects ranges overlapping on the same weekday, saying which and where', () => {
    const e = hoursErr('mon-fri 09:00-12:00, wed 11:00-14:00');
    expect(e.message).toContain("'mon-fri 09:00-12:00' and 'wed 11:00-14:00' overlap on Wednesday (11:00-12:00)");
    expect(hoursErr('fri-mon 22:00-24:00, sun 23:00-23:30').message).toMatch(/overlap on Sunday \(23:00-23:30\)/);
    expect(hoursErr('mon 09:00-10:00, mon 09:00-10:00').message).toMatch(/given twice on Monday/);
    // Different days do not clash.
    expect(parseHours('mon 09:00-12:00, tue 11:00-14:00')).toHaveLength(2);
  });

  it('formats hours canonically, in a form parseHours reads back', () => {
    const spec = 'sat 10:00-12:00, fri-mon 22:00-24:00, mon-fri 13:00-17:00, mon-fri 09:00-12:00';
    const text = formatHours(parseHours(spec));
    expect(text).toBe('mon-fri 09:00-12:00, mon-fri 13:00-17:00, fri-mon 22:00-24:00, sat 10:00-12:00');
    expect(parseHours(text)).toEqual(parseHours(spec));
    expect(formatHours(parseHours('mon-sun 08:00-09:00'))).toBe('mon-sun 08:00-09:00');
    expect(formatHours(parseHours('sun 08:00-09:00, mon 08:00-09:00, wed 08:00-09:00'))).toBe('wed 08:00-09:00, sun-mon 08:00-09:00');
  });
});

describe('computeSlots across DST changes: a 09:00 slot stays 09:00 local', () => {
  // [zone, day before the change, day of the change, UTC 09:00 before, after, offset change in hours]
  const cases = [
    ['Europe/Lisbon', '2026-03-28', '2026-03-29', '2026-03-28T09:00:00Z', '2026-03-29T08:00:00Z', +1],
    ['Europe/Lisbon', '2026-10-24', '2026-10-25', '2026-10-24T08:00:00Z', '2026-10-25T09:00:00Z', -1],
    ['America/New_York', '2026-03-07', '2026-03-08', '2026-03-07T14:00:00Z', '2026-03-08T13:00:00Z', +1],
    ['America/New_York', '2026-10-31', '2026-11-01', '2026-10-31T13:00:00Z', '2026-11-01T14:00:00Z', -1],
    ['Australia/Sydney', '2026-04-04', '2026-04-05', '2026-04-03T22:00:00Z', '2026-04-04T23:00:00Z', -1],
    ['Australia/Sydney', '2026-10-03', '2026-10-04', '2026-10-02T23:00:00Z', '2026-10-03T22:00:00Z', +1],
  ] as const;

  for (const [tz, before, after, utcBefore, utcAfter, shift] of cases) {
    it(`${tz} ${after}`, () => {
      const r = slots(tz, 'mon-sun 09:00-10:00', before, after);
      expect(r.slots).toEqual([utcBefore, utcAfter]);
      expect(r.slots.map((s) => local(s, tz))).toEqual([`${before} 09:00`, `${after} 09:00`]);
      // A day apart in wall time, 24 h minus the offset change in real time.
      expect((Date.parse(utcAfter) - Date.parse(utcBefore)) / 3_600_000).toBe(24 - shift);
      expect(r.full_days).toEqual([]);
    });
  }
});

describe('computeSlots at the DST gaps and overlaps', () => {
  it('skips the wall times missing at spring forward (New York, 02:00 → 03:00)', () => {
    const hourly = slots('America/New_York', 'sun 00:00-04:00', '2026-03-08', '2026-03-08');
    expect(hourly.slots.map((s) => local(s, 'America/New_York'))).toEqual(['2026-03-08 00:00', '2026-03-08 01:00', '2026-03-08 03:00']);
    expect(hourly.slots).toEqual(['2026-03-08T05:00:00Z', '2026-03-08T06:00:00Z', '2026-03-08T07:00:00Z']);
    const halfHourly = slots('America/New_York', 'sun 00:00-04:00', '2026-03-08', '2026-03-08', { durationMin: 30 });
    expect(halfHourly.slots.map((s) => local(s, 'America/New_York').slice(11))).toEqual(['00:00', '00:30', '01:00', '01:30', '03:00', '03:30']);
    // The next Sunday has the full four hours.
    expect(slots('America/New_York', 'sun 00:00-04:00', '2026-03-15', '2026-03-15').slots).toHaveLength(4);
  });

  it('skips the missing hour in Lisbon (01:00 → 02:00) and Sydney (02:00 → 03:00)', () => {
    expect(slots('Europe/Lisbon', 'sun 00:00-04:00', '2026-03-29', '2026-03-29').slots).toEqual([
      '2026-03-29T00:00:00Z', // 00:00 WET
      '2026-03-29T01:00:00Z', // 02:00 WEST
      '2026-03-29T02:00:00Z', // 03:00 WEST
    ]);
    expect(slots('Australia/Sydney', 'sun 00:00-04:00', '2026-10-04', '2026-10-04').slots.map((s) => local(s, 'Australia/Sydney').slice(11))).toEqual([
      '00:00',
      '01:00',
      '03:00',
    ]);
  });

  it('offers a repeated wall time once, at its first occurrence (New York fall back)', () => {
    const r = slots('America/New_York', 'sun 00:00-04:00', '2026-11-01', '2026-11-01');
    // 01:00 EDT is 05:00Z; 01:00 EST (06:00Z) is not offered again.
    expect(r.slots).toEqual(['2026-11-01T04:00:00Z', '2026-11-01T05:00:00Z', '2026-11-01T07:00:00Z', '2026-11-01T08:00:00Z']);
    expect(r.slots.map((s) => local(s, 'America/New_York').slice(11))).toEqual(['00:00', '01:00', '02:00', '03:00']);
  });

  it('handles the half-hour DST change of Lord Howe Island', () => {
    // 2026-10-04 02:00 +10:30 jumps to 02:30 +11:00.
    const r = slots('Australia/Lord_Howe', 'sun 01:00-04:00', '2026-10-04', '2026-10-04', { durationMin: 30 });
    expect(r.slots.map((s) => local(s, 'Australia/Lord_Howe').slice(11))).toEqual(['01:00', '01:30', '02:30', '03:00', '03:30']);
  });
});

describe('computeSlots instants and calendar edges', () => {
  it('gives the instants of a +05:30 zone (Asia/Kolkata)', () => {
    const r = slots('Asia/Kolkata', 'mon-fri 09:00-10:30', '2026-03-09', '2026-03-09', { durationMin: 30 });
    expect(r.slots).toEqual(['2026-03-09T03:30:00Z', '2026-03-09T04:00:00Z', '2026-03-09T04:30:00Z']);
  });

  it('lists slots as UTC ISO 8601 with Z and no milliseconds, ascending', () => {
    const r = slots('Europe/Berlin', 'mon-fri 09:00-12:00', '2026-06-01', '2026-06-05', { durationMin: 45 });
    expect(r.slots).toHaveLength(5 * 4);
    for (const s of r.slots) expect(s).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
    expect([...r.slots].sort()).toEqual(r.slots);
    // 09:00, 09:45, 10:30, 11:15 (12:00 would end after the range).
    expect(r.slots.slice(0, 4)).toEqual(['2026-06-01T07:00:00Z', '2026-06-01T07:45:00Z', '2026-06-01T08:30:00Z', '2026-06-01T09:15:00Z']);
  });

  it('crosses a month end, skipping days without hours', () => {
    // Fri 27 Feb, Sat 28 Feb, Sun 1 Mar, Mon 2 Mar.
    const r = slots('Europe/Berlin', 'mon-fri 10:00-11:00', '2026-02-27', '2026-03-02');
    expect(r.slots).toEqual(['2026-02-27T09:00:00Z', '2026-03-02T09:00:00Z']);
    expect(r.full_days).toEqual([]);
  });

  it('crosses a year end, in zones on both sides of UTC', () => {
    expect(slots('Europe/Berlin', 'mon-sun 10:00-11:00', '2026-12-30', '2027-01-02').slots).toEqual([
      '2026-12-30T09:00:00Z',
      '2026-12-31T09:00:00Z',
      '2027-01-01T09:00:00Z',
      '2027-01-02T09:00:00Z',
    ]);
    // 20:00 on New Year's Eve in Los Angeles is already 2027 in UTC.
    const la = slots('America/Los_Angeles', 'mon-sun 20:00-21:00', '2026-12-30', '2027-01-02');
    expect(la.slots).toEqual(['2026-12-31T04:00:00Z', '2027-01-01T04:00:00Z', '2027-01-02T04:00:00Z', '2027-01-03T04:00:00Z']);
    // 08:00 on 1 January in Auckland is still 2026 in UTC.
    expect(slots('Pacific/Auckland', 'mon-sun 08:00-09:00', '2027-01-01', '2027-01-01').slots).toEqual(['2026-12-31T19:00:00Z']);
  });

  it('yields nothing for a range shorter than the duration, and for from after to', () => {
    expect(slots('UTC', 'mon-fri 09:00-09:45, mon-fri 10:00-11:00', '2026-03-09', '2026-03-09')).toEqual({ slots: ['2026-03-09T10:00:00Z'], full_days: [] });
    expect(slots('UTC', 'mon-fri 09:00-17:00', '2026-03-10', '2026-03-09')).toEqual({ slots: [], full_days: [] });
  });

  it('keeps the grid of each range: slots restart at the start of the afternoon range', () => {
    const r = slots('UTC', 'mon 09:00-12:00, mon 12:20-14:00', '2026-03-09', '2026-03-09', { durationMin: 50 });
    expect(r.slots.map((s) => s.slice(11, 16))).toEqual(['09:00', '09:50', '10:40', '12:20', '13:10']);
  });

  it('ends a slot at 24:00 at the latest', () => {
    const r = slots('UTC', 'fri-mon 22:00-24:00', '2026-03-06', '2026-03-09', { durationMin: 90 });
    expect(r.slots).toEqual(['2026-03-06T22:00:00Z', '2026-03-07T22:00:00Z', '2026-03-08T22:00:00Z', '2026-03-09T22:00:00Z']);
  });

  it('throws on an unknown zone, a bad duration or a bad date', () => {
    expect(() => slots('Mars/Olympus', 'mon 09:00-10:00', '2026-03-09', '2026-03-09')).toThrow(/time zone/);
    expect(() => slots('UTC', 'mon 09:00-10:00', '2026-03-09', '2026-03-09', { durationMin: 0 })).toThrow(/duration/);
    expect(() => slots('UTC', 'mon 09:00-10:00', '2026-02-30', '2026-03-09')).toThrow(/from/);
  });
});

describe('computeSlots with busy intervals and notice', () => {
  // Monday 2026-03-09 in New York is EDT (-4): 09:00 local is 13:00Z.
  const tz = 'America/New_York';
  const day = '2026-03-09';

  it('removes exactly the slots overlapping a busy interval; back-to-back stays free', () => {
    const r = slots(tz, 'mon 09:00-12:00', day, day, {
      durationMin: 30,
      busy: [
        busy('2026-03-09T15:30:00Z', '2026-03-09T16:00:00Z'), // exactly the 11:30 slot
        busy('2026-03-09T13:30:00Z', '2026-03-09T14:15:00Z'), // 09:30 and 10:00
        busy('2026-03-09T12:00:00Z', '2026-03-09T13:00:00Z'), // ends as 09:00 starts
        busy('2026-03-09T13:45:00Z', '2026-03-09T13:50:00Z'), // inside the first one
        busy('2026-03-09T14:30:00Z', '2026-03-09T14:30:00Z'), // empty: overlaps nothing
      ],
    });
    expect(r.slots.map((s) => local(s, tz).slice(11))).toEqual(['09:00', '10:30', '11:00']);
    expect(r.full_days).toEqual([]);
  });

  it('removes a slot a busy interval only grazes by a minute', () => {
    const r = slots(tz, 'mon 09:00-11:00', day, day, { busy: [busy('2026-03-09T13:59:00Z', '2026-03-09T14:01:00Z')] });
    expect(r.slots.map((s) => local(s, tz).slice(11))).toEqual([]);
    expect(r.full_days).toEqual([day]);
    // A millisecond into a slot is enough to take it.
    const ms = slots(tz, 'mon 09:00-11:00', day, day, { busy: [busy('2026-03-09T12:00:00Z', '2026-03-09T13:00:00.001Z')] });
    expect(ms.slots.map((s) => local(s, tz).slice(11))).toEqual(['10:00']);
    const before = slots(tz, 'mon 09:00-11:00', day, day, { busy: [busy('2026-03-09T13:59:59.999Z', '2026-03-09T16:00:00Z')] });
    expect(before.slots.map((s) => local(s, tz).slice(11))).toEqual([]);
  });

  it('cuts a day at notBefore; a slot starting exactly at notBefore is kept', () => {
    const at = (notBefore: string) =>
      slots(tz, 'mon 09:00-12:00', day, '2026-03-10', { durationMin: 30, notBefore: new Date(notBefore) }).slots.map((s) => local(s, tz).slice(11));
    expect(at('2026-03-09T14:40:00Z')).toEqual(['11:00', '11:30']); // 10:40 local
    expect(at('2026-03-09T15:00:00Z')).toEqual(['11:00', '11:30']);
    expect(at('2026-03-09T16:00:00Z')).toEqual([]);
  });

  it('lists fully booked days, not days without hours, past days or days within the notice', () => {
    const r = slots(tz, 'mon-fri 09:00-11:00', '2026-03-09', '2026-03-15', {
      notBefore: new Date('2026-03-10T12:00:00Z'), // Tuesday 08:00 local: Monday is past
      busy: [
        busy('2026-03-10T13:00:00Z', '2026-03-10T15:00:00Z'), // Tuesday, all of it
        busy('2026-03-12T13:00:00Z', '2026-03-12T14:00:00Z'), // Thursday, half
        busy('2026-03-13T14:00:00Z', '2026-03-13T15:00:00Z'), // Friday, both slots
        busy('2026-03-13T13:00:00Z', '2026-03-13T14:00:00Z'),
      ],
    });
    expect(r.full_days).toEqual(['2026-03-10', '2026-03-13']);
    expect(r.slots.map((s) => local(s, tz))).toEqual(['2026-03-11 09:00', '2026-03-11 10:00', '2026-03-12 10:00']);

    // Wednesday 10:30 local: Wednesday's slots are all within the notice, so it is not "full".
    const later = slots(tz, 'mon-fri 09:00-11:00', '2026-03-09', '2026-03-13', {
      notBefore: new Date('2026-03-11T14:30:00Z'),
      busy: [busy('2026-03-12T13:00:00Z', '2026-03-12T15:00:00Z')],
    });
    expect(later.full_days).toEqual(['2026-03-12']);
  });

  it('is fast: 31 days, 30-minute slots, 500 busy intervals well under 5 ms', () => {
    const rnd = fc.sample(fc.integer({ min: 0, max: 31 * 24 * 4 }), { numRuns: 500, seed: 42 });
    const start = Date.UTC(2026, 2, 1);
    const many = rnd.map((q) => ({ start: new Date(start + q * 900_000), end: new Date(start + q * 900_000 + 45 * 60_000) }));
    const input: SlotsInput = { tz, durationMin: 30, hours: parseHours('mon-fri 09:00-17:00'), from: '2026-03-01', to: '2026-03-31', busy: many, notBefore: EPOCH };
    for (let k = 0; k < 5; k++) computeSlots(input); // warm up (first use of Intl)
    const times: number[] = [];
    for (let k = 0; k < 21; k++) {
      const t0 = performance.now();
      computeSlots(input);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    expect(times[10]).toBeLessThan(5);
  });
});

describe('isOfferedSlot', () => {
  const tz = 'America/New_York';
  const base = {
    tz,
    durationMin: 30,
    hours: parseHours('mon-fri 09:00-12:00, sun 00:00-04:00'),
    busy: [busy('2026-03-10T14:00:00Z', '2026-03-10T15:00:00Z')], // Tuesday 10:00-11:00 local
    notBefore: new Date('2026-03-09T14:00:00Z'), // Monday 10:00 local
  };

  it('is true for every listed slot', () => {
    const listed = computeSlots({ ...base, from: '2026-03-09', to: '2026-03-15' }).slots;
    // Monday from 10:00 (notice) 4, Tuesday 6 - 2 busy, Wednesday to Friday 3 × 6, Sunday 00:00-04:00 8.
    expect(listed.length).toBe(4 + 4 + 18 + 8);
    for (const s of listed) expect(isOfferedSlot(base, new Date(s))).toBe(true);
  });

  it('is false off the grid, when busy, before notBefore and outside hours', () => {
    const yes = (iso: string) => expect(isOfferedSlot(base, new Date(iso)), iso).toBe(true);
    const no = (iso: string) => expect(isOfferedSlot(base, new Date(iso)), iso).toBe(false);
    yes('2026-03-11T13:00:00Z'); // Wednesday 09:00
    no('2026-03-11T13:15:00Z'); // 09:15: off the grid
    no('2026-03-11T13:00:00.001Z'); // a millisecond off
    no('2026-03-11T13:00:30Z');
    no('2026-03-10T14:00:00Z'); // Tuesday 10:00: busy
    no('2026-03-10T14:30:00Z'); // Tuesday 10:30: busy
    yes('2026-03-10T15:00:00Z'); // Tuesday 11:00: right after
    no('2026-03-09T13:30:00Z'); // Monday 09:30: before notBefore
    yes('2026-03-09T14:00:00Z'); // Monday 10:00: at notBefore
    no('2026-03-11T12:30:00Z'); // Wednesday 08:30: before the hours
    yes('2026-03-11T15:30:00Z'); // Wednesday 11:30: the last one
    no('2026-03-11T16:00:00Z'); // Wednesday 12:00: the end of the hours
    no('2026-03-14T13:00:00Z'); // Saturday 09:00: no hours
    no('2026-03-15T08:00:00Z'); // Sunday 04:00: the end of the hours
    no('not a date');
  });

  it('follows the DST changes: the repeated hour of fall back is offered once', () => {
    const i = { ...base, notBefore: EPOCH, busy: [] };
    expect(isOfferedSlot(i, new Date('2026-11-01T05:00:00Z'))).toBe(true); // 01:00 EDT
    expect(isOfferedSlot(i, new Date('2026-11-01T06:00:00Z'))).toBe(false); // 01:00 EST again
    expect(isOfferedSlot(i, new Date('2026-11-01T07:00:00Z'))).toBe(true); // 02:00 EST
    // Spring forward: 01:30 EST is followed by 03:00 EDT, half an hour later.
    expect(isOfferedSlot(i, new Date('2026-03-08T06:30:00Z'))).toBe(true);
    expect(isOfferedSlot(i, new Date('2026-03-08T07:00:00Z'))).toBe(true);
    // 09:00 on the Monday after is 13:00Z, no longer 14:00Z.
    expect(isOfferedSlot(i, new Date('2026-03-09T13:00:00Z'))).toBe(true);
    expect(isOfferedSlot(i, new Date('2026-03-09T14:00:00Z'))).toBe(true); // 10:00
    expect(isOfferedSlot(i, new Date('2026-03-06T14:00:00Z'))).toBe(true); // Friday before: 09:00 EST
    expect(isOfferedSlot(i, new Date('2026-03-06T13:00:00Z'))).toBe(false); // 08:00 EST
  });
});

describe('slotsRange', () => {
  // 20:00Z on Sunday 8 March 2026: already Monday the 9th in Kolkata, still the 8th in Los Angeles.
  const now = new Date('2026-03-08T20:00:00Z');

  function rangeErr(q: { from?: string; to?: string }, tz = 'UTC'): ApiError {
    try {
      slotsRange(q, tz, now);
    } catch (e) {
      expect(e).toBeInstanceOf(ApiError);
      expect((e as ApiError).code).toBe('invalid_request');
      expect((e as ApiError).status).toBe(400);
      return e as ApiError;
    }
    throw new Error(`slotsRange accepted ${JSON.stringify(q)}`);
  }

  it('defaults to the next 7 days from today in the host zone', () => {
    expect(slotsRange({}, 'Asia/Kolkata', now)).toEqual({ from: '2026-03-09', to: '2026-03-15' });
    expect(slotsRange({}, 'America/Los_Angeles', now)).toEqual({ from: '2026-03-08', to: '2026-03-14' });
  });

  it('completes a lone from or to', () => {
    expect(slotsRange({ from: '2026-04-28' }, 'UTC', now)).toEqual({ from: '2026-04-28', to: '2026-05-04' });
    expect(slotsRange({ to: '2026-03-20' }, 'UTC', now)).toEqual({ from: '2026-03-08', to: '2026-03-20' });
    expect(slotsRange({ to: '2026-03-08' }, 'UTC', now)).toEqual({ from: '2026-03-08', to: '2026-03-08' });
    expect(slotsRange({ from: '2026-03-01', to: '2026-03-01' }, 'UTC', now)).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(slotsRange({ from: '2028-02-29', to: '2028-03-01' }, 'UTC', now)).toEqual({ from: '2028-02-29', to: '2028-03-01' });
  });

  it('rejects dates that are not YYYY-MM-DD calendar dates, naming the field and the form', () => {
    for (const bad of ['2026-02-30', '2026-02-29', '2026-13-01', '2026-00-10', '2026-04-31', '2026-03-09T10:00:00Z', '2026-3-9', '09/03/2026', 'garbage', '']) {
      const e = rangeErr({ from: bad });
      expect(e.message).toMatch(/^from: /);
      expect(e.message).toContain('YYYY-MM-DD');
      const t = rangeErr({ from: '2026-03-09', to: bad });
      expect(t.message).toMatch(/^to: /);
      expect(t.message).toContain('YYYY-MM-DD');
    }
    expect(rangeErr({ from: '2026-02-30' }).message).toMatch(/not a calendar date/);
  });

  it('rejects to before from, and a lone to before today', () => {
    expect(rangeErr({ from: '2026-03-10', to: '2026-03-09' }).message).toMatch(/^to: '2026-03-09' is before from \(2026-03-10\)/);
    expect(rangeErr({ to: '2026-03-07' }).message).toMatch(/^to: '2026-03-07' is before today \(2026-03-08\)/);
    expect(rangeErr({ to: '2026-03-08' }, 'Asia/Kolkata').message).toMatch(/before today \(2026-03-09\)/);
  });

  it('allows at most 62 days', () => {
    expect(slotsRange({ from: '2026-03-09', to: '2026-05-09' }, 'UTC', now)).toEqual({ from: '2026-03-09', to: '2026-05-09' });
    expect(rangeErr({ from: '2026-03-09', to: '2026-05-10' }).message).toMatch(/^to: at most 62 days.*2026-05-09/);
    expect(rangeErr({ to: '2026-12-31' }).message).toMatch(/^to: at most 62 days/);
  });
});

describe('isValidZone', () => {
  it('knows IANA zones and rejects others', () => {
    expect(isValidZone('Europe/Lisbon')).toBe(true);
    expect(isValidZone('America/Argentina/Buenos_Aires')).toBe(true);
    expect(isValidZone('UTC')).toBe(true);
    expect(isValidZone('Mars/Olympus')).toBe(false);
    expect(isValidZone('')).toBe(false);
    expect(isValidZone('+05:30')).toBe(false); // an offset, not an IANA zone
    expect(() => slotsRange({}, '+05:30', new Date())).toThrow(/time zone/);
  });
});

// ---------------------------------------------------------------------------
// Property: against an independent reference built from luxon's own
// instant → wall-time conversion, every listed slot is inside the working
// hours in local time, on the grid of its range, free, and not before
// notBefore; and every such slot is listed.

const ZONES = ['Europe/Lisbon', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'UTC'];
const TRANSITIONS = ['2026-03-08', '2026-03-29', '2026-04-05', '2026-10-04', '2026-10-25', '2026-11-01', '2026-12-31'];
const DAY = 86_400_000;

/** Reference: the wall time's instants are wall - o for the zone's offsets nearby that luxon maps back to the wall. */
function reference(i: SlotsInput): { slots: string[]; full_days: string[] } {
  const zone = IANAZone.create(i.tz);
  const from = Date.parse(`${i.from}T00:00:00Z`);
  const to = Date.parse(`${i.to}T00:00:00Z`);
  const offsets = new Set<number>();
  for (let t = from - 2 * DAY; t <= to + 3 * DAY; t += 3_600_000) offsets.add(zone.offset(t));
  const freeAt = (s: number) => s >= i.notBefore.getTime() && i.busy.every((b) => !(s < b.end.getTime() && b.start.getTime() < s + i.durationMin * 60_000));
  const out: number[] = [];
  const full: string[] = [];
  for (let d = from; d <= to; d += DAY) {
    const date = new Date(d).toISOString().slice(0, 10);
    const weekday = DateTime.fromISO(date, { zone: 'UTC' }).weekday;
    let after = 0;
    let free = 0;
    for (const r of i.hours.filter((h) => h.weekday === weekday)) {
      for (let m = r.start; m + i.durationMin <= r.end; m += i.durationMin) {
        const wall = d + m * 60_000;
        const want = new Date(wall).toISOString().slice(0, 16);
        const hits = [...offsets]
          .map((o) => wall - o * 60_000)
          .filter((t) => DateTime.fromMillis(t, { zone: i.tz }).toFormat("yyyy-MM-dd'T'HH:mm") === want);
        if (hits.length === 0) continue;
        const s = Math.min(...hits);
        if (s < i.notBefore.getTime()) continue;
        after++;
        if (freeAt(s)) {
          free++;
          out.push(s);
        }
      }
    }
    if (after > 0 && free === 0) full.push(date);
  }
  out.sort((a, b) => a - b);
  return { slots: out.map((t) => new Date(t).toISOString().replace('.000Z', 'Z')), full_days: full };
}

const hoursArb: fc.Arbitrary<WorkingHours> = fc
  .array(fc.uniqueArray(fc.integer({ min: 0, max: 1440 }), { maxLength: 6 }), { minLength: 7, maxLength: 7 })
  .map((perDay) =>
    perDay.flatMap((points, k) => {
      const p = [...points].sort((a, b) => a - b);
      const ranges = [];
      for (let j = 0; j + 1 < p.length; j += 2) ranges.push({ weekday: k + 1, start: p[j]!, end: p[j + 1]! });
      return ranges;
    }),
  );

const inputArb = fc
  .record({
    tz: fc.constantFrom(...ZONES),
    start: fc.oneof(
      fc.constantFrom(...TRANSITIONS).map((d) => Date.parse(`${d}T00:00:00Z`) - DAY),
      fc.integer({ min: 0, max: 700 }).map((k) => Date.UTC(2026, 0, 1) + k * DAY),
    ),
    span: fc.integer({ min: 0, max: 5 }),
    durationMin: fc.oneof(fc.constantFrom(15, 30, 60), fc.integer({ min: 5, max: 240 })),
    hours: hoursArb,
    busy: fc.array(fc.record({ at: fc.integer({ min: -1440, max: 8 * 1440 }), len: fc.integer({ min: 1, max: 300 }) }), { maxLength: 25 }),
    notice: fc.integer({ min: -1440, max: 8 * 1440 }),
  })
  .map(({ tz, start, span, durationMin, hours, busy: b, notice }): SlotsInput => ({
    tz,
    durationMin,
    hours,
    from: new Date(start).toISOString().slice(0, 10),
    to: new Date(start + span * DAY).toISOString().slice(0, 10),
    busy: b.map(({ at, len }) => ({ start: new Date(start + at * 60_000), end: new Date(start + (at + len) * 60_000) })),
    notBefore: new Date(start + notice * 60_000),
  }));

describe('computeSlots property', () => {
  it('lists exactly the free on-grid starts within working hours after notBefore', () => {
    fc.assert(
      fc.property(inputArb, (i) => {
        const r = computeSlots(i);
        for (const s of r.slots) {
          expect(s).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00Z$/);
          const t = Date.parse(s);
          const lt = DateTime.fromMillis(t, { zone: i.tz });
          // In the requested dates, inside a range of that weekday, on its grid.
          expect(lt.toISODate()! >= i.from && lt.toISODate()! <= i.to).toBe(true);
          const m = lt.hour * 60 + lt.minute;
          const range = i.hours.find((h) => h.weekday === lt.weekday && h.start <= m && m + i.durationMin <= h.end);
          expect(range).toBeDefined();
          expect((m - range!.start) % i.durationMin).toBe(0);
          // Free and not too soon.
          expect(t).toBeGreaterThanOrEqual(i.notBefore.getTime());
          for (const b of i.busy) expect(t < b.end.getTime() && b.start.getTime() < t + i.durationMin * 60_000).toBe(false);
          expect(isOfferedSlot(i, new Date(t))).toBe(true);
        }
        for (let k = 1; k < r.slots.length; k++) expect(r.slots[k - 1]! < r.slots[k]!).toBe(true);
        expect(r).toEqual(reference(i));
      }),
      { numRuns: 200 },
    );
  });
});
