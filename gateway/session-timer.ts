// What we answer to the far end's re-INVITE or UPDATE on an answered dialog,
// whatever the SIP stack carries it: an extension it requires that we lack
// (420), a session interval too short (422), else the headers of our 200 with
// the session timer echoed (RFC 4028). Every signaling adapter asks this one
// function, so a rule of ours changes in one place. The SDP side of the same
// answer is media/sdp.ts (readOffer, answerOffer).

/** The shortest session interval we accept (RFC 4028 Min-SE). */
export const MIN_SE = 90;
/** The methods we take, as OPTIONS, 405 and our answers say. */
export const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE';

export type SessionAnswer =
  | { ok: true; headers: Record<string, string>; sessionExpires: number | undefined }
  | { ok: false; status: number; reason: string; headers: Record<string, string> };

/** The option tags of a Supported or Require value, lower-cased. */
function tags(v: string | undefined): string[] {
  return (v ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);
}

/**
 * The far end's session request read from its headers (`get` answers a
 * header's value by name, undefined when absent). The headers of a 200 have
 * our Allow and `Supported: timer`; with a session timer the far end asked
 * for and supports, `Session-Expires` names it (uac) the refresher, so we
 * never have to refresh; a far end without timer support cannot refresh
 * either, and then there is no session timer at all.
 */
export function sessionRequest(get: (name: string) => string | undefined): SessionAnswer {
  const require = tags(get('Require'));
  const supported = tags(get('Supported') ?? get('k'));
  const unsupported = require.filter((t) => t !== 'timer');
  if (unsupported.length > 0) return { ok: false, status: 420, reason: 'Bad Extension', headers: { Unsupported: unsupported.join(', ') } };
  const text = get('Session-Expires') ?? get('x');
  const m = text === undefined ? null : /^\s*(\d{1,10})\s*(?:;.*)?$/.exec(text);
  const delta = m ? Number(m[1]) : undefined;
  if (delta !== undefined && delta < MIN_SE) return { ok: false, status: 422, reason: 'Session Interval Too Small', headers: { 'Min-SE': String(MIN_SE) } };
  const headers: Record<string, string> = { Allow: ALLOW, Supported: 'timer' };
  const timer = supported.includes('timer') || require.includes('timer');
  if (delta !== undefined && timer) {
    headers['Session-Expires'] = `${delta};refresher=uac`;
    headers.Require = 'timer';
  }
  return { ok: true, headers, sessionExpires: timer ? delta : undefined };
}
