import { createHash, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the system in blocks of 4 KiB and handed out
// one by one (a request id every request: one system call per block, not
// one Buffer per id). A block is used once and refilled when spent.
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]!;
}

/** Random base62 string; 22 characters carry ~131 bits. Bytes of 248 and above are skipped, so every character is equally likely. */
export function randomBase62(len = 22): string {
  let out = '';
  while (out.length < len) {
    const b = randomByte();
    if (b < 248) out += ALPHABET[b % 62];
  }
  return out;
}

export type IdPrefix = 'org' | 'key' | 'room' | 'req' | 'evt' | 'num' | 'et' | 'ses' | 'call' | 'tr' | 'we' | 'whd' | 'voice' | 'bk' | 'usg' | 'jl' | 'par' | 'rst' | 'trk';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(prefix === 'req' ? 20 : 22)}`;
}

/** Ids in paths are short ASCII tokens; anything else can never exist. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * What names a person across capabilities without carrying their e-mail: a hash of it, lower-cased
 * (a join link names its guest with it, and the voices find the person's own clone by it).
 */
export function personTag(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64url').slice(0, 22);
}
