import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { ApiError } from './errors.ts';
import type { Credential } from './credentials.ts';

// Key restrictions of api.md section 5.8, checked where those inputs occur.

function baseLang(l: string): string {
  return l.toLowerCase().split('-')[0]!;
}

/** A restricted key may use only its languages; `pt` allows `pt-BR` and the reverse. */
export function assertLanguagesAllowed(cred: Credential, field: string, langs: Array<string | undefined | null>): void {
  if (!cred.langs) return;
  const allowed = new Set(cred.langs.map(baseLang));
  for (const l of langs) {
    if (l && !allowed.has(baseLang(l))) {
      throw new ApiError('language_not_allowed', `${field}: '${l}' is not among this key's languages (${cred.langs.join(', ')})`);
    }
  }
}

export function assertVoiceAllowed(cred: Credential, field: string, voiceId: string | undefined | null): void {
  if (!cred.voices || !voiceId) return;
  if (!cred.voices.includes(voiceId)) throw new ApiError('voice_not_allowed', `${field}: voice '${voiceId}' is not allowed for this key`);
}

export function assertNumberAllowed(cred: Credential, field: string, numberId: string | undefined | null): void {
  if (!cred.numbers || !numberId) return;
  if (!cred.numbers.includes(numberId)) throw new ApiError('number_not_allowed', `${field}: number '${numberId}' is not allowed for this key`);
}

/** ISO 3166 country of an E.164 number, or null when it is not a valid number. */
export function countryOf(e164: string): string | null {
  return parsePhoneNumberFromString(e164)?.country ?? null;
}

/** Destinations are ISO 3166 country codes; a number whose country is unknown is outside any list. */
export function assertDestinationAllowed(cred: Credential, field: string, country: string | null): void {
  if (!cred.destinations) return;
  if (!country || !cred.destinations.map((c) => c.toUpperCase()).includes(country.toUpperCase())) {
    throw new ApiError('destination_not_allowed', `${field}: destination ${country ?? '(unknown country)'} is not allowed for this key`);
  }
}
