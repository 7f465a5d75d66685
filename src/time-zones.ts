import { IANAZone } from 'luxon';

// Time zones as people give them (a meeting's host, a booking's guest): one
// check for every capability that takes one.

/**
 * Whether `tz` names an IANA time zone (such as `Europe/Lisbon` or `UTC`).
 * Offset strings such as `+05:30`, which recent Intl accepts as zones, are
 * refused: they are not IANA names and have no DST rules.
 */
export function isValidZone(tz: string): boolean {
  return typeof tz === 'string' && !/^[+-]/.test(tz) && IANAZone.isValidZone(tz);
}
