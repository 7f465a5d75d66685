import ipaddr from 'ipaddr.js';
import { prepared, type Client } from '../db/pool.ts';
import { ApiError } from '../errors.ts';

// Limits on what anonymous visitors of the public pages may do: mail sent
// from the booking and consent pages, joins, streams and phrases of the room
// page (README, "Public pages and their limits"). Each limit is a bucket
// (who or what it limits: a client address, a recipient address, a link, a
// room, a participant) counted in fixed windows in PostgreSQL
// (quota_counters), so every server process shares one count.
//
// takeQuotas counts inside the transaction of the change it guards: a
// request refused by one limit, or failing later for another reason (slot
// taken), rolls its counts back with everything else, so only what really
// happened (a mail queued, a join made) is counted, and the count can never
// pass the limit however many requests race (the upsert locks each bucket's
// row until the transaction ends). Buckets are taken in one order (sorted),
// so two transactions never wait on each other's buckets.

export type Quota = {
  /** What is limited, e.g. `mail:to:ana@example.com`. */
  bucket: string;
  limit: number;
  windowSeconds: number;
  /** For the person refused: what there were too many of, e.g. `bookings from your network`. */
  what: string;
};

/** How long until `seconds` have passed, for people: "45 seconds", "12 minutes", "3 hours". */
export function inWords(seconds: number): string {
  if (seconds < 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  if (seconds < 90 * 60) return `${Math.ceil(seconds / 60)} minutes`;
  return `${Math.ceil(seconds / 3600)} hours`;
}

/**
 * Counts one for every quota within tx; when one is over its limit, throws
 * 429 rate_limited with Retry-After (the caller's transaction then rolls
 * back every count it took). A quota with limit 0 or less refuses at once.
 */
export async function takeQuotas(tx: Client, quotas: Quota[], nowMs: number): Promise<void> {
  const unique = new Map<string, Quota>();
  for (const q of quotas) unique.set(`${q.bucket}\n${q.windowSeconds}`, q);
  const list = [...unique.values()].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowSeconds - b.windowSeconds));
  if (list.length === 0) return;
  const starts = list.map((q) => new Date(Math.floor(nowMs / (q.windowSeconds * 1000)) * q.windowSeconds * 1000));
  const { rows } = await tx.query<{ bucket: string; window_seconds: number; count: number }>(prepared(
    `INSERT INTO quota_counters AS c (bucket, window_seconds, window_start, count)
     SELECT b, w, s, 1 FROM unnest($1::text[], $2::int[], $3::timestamptz[]) WITH ORDINALITY AS t(b, w, s, n) ORDER BY n
     ON CONFLICT (bucket, window_seconds, window_start) DO UPDATE SET count = c.count + 1
     RETURNING bucket, window_seconds, count`,
    [list.map((q) => q.bucket), list.map((q) => q.windowSeconds), starts],
  ));
  let worst: { q: Quota; retry: number } | null = null;
  list.forEach((q, i) => {
    const row = rows.find((r) => r.bucket === q.bucket && r.window_seconds === q.windowSeconds);
    if (!row || row.count <= q.limit) return;
    const retry = Math.max(1, Math.ceil((starts[i]!.getTime() + q.windowSeconds * 1000 - nowMs) / 1000));
    if (!worst || retry > worst.retry) worst = { q, retry };
  });
  if (worst) {
    const { q, retry } = worst as { q: Quota; retry: number };
    throw new ApiError('rate_limited', `Too many ${q.what}; please try again in ${inWords(retry)}`, { 'Retry-After': String(retry) });
  }
}

/**
 * The client a request's limits are kept for: its IPv4 address, or the /64
 * network of an IPv6 one (one subscriber's usual allocation, so cycling
 * through the addresses of one network does not multiply the budget).
 */
export function clientKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  try {
    const a = ipaddr.process(ip);
    if (a.kind() === 'ipv4') return a.toString();
    const parts = (a as ipaddr.IPv6).parts.slice(0, 4);
    return `${parts.map((p) => p.toString(16)).join(':')}::/64`;
  } catch {
    return ip.slice(0, 64);
  }
}

/**
 * One mailbox however its address is written: lower case, without a
 * sub-address (`ana+1@…` reaches `ana@…`), and for Gmail without dots, so
 * variations of one victim's address share one count.
 */
export function mailboxKey(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return email.trim().toLowerCase();
  let local = email.slice(0, at).trim().toLowerCase();
  const domain = email.slice(at + 1).trim().toLowerCase();
  local = local.split('+')[0]!;
  if (domain === 'gmail.com' || domain === 'googlemail.com') return `${local.replace(/\./g, '')}@gmail.com`;
  return `${local}@${domain}`;
}

type MailLimits = { mailPerClientHour: number; mailPerRecipientHour: number; mailPerRecipientDay: number };

/** The limits on mail an anonymous request causes: per client, and per recipient an hour and a day. */
export function mailQuotas(l: MailLimits, ip: string | undefined, recipient: string): Quota[] {
  const to = mailboxKey(recipient);
  return [
    { bucket: `mail:client:${clientKey(ip)}`, limit: l.mailPerClientHour, windowSeconds: 3600, what: 'e-mails sent from your network' },
    { bucket: `mail:to:${to}`, limit: l.mailPerRecipientHour, windowSeconds: 3600, what: 'e-mails to this address' },
    { bucket: `mail:to:${to}`, limit: l.mailPerRecipientDay, windowSeconds: 86_400, what: 'e-mails to this address today' },
  ];
}
