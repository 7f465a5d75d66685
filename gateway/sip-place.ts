import sip from 'sip';
import type { PlaceRequest } from './signaling.ts';
import { ALLOW } from './session-timer.ts';
import { MAX_FORWARDS, RESERVED_HEADERS } from './sip-message.ts';

// The INVITE the embedded stack (sip-stack.ts) sends for a placed call: the
// request checked (no header injection, nothing the stack sets itself), the
// caller id where the trunk wants it, and the message with our offer.

/** A proxy's URI as a loose Route (RFC 3261 16.12: `;lr`, so the Request-URI stays the trunk's). */
export function looseRoute(uri: string): string {
  return /;lr(?:[;=]|$)/i.test(uri) ? uri : `${uri};lr`;
}

/** Throws when the request cannot be sent as given (its message names what is wrong). */
export function checkPlaceRequest(req: PlaceRequest): void {
  if (!sip.parseUri(req.target)) throw new Error(`place: target is not a SIP URI: ${JSON.stringify(req.target)}`);
  if (!/^[+0-9A-Za-z._-]*$/.test(req.from)) throw new Error(`place: from must be a phone number or SIP user (got ${JSON.stringify(req.from)})`);
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    if (!/^[A-Za-z0-9!%*_+`'~.-]+$/.test(name)) throw new Error(`place: bad header name ${JSON.stringify(name)}`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new Error(`place: header ${name} is set by the stack`);
    // ASCII only (Content-Length counts characters) and no line breaks (no header injection).
    if (!/^[\x20-\x7e\t]*$/.test(value)) throw new Error(`place: header ${name} must be printable ASCII on one line`);
  }
}

/**
 * From, and P-Asserted-Identity with Privacy, of a call's INVITE. Without a
 * trunk, or with the trunk's caller id in From: From is the caller id at
 * our address (or the trunk's domain). With it in P-Asserted-Identity, that
 * header carries the caller id and From the trunk's account, or anonymous
 * with Privacy: id (RFC 3325, RFC 3323).
 */
function callerIdHeaders(req: PlaceRequest, tag: string, address: string): { from: string; identity: Record<string, string> } {
  const t = req.trunk;
  const host = t?.domain ?? address;
  const asserted = `<sip:${req.from}@${host}>`;
  if (!t || t.callerId === 'from') return { from: `<sip:${req.from ? `${req.from}@` : ''}${host}>;tag=${tag}`, identity: {} };
  if (t.privacy) {
    return { from: `"Anonymous" <sip:anonymous@anonymous.invalid>;tag=${tag}`, identity: { 'p-asserted-identity': asserted, privacy: 'id' } };
  }
  const account = t.username && /^[A-Za-z0-9._+-]+$/.test(t.username) ? t.username : req.from;
  return { from: `<sip:${account}@${host}>;tag=${tag}`, identity: { 'p-asserted-identity': asserted } };
}

/** The first INVITE of a placed call, with our From (and tag), To and Contact as the dialog keeps them. */
export function inviteOf(req: PlaceRequest, ids: { localTag: string; callId: string; address: string; offer: string }): {
  from: string; to: string; contact: string; invite: sip.Message;
} {
  const t = req.trunk;
  const user = req.from ? `${req.from}@` : '';
  const { from, identity } = callerIdHeaders(req, ids.localTag, ids.address);
  const to = `<${req.target}>`;
  const contact = `<sip:${user}${ids.address}>`;
  const invite: sip.Message = {
    method: 'INVITE',
    uri: req.target,
    headers: {
      via: [], // `sip` adds ours, with the bound address and a branch
      'max-forwards': MAX_FORWARDS,
      from,
      to,
      'call-id': ids.callId,
      cseq: { seq: 1, method: 'INVITE' },
      contact,
      allow: ALLOW,
      ...(t?.proxy ? { route: `<${looseRoute(t.proxy)}>` } : {}),
      ...identity,
      ...req.headers,
      'content-type': 'application/sdp',
    },
    content: ids.offer,
  };
  return { from, to, contact, invite };
}
