// SIP message helpers of the embedded stack (sip-stack.ts) and the simulated
// callee (callee.ts), over the npm `sip` package's parsed messages: tokens
// and tags, header reading, the requests our dialogs send (CANCEL, ACK,
// BYE), the answer's To tag, and small constants shared by the transport and
// the dialogs. What every adapter says it takes (Allow, Supported, Accept)
// is session-timer.ts's.

import { randomBytes } from 'node:crypto';
import sip from 'sip';

export const MAX_FORWARDS = 70;
/** The methods of the SIP registry: anything else is answered 501 (RFC 3261 21.5.2), these 405 where we do not take them. */
export const KNOWN_METHODS = new Set(['INVITE', 'ACK', 'BYE', 'CANCEL', 'OPTIONS', 'REGISTER', 'PRACK', 'SUBSCRIBE', 'NOTIFY', 'PUBLISH', 'INFO', 'REFER', 'MESSAGE', 'UPDATE']);
/** Headers of an INVITE that the stack writes itself: a caller's extra headers may not name them. */
export const RESERVED_HEADERS = new Set(['via', 'from', 'to', 'call-id', 'cseq', 'contact', 'max-forwards', 'content-type', 'content-length', 'route', 'record-route']);

export function randomToken(bytes = 8): string {
  return randomBytes(bytes).toString('hex');
}

/** The tag of a To or From header, parsed by `sip` or not. */
export function tagOf(h: unknown): string | undefined {
  if (h && typeof h === 'object' && 'params' in h) {
    const tag = (h as sip.Aor).params.tag;
    return tag ?? undefined;
  }
  if (typeof h === 'string') return /;\s*tag=([^;,\s]+)/i.exec(h)?.[1];
  return undefined;
}

/** A header value `sip` parsed into a plain string (generic headers), lower-cased name. */
export function headerText(m: sip.Message, name: string): string | undefined {
  const v = m.headers[name.toLowerCase()];
  return typeof v === 'string' ? v : undefined;
}

/** Headers written for every adapter (`Allow`, `Min-SE`), with their names lower-cased as `sip` keeps them. */
export function sipHeaders(h: Readonly<Record<string, string>>): sip.Headers {
  return Object.fromEntries(Object.entries(h).map(([name, value]) => [name.toLowerCase(), value]));
}

/** The number a SIP user part dials, without visual separators or a leading `+`, to compare two targets. */
export function numberOf(user: string | undefined): string {
  return (user ?? '').split(';')[0]!.replace(/[-.()\s]/g, '').replace(/^\+/, '');
}

/** The first Contact of a message as a URI string, if it has one. */
export function contactUri(m: sip.Message): string | undefined {
  const contact = m.headers.contact;
  const first = Array.isArray(contact) ? contact[0] : undefined;
  return first ? sip.stringifyUri(first.uri) : undefined;
}

/** A final response outside a dialog carries a To tag of ours (RFC 3261 8.2.6.2): `tag`, or a new one. */
export function withToTag(rq: sip.Message, rs: sip.Message, tag = randomToken(8)): sip.Message {
  const to = rq.headers.to;
  if (to && typeof to === 'object' && !to.params.tag) rs.headers.to = { ...to, params: { ...to.params, tag } };
  return rs;
}

/** `sip` writes a name-addr without display name as `To:  <uri>`: written here instead. */
export function formatAors(rs: sip.Message): void {
  for (const h of ['to', 'from'] as const) {
    const v = rs.headers[h];
    if (v && typeof v === 'object') rs.headers[h] = formatAor(v);
  }
}

/** A To/From/Contact value as text: `"name" <uri>;params`. */
export function formatAor(a: sip.Aor): string {
  const params = Object.entries(a.params ?? {}).map(([k, v]) => (v === null ? `;${k}` : `;${k}=${v}`)).join('');
  return `${a.name ? `${a.name} ` : ''}<${sip.stringifyUri(a.uri)}>${params}`;
}

/** Identifies a transaction as `sip` does: CSeq method, Call-ID, top Via branch. */
export function transactionKey(m: sip.Message): string {
  const cseq = m.headers.cseq;
  const method = typeof cseq === 'object' ? cseq.method : String(cseq ?? '').split(/\s+/)[1];
  return [method, m.headers['call-id'], m.headers.via?.[0]?.params.branch].join();
}

/**
 * A Map whose entries are forgotten `ttlMs` after they were set, and which
 * never holds more than `max`. Entries are dropped as new ones are set, and
 * by prune(), which its owner calls now and then: after a burst of requests
 * (a flood) nothing is set any more, and what the burst left must not stay.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, { value: V; at: number }>();
  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs: number, max = 100_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }
  get size(): number {
    return this.entries.size;
  }
  get(k: K): V | undefined {
    const e = this.entries.get(k);
    return e && Date.now() - e.at < this.ttlMs ? e.value : undefined;
  }
  set(k: K, value: V): void {
    this.entries.delete(k);
    this.entries.set(k, { value, at: Date.now() });
    this.prune();
  }
  /** Drops, oldest first, what is too old or too many. */
  prune(): void {
    const now = Date.now();
    for (const [key, e] of this.entries) {
      if (now - e.at < this.ttlMs && this.entries.size <= this.max) break;
      this.entries.delete(key);
    }
  }
  clear(): void {
    this.entries.clear();
  }
}

/**
 * An ASCII SDP body (`sip` counts Content-Length in characters, which is
 * bytes only for ASCII): the offer has PCMU, PCMA and telephone-event; an
 * answer picks PCMU and telephone-event.
 */
export function audioSdp(host: string, mediaPort: number, sessionId: string, kind: 'offer' | 'answer' = 'offer'): string {
  const offer = kind === 'offer';
  return [
    'v=0',
    `o=tolk ${sessionId} ${sessionId} IN IP4 ${host}`,
    's=tolk',
    `c=IN IP4 ${host}`,
    't=0 0',
    `m=audio ${mediaPort} RTP/AVP ${offer ? '0 8 101' : '0 101'}`,
    'a=rtpmap:0 PCMU/8000',
    ...(offer ? ['a=rtpmap:8 PCMA/8000'] : []),
    'a=rtpmap:101 telephone-event/8000',
    'a=fmtp:101 0-16',
    'a=ptime:20',
    'a=sendrecv',
    '',
  ].join('\r\n');
}

// --- The requests of our dialogs -------------------------------------------------

/** Our side of a dialog, as its requests carry it. */
export type DialogIds = { callId: string; from: string; to: string };
/** The far end of a dialog (one fork): its tag, where requests go, through which proxies. */
export type RemoteTarget = { tag: string; target: string; route: string | undefined };

/**
 * The CANCEL of an INVITE: hop by hop, so the same Request-URI, top Via
 * (branch), From, To, Call-ID and CSeq number. `sip` keeps its branch as given.
 */
export function cancelOf(invite: sip.Message, ids: DialogIds): sip.Message {
  const via = invite.headers.via?.[0];
  const cseq = invite.headers.cseq;
  return {
    method: 'CANCEL',
    uri: invite.uri,
    headers: {
      via: via ? [{ ...via, params: { ...via.params } }] : [],
      'max-forwards': MAX_FORWARDS,
      // Where the INVITE went (RFC 3261 9.1: the same Route).
      ...(invite.headers.route ? { route: invite.headers.route } : {}),
      from: ids.from,
      to: ids.to,
      'call-id': ids.callId,
      cseq: { seq: typeof cseq === 'object' ? cseq.seq : 1, method: 'CANCEL' },
    },
  };
}

/**
 * The ACK of a 2xx, a transaction of its own (`sip` only ACKs non-2xx): to
 * the 2xx's Contact, with its route set and tags, CSeq of the INVITE. Built
 * afresh each time (`sip` rewrites Via and Route in place), with the same
 * branch, so a retransmitted 2xx gets the very same ACK.
 */
export function ackOf(ids: DialogIds, peer: RemoteTarget, inviteSeq: number, branch: string): sip.Message {
  return {
    method: 'ACK',
    uri: peer.target,
    headers: {
      via: [{ params: { branch } }],
      'max-forwards': MAX_FORWARDS,
      ...(peer.route ? { route: peer.route } : {}),
      from: ids.from,
      to: `${ids.to};tag=${peer.tag}`,
      'call-id': ids.callId,
      cseq: { seq: inviteSeq, method: 'ACK' },
    },
  };
}

/** A BYE in the dialog (the next CSeq of ours). */
export function byeOf(ids: DialogIds & { contact: string }, peer: RemoteTarget, seq: number): sip.Message {
  return {
    method: 'BYE',
    uri: peer.target,
    headers: {
      via: [],
      'max-forwards': MAX_FORWARDS,
      ...(peer.route ? { route: peer.route } : {}),
      from: ids.from,
      to: `${ids.to};tag=${peer.tag}`,
      'call-id': ids.callId,
      cseq: { seq, method: 'BYE' },
      contact: ids.contact,
    },
  };
}
