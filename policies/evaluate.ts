import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/max/metadata';
import Holidays from 'date-holidays';
import { DateTime } from 'luxon';
import { NEVER_CALLED } from './defaults.ts';
import { POLICIES } from './index.ts';
import { zonesOf } from './zones.ts';
import type { CallingWindow, ConsentKind, CountryPolicy, LegalSource, NumberKind, Purpose, PurposeRule, Weekday } from './types.ts';

// The policy engine: whether a number can be called, at what minute price,
// and whether a call of a purpose may be placed to it now with the consent
// given. evaluate() is a pure function of its arguments and of the table
// (countries/, defaults.ts): no clock, no database, no network.

/** A destination as the engine sees it: from destinationOf(). */
export type Destination = {
  e164: string;
  /** ISO 3166-1 alpha-2; `ZZ` when the number belongs to no country we can tell. */
  country: string;
  kind: NumberKind;
  /** The zones it may ring in (one when the number says, all of them when it does not). */
  zones: string[];
};

export type PurposeVerdict = {
  purpose: Purpose;
  allowed: boolean;
  /** `allowed`, or why not: the rule's code, `outside_calling_hours`, `public_holiday`, `too_many_attempts`. */
  code: string;
  message: string | null;
  /** The consent the purpose needs there now (any one of these; written satisfies prior_express). */
  requires: ConsentKind[];
  /** True only when every rule the verdict rests on names who reviewed it. */
  legal_reviewed: boolean;
};

export type Verdict = {
  country: string;
  kind: NumberKind;
  /** The destination can be called and, when a purpose was given, a call of that purpose may be placed now. */
  allowed: boolean;
  /** Price of a minute relative to the base; 0 when the destination cannot be called. */
  minute_factor: number;
  /** One sentence: why it is or is not allowed (with the next allowed local time when outside the calling hours). */
  reason: string;
  /** Why a call is refused (`allowed` when it is not): the purpose's code, or the destination's. */
  code: string;
  purpose: PurposeVerdict | null;
  /** When outside the calling hours: the next moment a call is allowed, ISO 8601 in the called party's zone. */
  next_allowed_at: string | null;
  /** The sources the verdict rests on. */
  sources: string[];
};

export type Context = {
  /** Calls of this purpose placed to this number within the rule's window of days (for maxAttempts). */
  attempts?: (days: number) => number;
};

const KINDS: Record<string, NumberKind> = {
  FIXED_LINE: 'fixed_line', MOBILE: 'mobile', FIXED_LINE_OR_MOBILE: 'fixed_line_or_mobile', TOLL_FREE: 'toll_free',
  VOIP: 'voip', PERSONAL_NUMBER: 'personal_number', PREMIUM_RATE: 'premium_rate', SHARED_COST: 'shared_cost',
  UAN: 'uan', PAGER: 'pager', VOICEMAIL: 'voicemail',
};

const KIND_WORDS: Record<NumberKind, string> = {
  fixed_line: 'landline', mobile: 'mobile', fixed_line_or_mobile: 'landline or mobile', toll_free: 'toll-free',
  voip: 'VoIP', personal_number: 'personal', premium_rate: 'premium-rate', shared_cost: 'shared-cost',
  uan: 'universal access (UAN)', pager: 'pager', voicemail: 'voicemail-access', unknown: 'unrecognised',
};

/**
 * The destination of `to`: an international number, `+` then 4 to 15 digits
 * (spaces, dots, dashes and parentheses between them are ignored). Null when
 * it is not one; a number that is well formed but not a valid number of any
 * country is a destination of kind `unknown`, which is never called.
 */
export function destinationOf(to: string): Destination | null {
  const compact = to.replace(/[\s().-]/g, '');
  if (!/^\+[1-9]\d{3,14}$/.test(compact)) return null;
  const parsed = parsePhoneNumberFromString(compact);
  if (!parsed) return null;
  const valid = parsed.isValid();
  const kind = valid ? (KINDS[parsed.getType() ?? ''] ?? 'unknown') : 'unknown';
  return { e164: parsed.number, country: (valid ? parsed.country : undefined) ?? 'ZZ', kind, zones: zonesOf(parsed.number) };
}

/** Every country calling code, geographic or not, from libphonenumber-js's metadata. */
const CALLING_CODES = new Set([...Object.keys(metadata.country_calling_codes), ...Object.keys(metadata.nonGeographic ?? {})]);

/** The number with all but its country code and last two digits hidden: `+33•••••••78`. */
export function maskNumber(e164: string): string {
  // The country calling code is the number's prefix that is one: they are
  // prefix-free (ITU-T E.164), so the shortest match is it. Every event of
  // a call masks two numbers: a lookup, not a parse.
  let cc = e164.slice(0, 2);
  for (let n = 1; n <= 3; n++) {
    if (CALLING_CODES.has(e164.slice(1, 1 + n))) {
      cc = e164.slice(0, 1 + n);
      break;
    }
  }
  const rest = e164.slice(cc.length);
  return `${cc}${'•'.repeat(Math.max(0, rest.length - 2))}${rest.slice(-2)}`;
}

const RANK: Record<ConsentKind, number> = { existing_customer: 0, prior_express: 1, written: 2 };

/** Whether the consent given is one the rule accepts (written satisfies prior_express). */
function satisfies(given: ConsentKind | null, requires: ConsentKind[]): boolean {
  if (requires.length === 0) return true;
  if (given === null) return false;
  return requires.some((r) => r === given || (r !== 'existing_customer' && given !== 'existing_customer' && RANK[given] >= RANK[r]));
}

const sourceMaps = new WeakMap<CountryPolicy, Map<string, LegalSource>>();

/** A country's sources by id, made once per country. */
function sourceMap(policy: CountryPolicy): Map<string, LegalSource> {
  let map = sourceMaps.get(policy);
  if (!map) sourceMaps.set(policy, (map = new Map(policy.sources.map((s) => [s.id, s]))));
  return map;
}

/** Whether a source is in force at `now` (its effective date, in UTC, has come). */
function inForce(source: LegalSource | undefined, now: Date): boolean {
  return source !== undefined && Date.parse(`${source.effective}T00:00:00Z`) <= now.getTime();
}

const holidayTables = new Map<string, Holidays>();
const holidayYears = new Map<string, Set<string>>();

/** The country's national public holidays of a year, as local dates (YYYY-MM-DD); computed once per country and year. */
function publicHolidays(country: string, year: number): Set<string> {
  const key = `${country}:${year}`;
  let days = holidayYears.get(key);
  if (!days) {
    let table = holidayTables.get(country);
    if (!table) holidayTables.set(country, (table = new Holidays(country)));
    days = new Set(table.getHolidays(year).filter((h) => h.type === 'public').map((h) => h.date.slice(0, 10)));
    holidayYears.set(key, days);
  }
  return days;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Why `at` is outside the window in one zone (null: inside). */
function outside(w: CallingWindow, country: string, zone: string, at: DateTime): 'outside_calling_hours' | 'public_holiday' | null {
  const local = at.setZone(zone);
  if (w.noPublicHolidays && publicHolidays(country, local.year).has(local.toISODate()!)) return 'public_holiday';
  const m = local.hour * 60 + local.minute;
  const ranges = w.days[local.weekday as Weekday] ?? [];
  return ranges.some(([from, to]) => m >= minutes(from) && m < minutes(to)) ? null : 'outside_calling_hours';
}

const WEEKDAY_WORDS = ['', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];

/** The window in words: "08:00–21:00 every day", "Mondays 10:00–13:00 and 14:00–20:00, …". */
function describe(w: CallingWindow): string {
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
  return `${parts.join('; ')}${w.noPublicHolidays ? ', not on public holidays' : ''}`;
}

/**
 * The first moment from `now` when every window allows a call in every zone,
 * within 14 days (null when there is none). Candidates are the starts of the
 * windows' ranges in each zone; the first that passes everywhere wins.
 */
function nextAllowed(windows: CallingWindow[], country: string, zones: string[], now: DateTime): DateTime | null {
  const candidates: DateTime[] = [];
  for (const zone of zones) {
    const start = now.setZone(zone).startOf('day');
    for (let day = 0; day <= 14; day++) {
      const date = start.plus({ days: day });
      for (const w of windows) {
        for (const [from] of w.days[date.weekday as Weekday] ?? []) {
          const t = date.set({ hour: Number(from.slice(0, 2)), minute: Number(from.slice(3, 5)) });
          if (t > now) candidates.push(t);
        }
      }
    }
  }
  candidates.sort((a, b) => a.toMillis() - b.toMillis());
  return candidates.find((t) => windows.every((w) => zones.every((z) => outside(w, country, z, t) === null))) ?? null;
}

function refusedDestination(dest: Destination, reason: string, code: string, purpose: Purpose | null): Verdict {
  return {
    country: dest.country, kind: dest.kind, allowed: false, minute_factor: 0, reason, code, next_allowed_at: null, sources: [],
    purpose: purpose === null ? null : { purpose, allowed: false, code, message: reason, requires: [], legal_reviewed: false },
  };
}

/**
 * Whether `dest` can be called and, for a purpose, whether a call may be
 * placed now with the consent given. `now` is the instant of the call; the
 * calling windows are read in the called party's local time, in every zone
 * the number may ring in when it does not say which.
 */
export function evaluate(dest: Destination, purpose: Purpose | null, consent: ConsentKind | null, now: Date, ctx: Context = {}): Verdict {
  const policy = POLICIES[dest.country];
  if (!policy) {
    return refusedDestination(dest, dest.country === 'ZZ'
      ? 'This is not a valid phone number of any country we can tell, so it cannot be called.'
      : `Calls to ${dest.country} are not supported: the country is not in the policy table.`, 'destination_not_supported', purpose);
  }
  const factor = policy.minuteFactor[dest.kind];
  if (NEVER_CALLED.has(dest.kind) || factor === undefined) {
    return refusedDestination(dest, `Calls to ${KIND_WORDS[dest.kind]} numbers in ${policy.name} are not allowed.`, 'number_kind_not_allowed', purpose);
  }
  const base = `${policy.name} ${KIND_WORDS[dest.kind]} number, ${factor}× the base minute price`;
  if (purpose === null) {
    return {
      country: dest.country, kind: dest.kind, allowed: true, minute_factor: factor, reason: `Callable: ${base}.`,
      code: 'allowed', purpose: null, next_allowed_at: null, sources: [],
    };
  }
  const sources = sourceMap(policy);
  const rule: PurposeRule = policy.purposes[purpose];
  // A rule applies once one of its sources is in force; before that, the purpose is free of it.
  const applies = rule.sources.some((id) => inForce(sources.get(id), now));
  const used = new Set<string>(applies ? rule.sources : []);
  const verdict = (allowed: boolean, code: string, message: string | null, requires: ConsentKind[], next: DateTime | null = null): Verdict => {
    const reviewed = [...used].every((id) => sources.get(id)?.reviewed_by);
    const reason = allowed
      ? `Allowed: ${base}; ${purpose} calls ${requires.length ? `need ${requires.join(' or ')} consent, which was given` : 'need no prior consent there'}.`
      : `Not allowed now: ${message}${next ? `. Next allowed: ${next.toFormat("cccc d LLLL yyyy HH:mm")} (${next.zoneName})` : ''}.`;
    return {
      country: dest.country, kind: dest.kind, allowed, minute_factor: factor, reason, code,
      purpose: { purpose, allowed, code, message: allowed ? null : message, requires, legal_reviewed: used.size > 0 && reviewed },
      next_allowed_at: next ? next.toISO() : null, sources: [...used],
    };
  };
  const requires = applies ? rule.requires : [];
  if (applies && !rule.allowed) return verdict(false, rule.code, rule.message, requires);
  if (!satisfies(consent, requires)) return verdict(false, rule.code, rule.message, requires);
  if (rule.maxAttempts && inForce(sources.get(rule.maxAttempts.source), now)) {
    used.add(rule.maxAttempts.source);
    const placed = ctx.attempts?.(rule.maxAttempts.days) ?? 0;
    if (placed >= rule.maxAttempts.count) {
      return verdict(false, 'too_many_attempts',
        `${purpose} calls to one number in ${policy.name} are limited to ${rule.maxAttempts.count} within ${rule.maxAttempts.days} days, and ${placed} were placed`, requires);
    }
  }
  const windows = policy.windows.filter((w) => (!w.purposes || w.purposes.includes(purpose)) && inForce(sources.get(w.source), now));
  if (windows.length > 0) {
    for (const w of windows) used.add(w.source);
    const zones = dest.zones.length > 0 ? dest.zones : ['UTC'];
    const at = DateTime.fromJSDate(now);
    for (const w of windows) {
      for (const zone of zones) {
        const why = outside(w, dest.country, zone, at);
        if (why === null) continue;
        const next = nextAllowed(windows, dest.country, zones, at);
        const where = zones.length > 1 ? ` in each of the number's time zones (${zones.length})` : '';
        const message = why === 'public_holiday'
          ? `it is a public holiday in ${policy.name}, and ${purpose} calls there are allowed ${describe(w)}, local time${where}`
          : `${purpose} calls to ${policy.name} are allowed ${describe(w)}, local time${where}`;
        return verdict(false, why, message, requires, next);
      }
    }
  }
  return verdict(true, 'allowed', null, requires);
}

export type { CountryPolicy, Purpose, ConsentKind, NumberKind, LegalSource } from './types.ts';
