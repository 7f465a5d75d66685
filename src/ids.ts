import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string; 22 characters carry ~131 bits. */
export function randomBase62(len = 22): string {
  const bytes = randomBytes(len * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < len; i++) {
    const b = bytes[i]!;
    if (b < 248) out += ALPHABET[b % 62];
  }
  while (out.length < len) out += ALPHABET[randomBytes(1)[0]! % 62];
  return out;
}

export type IdPrefix = 'org' | 'key' | 'room' | 'req' | 'evt' | 'num' | 'et' | 'ses' | 'call' | 'tr' | 'we' | 'whd' | 'voice' | 'bk' | 'usg' | 'jl';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(prefix === 'req' ? 20 : 22)}`;
}

/** Ids in paths are short ASCII tokens; anything else can never exist. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;
