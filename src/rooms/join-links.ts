import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { personTag } from '../ids.ts';
import type { Caller, Services } from '../services.ts';
import { assertLanguagesAllowed } from '../restrictions.ts';
import { languageCoverage, type LanguageCoverage } from '../engines/coverage.ts';
import { getRoom, roomUrl } from './rooms.ts';
import { makePhonePin } from './phone-pins.ts';
import { linkSigningKey } from './link-key.ts';

// Join links: a signed token carries the room and the prefilled name and
// languages; the room page verifies the signature, so the link needs no lookup
// to be trusted and cannot be altered.

/** `who`: the guest the link was made for (personTag of their e-mail): their own cloned voice, if ready, is theirs in the room. */
export type JoinClaims = { room_id: string; name?: string; speak?: string; hear?: string; who?: string; exp: number };

export function signJoinToken(key: string, claims: JoinClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const mac = createHmac('sha256', key).update(payload).digest('base64url');
  return `${payload}.${mac}`;
}

/**
 * The claims of a token signed with `key`, or null when it is altered or expired. Both parts are
 * compared as the exact strings signJoinToken writes: Node's base64url decoder ignores padding,
 * characters outside the alphabet and the unused bits of the last character, so decoding the
 * signature before comparing would accept several spellings of one link.
 */
export function verifyJoinToken(key: string, token: string, atMs: number): JoinClaims | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload, mac] = parts as [string, string];
  const expected = Buffer.from(createHmac('sha256', key).update(payload).digest('base64url'));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const json = Buffer.from(payload, 'base64url');
  if (!payload || json.toString('base64url') !== payload) return null;
  try {
    const claims = JSON.parse(json.toString()) as JoinClaims;
    if (typeof claims.exp !== 'number' || claims.exp * 1000 < atMs) return null;
    return claims;
  } catch {
    return null;
  }
}

export { linkSigningKey } from './link-key.ts';

/**
 * A room's join link: its url with a token signed with `key`, carrying the
 * prefilled name and languages (those given), valid until the room expires.
 */
export function joinUrl(base: string, key: string, room: { id: string; expires_at: Date }, prefill: { name?: string; speak?: string; hear?: string; email?: string }): string {
  const { email, ...shown } = prefill;
  const token = signJoinToken(key, { room_id: room.id, ...shown, ...(email ? { who: personTag(email) } : {}), exp: Math.floor(room.expires_at.getTime() / 1000) });
  return `${roomUrl(base, room.id)}?t=${token}`;
}

/**
 * The languages the room page preselects: the join link's, else the room's first (speak) and
 * second (hear, else its first), else English.
 */
export function pageLanguages(prefill: { speak?: string; hear?: string }, roomLangs: readonly string[]): { speak: string; hear: string } {
  return { speak: prefill.speak || roomLangs[0] || 'en', hear: prefill.hear || roomLangs[1] || roomLangs[0] || 'en' };
}

/**
 * What the service can do for the person the link is for, in the languages their page will
 * preselect (engines/coverage.ts), so whoever makes the link learns it at once, not the person
 * after they try. Null when the link names no language and the room declares none: the page
 * would preselect English for want of anything, which says nothing about the person. A language
 * nothing covers is never refused: the link works, and the coverage says what will not.
 */
export function joinLinkCoverage(s: Services, prefill: { speak?: string; hear?: string }, roomLangs: readonly string[]): LanguageCoverage | null {
  if (!prefill.speak && !prefill.hear && roomLangs.length === 0) return null;
  const { speak, hear } = pageLanguages(prefill, roomLangs);
  return languageCoverage(s, speak, hear, roomLangs);
}

export async function createJoinLink(
  s: Services,
  cred: Caller,
  id: string,
  input: { name?: string; speak?: string; hear?: string },
): Promise<{ url: string; room_id: string; coverage: LanguageCoverage | null; phone: { number: string; pin: string } | null }> {
  assertLanguagesAllowed(cred, 'speak', [input.speak]);
  assertLanguagesAllowed(cred, 'hear', [input.hear]);
  const room = await getRoom(s, s.pool, cred, id);
  if (room.status === 'ended' || room.status === 'canceled') throw new ApiError('conflict', `room ${id} has ${room.status === 'ended' ? 'ended' : 'been canceled'}; no one can join it`);
  const key = await linkSigningKey(s.pool);
  const expires = new Date(room.expires_at);
  return {
    url: joinUrl(s.config.publicBaseUrl, key, { id: room.id, expires_at: expires }, input),
    room_id: room.id,
    coverage: joinLinkCoverage(s, input, room.langs),
    // The same person by phone, where the organization has a dial-in number (phone-pins.ts).
    phone: await makePhonePin(s, s.pool, { id: room.id, org_id: cred.orgId, expires_at: expires }, input),
  };
}
