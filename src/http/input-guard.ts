import { ApiError } from '../errors.ts';

/** Deepest nesting of arrays and objects accepted in a body or query; deeper input would exhaust the stack. */
const MAX_DEPTH = 64;
const PLAIN_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * Throws invalid_request naming the first field (or key) whose text holds a NUL
 * character or a lone UTF-16 surrogate (JSON allows "\ud800"; PostgreSQL text
 * cannot hold it), or whose nesting is deeper than MAX_DEPTH. A path with a key that
 * is not a plain name is reported under `where` (body, query), quoting the key.
 */
export function rejectNul(where: string, value: unknown, path: string[] = []): void {
  const fail = (problem: string) => {
    const odd = path.find((k) => !PLAIN_KEY.test(k));
    const message = !path.length
      ? `${where}: ${problem}`
      : odd === undefined
        ? `${path.join('.')}: ${problem}`
        : `${where}: ${problem} (under the key ${JSON.stringify(odd.replaceAll('\0', '\\0').slice(0, 64))})`;
    return new ApiError('invalid_request', message);
  };
  if (path.length > MAX_DEPTH) throw new ApiError('invalid_request', `${where}: nested deeper than ${MAX_DEPTH} levels`);
  if (typeof value === 'string') {
    if (value.includes('\0')) throw fail('must not contain the NUL character (U+0000)');
    if (!value.isWellFormed()) throw fail('must be valid Unicode (a lone surrogate such as \\ud800 is not)');
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => rejectNul(where, v, [...path, String(i)]));
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k.includes('\0')) throw fail('a key contains the NUL character (U+0000)');
      if (!k.isWellFormed()) throw fail('a key is not valid Unicode (lone surrogate)');
      rejectNul(where, v, [...path, k]);
    }
  }
}


/** Throws invalid_request when value nests deeper than MAX_DEPTH (the check rejectNul makes, alone). */
export function rejectDeep(where: string, value: unknown, depth = 0): void {
  if (depth > MAX_DEPTH) throw new ApiError('invalid_request', `${where}: nested deeper than ${MAX_DEPTH} levels`);
  if (value && typeof value === 'object') for (const v of Object.values(value)) rejectDeep(where, v, depth + 1);
}
