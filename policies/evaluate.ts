import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import metadata from 'libphonenumber-js/max/metadata';
import { DateTime } from 'luxon';
import { describe, distinctZones, nextAllowed, outside } from './hours.ts';
import { NEVER_CALLED } from './defaults.ts';
import { POLICIES } from './index.ts';
import { regionOf, zonesOf } from './zones.ts';
import type { AttemptCap, ConsentKind, CountryPolicy, LegalSource, NumberKind, Purpose, PurposeRule, RegionRule } from './types.ts';

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
  /** The zones it may ring in: every zone of the country it may be in (zones.ts); empty when the country has none we know. */
  zones: string[];
  /** The region its area code belongs to (`US-FL`), null when it cannot be told (zones.ts regionOf). */
  region: string | null;
};

export type PurposeVerdict = {
  purpose: Purpose;
  allowed: boolean;
  /** `allowed`, or why not: the rule's code, `caller_id_not_allowed`, `too_many_attempts`, `time_zone_unknown`, `outside_calling_hours`, `public_holiday`. */
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
  /** Calls of this purpose placed to this number within the last `hours` hours (for the caps attemptCaps lists). */
  attempts?: (hours: number) => number;
  /**
   * The caller id the call goes out with (E.164). Where a rule wants a
   * designated range, a call whose caller id is absent or outside it is refused.
   */
  from?: string | null;
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
  const country = (valid ? parsed.country : undefined) ?? 'ZZ';
  return {
    e164: parsed.number, country, kind,
    zones: country === 'ZZ' ? [] : zonesOf(parsed.number, country, kind, parsed.countryCallingCode),
    region: regionOf(parsed.number, country),
  };
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

/** The earliest midnight on Earth (UTC+14): a date compared where no zone is known. */
const EARLIEST = 'Etc/GMT-14';

/** The local dates of `now` in the zones (YYYY-MM-DD), to compare effective dates with. */
function localDates(now: Date, zones: string[]): string[] {
  return (zones.length > 0 ? zones : [EARLIEST]).map((z) => DateTime.fromJSDate(now, { zone: z }).toISODate()!);
}

/**
 * Whether a source is in force at `now`: its effective date has begun at
 * local midnight in one of the zones the called party may be in (an
 * obligation binds from the first of them: refuse rather than allow).
 */
function inForce(source: LegalSource | undefined, dates: string[]): boolean {
  return source !== undefined && dates.some((d) => d >= source.effective);
}

/** A window or cap of a region's rule applies to the destination: the number is in that region, or its region cannot be told. */
function regionRules(policy: CountryPolicy, dest: Destination, purpose: Purpose): RegionRule[] {
  return (policy.regions ?? []).filter((r) => r.purposes.includes(purpose) && (dest.region === null || dest.region === r.region));
}

/**
 * The attempt caps that apply to a call of `purpose` to `dest` at `now`
 * (the country's, its region's): the caller counts the calls placed within
 * each one's hours and gives them to evaluate() as ctx.attempts.
 */
export function attemptCaps(dest: Destination, purpose: Purpose, now: Date): AttemptCap[] {
  const policy = POLICIES[dest.country];
  if (!policy) return [];
  return capsInForce(policy, regionRules(policy, dest, purpose), purpose, localDates(now, dest.zones));
}

/** The country's cap of the purpose and its regions', those in force on the called party's local dates. */
function capsInForce(policy: CountryPolicy, regions: RegionRule[], purpose: Purpose, dates: string[]): AttemptCap[] {
  const sources = sourceMap(policy);
  const caps: AttemptCap[] = [];
  const m = policy.purposes[purpose].maxAttempts;
  if (m) caps.push({ count: m.count, hours: m.days * 24, source: m.source });
  for (const r of regions) if (r.maxAttempts) caps.push(r.maxAttempts);
  return caps.filter((c) => inForce(sources.get(c.source), dates));
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
  // Effective dates begin at local midnight where the called party may be.
  const dates = localDates(now, dest.zones);
  // A rule applies once one of its sources is in force; before that, the purpose is free of it.
  const applies = rule.sources.some((id) => inForce(sources.get(id), dates));
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
  // The caller id: where the law wants calls of this purpose from a designated range.
  if (rule.callerId && inForce(sources.get(rule.callerId.source), dates)) {
    used.add(rule.callerId.source);
    const from = ctx.from ?? null;
    if (from === null || !rule.callerId.prefixes.some((p) => from.startsWith(p))) {
      return verdict(false, rule.callerId.code, rule.callerId.message, requires);
    }
  }
  const regions = regionRules(policy, dest, purpose);
  for (const cap of capsInForce(policy, regions, purpose, dates)) {
    used.add(cap.source);
    const placed = ctx.attempts?.(cap.hours) ?? 0;
    if (placed >= cap.count) {
      const within = cap.hours % 24 === 0 ? `${cap.hours / 24} ${cap.hours === 24 ? 'day' : 'days'}` : `${cap.hours} hours`;
      const where = regions.find((r) => r.maxAttempts === cap)?.name ?? policy.name;
      return verdict(false, 'too_many_attempts',
        `${purpose} calls to one number in ${where} are limited to ${cap.count} within ${within}, and ${placed} were placed`, requires);
    }
  }
  const windows = [
    ...policy.windows.filter((w) => !w.purposes || w.purposes.includes(purpose)),
    ...regions.flatMap((r) => r.windows.filter((w) => !w.purposes || w.purposes.includes(purpose))),
  ].filter((w) => inForce(sources.get(w.source), dates));
  if (windows.length > 0) {
    for (const w of windows) used.add(w.source);
    // Never judged in UTC: a number whose zones are unknown is refused when there are hours to keep.
    if (dest.zones.length === 0) {
      return verdict(false, 'time_zone_unknown', `${purpose} calls to ${policy.name} have calling hours, and the time zone this number rings in cannot be told`, requires);
    }
    const zones = dest.zones;
    const at = DateTime.fromJSDate(now);
    // Zones at the same UTC offset now read the same local time: one of each is checked.
    const here = distinctZones(zones, at, 0);
    for (const w of windows) {
      for (const zone of here) {
        const why = outside(w, dest.country, zone, at);
        if (why === null) continue;
        const next = nextAllowed(windows, dest.country, zones, at);
        const where = zones.length > 1 ? ` in each of the time zones the number may ring in (${zones.length})` : '';
        const region = regions.find((r) => r.windows.includes(w));
        const whose = region ? `${region.name} (${policy.name})` : policy.name;
        const message = why === 'public_holiday'
          ? `it is a public holiday in ${whose}, and ${purpose} calls there are allowed ${describe(w)}, local time${where}`
          : `${purpose} calls to ${whose} are allowed ${describe(w)}, local time${where}`;
        return verdict(false, why, message, requires, next);
      }
    }
  }
  return verdict(true, 'allowed', null, requires);
}

export type { CountryPolicy, Purpose, ConsentKind, NumberKind, LegalSource } from './types.ts';
