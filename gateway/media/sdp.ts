import * as sdpTransform from 'sdp-transform';

// SDP offer/answer for the gateway's audio (RFC 3264), with sdp-transform:
// G.711 (PCMU, PCMA) at 8 kHz in 20 ms packets, and telephone-event (RFC 4733)
// for DTMF. We offer both codecs; the answer decides. Bodies are ASCII: the
// SIP stack counts Content-Length in characters.

export type Codec = 'PCMU' | 'PCMA';

/** Static payload types of RFC 3551. */
export const PAYLOAD_TYPE: Record<Codec, number> = { PCMU: 0, PCMA: 8 };
/** The dynamic payload type we offer for telephone-event. */
export const DTMF_PAYLOAD_TYPE = 101;
export const CLOCK_RATE = 8000;
export const PTIME_MS = 20;

/** What both sides agreed on, and where to send. */
export type Negotiated = {
  /** Where the peer wants its RTP (until its own packets show where they really come from: symmetric RTP). */
  address: string;
  port: number;
  codec: Codec;
  payloadType: number;
  /** The peer's telephone-event payload type, or null when it has none. */
  dtmfPayloadType: number | null;
  /** Packet time the peer asked for (ms), else 20. */
  ptimeMs: number;
  /** The peer's direction: `inactive` or `sendonly`/`recvonly` on hold. */
  direction: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
};

export class SdpError extends Error {}

/** Our side of an SDP body: where our stream listens, and the session's id and version (RFC 3264 8: one up each new body). */
export type SdpSide = { host: string; port: number; sessionId: string; version?: number };

/** Media port put in our SDP without a media plane: no RTP flows, so the discard port stands in. */
export const PLACEHOLDER_MEDIA_PORT = 9;

function body(side: SdpSide, payloads: Array<{ payload: number; codec: string }>, dtmf: number | null, direction: Negotiated['direction']): string {
  const rtp = [...payloads.map((p) => ({ payload: p.payload, codec: p.codec, rate: CLOCK_RATE })), ...(dtmf === null ? [] : [{ payload: dtmf, codec: 'telephone-event', rate: CLOCK_RATE }])];
  const text = sdpTransform.write({
    version: 0,
    origin: { username: 'tolk', sessionId: side.sessionId, sessionVersion: side.version ?? 1, netType: 'IN', ipVer: 4, address: side.host },
    name: 'tolk',
    connection: { version: 4, ip: side.host },
    timing: { start: 0, stop: 0 },
    media: [{
      type: 'audio',
      port: side.port,
      protocol: 'RTP/AVP',
      payloads: rtp.map((r) => r.payload).join(' '),
      rtp,
      fmtp: dtmf === null ? [] : [{ payload: dtmf, config: '0-16' }],
      ptime: PTIME_MS,
      direction,
    }],
  } as sdpTransform.SessionDescription);
  // sdp-transform escapes nothing; everything put in is ours and ASCII.
  if (!/^[\x20-\x7e\r\n]*$/.test(text)) throw new SdpError('SDP: not ASCII');
  return text;
}

/** Our offer: PCMU, then PCMA, and telephone-event. */
export function offer(side: SdpSide): string {
  return body(side, [{ payload: 0, codec: 'PCMU' }, { payload: 8, codec: 'PCMA' }], DTMF_PAYLOAD_TYPE, 'sendrecv');
}

/** Our answer to a peer's offer: its first G.711 codec, and its telephone-event if it has one. */
export function answer(side: SdpSide, remote: Negotiated): string {
  return body(side, [{ payload: remote.payloadType, codec: remote.codec }], remote.dtmfPayloadType, 'sendrecv');
}

/**
 * Reads the peer's SDP (its answer to our offer, or its offer): the first
 * audio stream, its first G.711 codec in its order of preference, its
 * telephone-event, and where to send. Throws SdpError when there is no audio
 * stream we can speak (a 488 or a BYE, for the caller to decide).
 */
export function negotiate(remoteSdp: string): Negotiated {
  let parsed: sdpTransform.SessionDescription;
  try {
    parsed = sdpTransform.parse(remoteSdp);
  } catch (err) {
    throw new SdpError(`SDP: unreadable (${(err as Error).message})`);
  }
  const audio = parsed.media?.find((m) => m.type === 'audio' && m.port > 0 && /^RTP\/AVP$/i.test(m.protocol));
  if (!audio) throw new SdpError('SDP: no active RTP/AVP audio stream');
  const address = audio.connection?.ip ?? parsed.connection?.ip;
  if (!address) throw new SdpError('SDP: no connection address');
  const order = String(audio.payloads ?? '').split(/\s+/).filter(Boolean).map(Number);
  const rtpmap = new Map((audio.rtp ?? []).map((r) => [r.payload, r]));
  // Static types may come without an rtpmap (RFC 3551 names them).
  const codecOf = (pt: number): string | undefined => rtpmap.get(pt)?.codec ?? (pt === 0 ? 'PCMU' : pt === 8 ? 'PCMA' : undefined);
  const chosen = order.find((pt) => {
    const c = codecOf(pt)?.toUpperCase();
    const rate = rtpmap.get(pt)?.rate ?? CLOCK_RATE;
    return (c === 'PCMU' || c === 'PCMA') && rate === CLOCK_RATE;
  });
  if (chosen === undefined) throw new SdpError(`SDP: no G.711 codec among payload types ${order.join(' ') || '(none)'}`);
  const dtmf = order.find((pt) => codecOf(pt)?.toLowerCase() === 'telephone-event' && (rtpmap.get(pt)?.rate ?? CLOCK_RATE) === CLOCK_RATE);
  const direction = (audio.direction ?? parsed.direction ?? 'sendrecv') as Negotiated['direction'];
  return {
    address,
    port: audio.port,
    codec: codecOf(chosen)!.toUpperCase() as Codec,
    payloadType: chosen,
    dtmfPayloadType: dtmf ?? null,
    ptimeMs: Number(audio.ptime) > 0 ? Number(audio.ptime) : PTIME_MS,
    direction,
  };
}

// --- Offers in an answered dialog (re-INVITE, UPDATE, the answer in an ACK) ---
// Written once for every signaling adapter: each reads the far end's offer
// with readOffer, answers it with answerOffer and tells its media plane what
// streamAfter says, so a hold is honoured the same way whatever the SIP stack.

export type Direction = Negotiated['direction'];

/** Our direction in an answer, given the peer's in its offer (RFC 3264 6.1). */
export const MIRROR: Record<Direction, Direction> = { sendrecv: 'sendrecv', sendonly: 'recvonly', recvonly: 'sendonly', inactive: 'inactive' };

/** Whether the peer takes no audio now (its direction sendonly or inactive): on hold, the plane sends nothing. */
export function holds(n: Negotiated): boolean {
  return n.direction === 'sendonly' || n.direction === 'inactive';
}

/**
 * The peer's new offer in an answered dialog. c=0.0.0.0 says "do not send to
 * me" (RFC 2543's hold) whatever the direction says; and an offer that still
 * has the codec the stream speaks (`now`) keeps it, since the stream's RTP
 * sender keeps its payload type. Throws SdpError, as negotiate does, when
 * there is nothing we can speak (a 488).
 */
export function readOffer(sdp: string, now?: Negotiated): Negotiated {
  let n = negotiate(sdp);
  if (n.address === '0.0.0.0') n = { ...n, direction: n.direction === 'sendrecv' ? 'sendonly' : n.direction === 'recvonly' ? 'inactive' : n.direction };
  if (!now || now.payloadType === n.payloadType) return n;
  const offered = /^m=audio \d+ \S+ ([\d ]+)/m.exec(sdp)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  const mapped = new RegExp(`^a=rtpmap:${now.payloadType} ([^/\\s]+)/8000`, 'mi').exec(sdp)?.[1]?.toUpperCase();
  const same = offered.includes(now.payloadType) && (mapped ? mapped === now.codec : now.payloadType === PAYLOAD_TYPE[now.codec]);
  return same ? { ...n, codec: now.codec, payloadType: now.payloadType } : n;
}

/** Our answer to an in-dialog offer (RFC 3264 8): as answer(), with the direction that mirrors the peer's. */
export function answerOffer(side: SdpSide, offered: Negotiated): string {
  return answer(side, offered).replace(/^a=sendrecv$/m, `a=${MIRROR[offered.direction]}`);
}

/**
 * What the stream is to be connected with after the peer's new SDP, or
 * undefined when there is nothing to connect (no destination yet). On hold
 * the stream keeps its destination and only learns the direction.
 */
export function streamAfter(now: Negotiated | undefined, offered: Negotiated): Negotiated | undefined {
  const next = holds(offered) && now ? { ...now, direction: offered.direction } : offered;
  return next.address === '0.0.0.0' ? undefined : next;
}
