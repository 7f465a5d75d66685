import { answerOffer, offer as sdpOffer, readOffer, type Negotiated, type SdpSide } from './media/sdp.ts';

// What we answer to the far end's re-INVITE or UPDATE on an answered dialog,
// whatever the SIP stack carries it: an extension it requires that we lack
// (420), a session interval too short (422), an offer that would cross ours
// (491), an offer without audio we can use (488), else our 200 with the
// session timer echoed (RFC 4028) and our SDP (media/sdp.ts readOffer,
// answerOffer). Every signaling adapter asks answerSession(), so a rule of
// ours changes in one place; what an adapter checks before it (a dialog that
// is not up: 481; the order of CSeq numbers, where its stack does not) is
// about its own transport. What we say we take, in OPTIONS, 405, our INVITE
// and these answers, is here too, once.

/** The shortest session interval we accept (RFC 4028 Min-SE). */
export const MIN_SE = 90;
/** The methods we take, as OPTIONS, 405 and our answers say. UPDATE: the callee may refresh the session with it (RFC 3311, RFC 4028). */
export const ALLOW = 'INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE';
/** The extensions we support: session timers (RFC 4028). */
const SUPPORTED = 'timer';
/** What our answer to OPTIONS says we take: methods, bodies, extensions. */
export const CAPABILITIES = { Allow: ALLOW, Accept: 'application/sdp', Supported: SUPPORTED } as const;

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
  const headers: Record<string, string> = { Allow: ALLOW, Supported: SUPPORTED };
  const timer = supported.includes('timer') || require.includes('timer');
  if (delta !== undefined && timer) {
    headers['Session-Expires'] = `${delta};refresher=uac`;
    headers.Require = 'timer';
  }
  return { ok: true, headers, sessionExpires: timer ? delta : undefined };
}

/** A re-INVITE or UPDATE on an answered dialog, as an adapter reads it off its stack. */
export type SessionRequest = {
  method: 'INVITE' | 'UPDATE';
  /** A header's value by name, undefined when absent. */
  get: (name: string) => string | undefined;
  /** Its body, if it has one. */
  body: string | undefined;
  /** Whether the dialog takes an offer now: not while ours, in a 2xx, waits for its answer (the dialog machine's REMOTE_OFFER). */
  takesOffer: boolean;
  /** What the dialog's stream speaks now (the far end's last SDP), so that a new offer keeps its codec. */
  now: Negotiated | undefined;
  /** Our side of the next SDP we send (its version one up); asked once, only when our 200 has a body. */
  side: () => SdpSide;
};

export type SessionReply =
  | {
    ok: true;
    /** Of our 200, besides Contact: the session timer, Allow, Supported, and Content-Type with a body. */
    headers: Record<string, string>;
    body: string | undefined;
    /** The far end's offer, for the adapter to apply to its stream (streamAfter) and its hold. */
    offered: Negotiated | undefined;
    /** Our offer goes in this 200 (a re-INVITE without one): its answer comes in the ACK (the machine's OFFER_SENT). */
    offerSent: boolean;
    sessionExpires: number | undefined;
  }
  | { ok: false; status: number; reason: string; headers: Record<string, string>; /** Why an offer was refused (488), for the log. */ why?: string };

/**
 * Our answer to a re-INVITE or UPDATE on an answered dialog. Refused, in
 * this order: 420 for an option we do not have (Require), 422 for a session
 * interval below our Min-SE, 491 for an offer (or an offerless re-INVITE,
 * which asks for ours) that would cross ours still waiting for its answer
 * (RFC 3261 14.2, RFC 3311 5.2), 488 for an offer without audio we can use.
 * Else a 200: our answer to its offer; to a re-INVITE without one, our offer.
 */
export function answerSession(rq: SessionRequest): SessionReply {
  const session = sessionRequest(rq.get);
  if (!session.ok) return session;
  const sdp = rq.body !== undefined && rq.body.trim() !== '' ? rq.body : undefined;
  if ((sdp !== undefined || rq.method === 'INVITE') && !rq.takesOffer) return { ok: false, status: 491, reason: 'Request Pending', headers: {} };
  let offered: Negotiated | undefined;
  let body: string | undefined;
  if (sdp !== undefined) {
    try {
      offered = readOffer(sdp, rq.now);
    } catch (err) {
      return { ok: false, status: 488, reason: 'Not Acceptable Here', headers: {}, why: String(err) };
    }
    body = answerOffer(rq.side(), offered);
  } else if (rq.method === 'INVITE') {
    body = sdpOffer(rq.side());
  }
  const headers = body === undefined ? session.headers : { ...session.headers, 'Content-Type': 'application/sdp' };
  return { ok: true, headers, body, offered, offerSent: sdp === undefined && rq.method === 'INVITE', sessionExpires: session.sessionExpires };
}
