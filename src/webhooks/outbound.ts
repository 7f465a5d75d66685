import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { forbiddenKind, parseIp } from './addresses.ts';

export { forbiddenAddressReason } from './addresses.ts';

// The one way this server makes an HTTP request to a customer-supplied url:
// webhook deliveries. A webhook url is attacker-controlled input, so every
// request must be kept from reaching our own network (server-side request
// forgery): loopback, private ranges, cloud metadata services, and every
// IPv6 form that tunnels or translates to those.
//
// The rules, applied when an endpoint is created and again at every delivery
// (DNS answers change between the two):
//   - the url parses (WHATWG URL), has no credentials, and uses https on
//     port 443 or 8443 (WEBHOOK_PORTS);
//   - its host is not a local name (localhost, *.localhost, *.internal);
//   - its IP literal, or EVERY address its name resolves to, is ordinary
//     public unicast (see forbiddenAddressReason).
// Origins on the allow-list (local development, tests) skip the https, port
// and public-address rules, nothing else.
//
// A delivery connects to the very address that was vetted: the name is looked
// up once, and the socket's own lookup is replaced by one that answers with
// the vetted addresses, so a second DNS answer (DNS rebinding) can never be
// used. Redirects are never followed (the target would be unvetted), pooled
// connections are never reused (agent: false), and time and response size
// are bounded.

export type Resolved = { address: string; family: 4 | 6 };
export type Lookup = (hostname: string) => Promise<Resolved[]>;
export type OutboundOptions = {
  allowOrigins: string[];
  lookup?: Lookup;
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** The ports allowed outside allowOrigins: WEBHOOK_PORTS (tests name their local server's). */
  ports?: readonly string[];
};

// The ports a delivery may go to: https's own, and 8443, its usual alternative
// (a receiver behind a second TLS listener). Any port would make deliveries a
// way to knock on a public host's other services (SSH on 22, SMTP on 25,
// databases) from our address, reading the outcome in the delivery log.
export const WEBHOOK_PORTS = ['443', '8443'] as const;

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
// Upper bound on one name lookup; lowered to timeoutMs when that is shorter,
// so a delivery's DNS step never outlasts its own HTTP window.
const DNS_TIMEOUT_MS = 5_000;
const USER_AGENT = 'Tolk-Webhooks/1.0';

// ---------------------------------------------------------------------------
// DNS

const systemLookup: Lookup = async (hostname) => {
  // order 'verbatim' is the non-deprecated spelling of verbatim: true: keep the
  // resolver's preference order (RFC 6724) rather than putting IPv4 first.
  const answers = await dns.promises.lookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

type Resolution = { ok: true; answers: Resolved[] } | { ok: false; code: string };

/** Looks the name up once, within the time bound; any failure is reported by its error code. */
async function resolve(lookup: Lookup, hostname: string, timeoutMs: number): Promise<Resolution> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<Resolution>((done) => {
    timer = setTimeout(() => done({ ok: false, code: 'ETIMEOUT' }), timeoutMs);
  });
  // The system resolver cannot be cancelled; on timeout its answer is simply ignored.
  const answered = Promise.resolve()
    .then(() => lookup(hostname))
    .then(
      (answers): Resolution =>
        Array.isArray(answers) && answers.length > 0 ? { ok: true, answers } : { ok: false, code: 'ENODATA' },
      (err: unknown): Resolution => {
        const code = (err as { code?: unknown } | null)?.code;
        return { ok: false, code: typeof code === 'string' && code !== '' ? code : 'EDNS' };
      },
    );
  try {
    return await Promise.race([answered, expired]);
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------
// Url vetting

/**
 * On success, `addresses` are the addresses a delivery may connect to,
 * canonicalised: the IP literal itself, or every answer of the one lookup.
 * They are empty only when the host did not resolve and requireResolution was
 * false. For an exempt (allow-listed) origin they hold the literal or the
 * lookup's answers unchecked, and are empty if the name did not resolve.
 */
export type Vetted = { ok: true; url: URL; exempt: boolean; addresses: Resolved[] } | { ok: false; reason: string };

// The failure carries, for postWebhook, the DNS error of an unresolvable host.
type Verdict = Vetted | { ok: false; reason: string; dnsError: string };

function originOf(entry: string): string | null {
  try {
    const origin = new URL(entry).origin;
    // Non-special schemes have the opaque origin "null", equal for all of them.
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/** Checks a webhook url: syntax, scheme, port, allow-list, IP literal or DNS answers. reason is a sentence fit for a 400 message, e.g. "url must use https" or "url resolves to a private address (10.0.0.1)". */
export async function vetUrl(raw: string, opts: OutboundOptions & { requireResolution: boolean }): Promise<Vetted> {
  const verdict = await vet(raw, opts, opts.requireResolution);
  return verdict.ok ? verdict : { ok: false, reason: verdict.reason };
}

async function vet(raw: string, opts: OutboundOptions, requireResolution: boolean): Promise<Verdict> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not a valid absolute URL' };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'url must not contain a username or password' };
  }
  // Exempt or not, only http(s) is ever spoken.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'url must use https' };
  const exempt = opts.allowOrigins.some((entry) => originOf(entry) === url.origin);
  if (!exempt && url.protocol !== 'https:') return { ok: false, reason: 'url must use https' };
  // WHATWG URL leaves the port empty when it is the scheme's default (443).
  const port = url.port === '' ? '443' : url.port;
  const ports = opts.ports ?? WEBHOOK_PORTS;
  if (!exempt && !ports.includes(port)) {
    return { ok: false, reason: `url port ${port} is not allowed; webhooks go to port ${ports.join(' or ')}` };
  }

  // IPv6 literals come bracketed; IPv4 literals come already normalised by
  // WHATWG URL (2130706433, 0177.0.0.1, 0x7f.1 and 127.1 all read 127.0.0.1).
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

  if (net.isIP(host) !== 0) {
    const addr = parseIp(host);
    if (!addr) return { ok: false, reason: `url host ${host} is not a valid IP address` };
    const kind = exempt ? null : forbiddenKind(addr);
    if (kind !== null) return { ok: false, reason: `url points to ${kind} address (${addr.toString()})` };
    return { ok: true, url, exempt, addresses: [{ address: addr.toString(), family: addr.kind() === 'ipv6' ? 6 : 4 }] };
  }

  // Names that mean "this machine" or "this network" are refused before any
  // lookup: their answers may differ between here and wherever DNS is asked.
  const name = host.replace(/\.+$/, '');
  if (!exempt) {
    if (name === '') return { ok: false, reason: 'url must have a host name' };
    if (name === 'localhost' || name.endsWith('.localhost')) {
      return { ok: false, reason: `url host ${host} is a local name` };
    }
    if (name === 'internal' || name.endsWith('.internal')) {
      return { ok: false, reason: `url host ${host} is an internal name` };
    }
  }

  const resolution = await resolve(
    opts.lookup ?? systemLookup,
    host,
    Math.min(DNS_TIMEOUT_MS, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS),
  );
  if (!resolution.ok) {
    // At creation a name that does not resolve yet is accepted: deliveries vet
    // it again and fail (and are retried) until it does.
    if (!requireResolution) return { ok: true, url, exempt, addresses: [] };
    return {
      ok: false,
      reason: `url host ${host} does not resolve (${resolution.code})`,
      dnsError: `dns: ${resolution.code} ${host}`,
    };
  }

  // One forbidden answer refuses the name: the connection could go to any of them.
  const addresses: Resolved[] = [];
  for (const answer of resolution.answers) {
    const addr = parseIp(String(answer?.address));
    if (!addr) return { ok: false, reason: `url resolves to an invalid address (${String(answer?.address)})` };
    const kind = exempt ? null : forbiddenKind(addr);
    if (kind !== null) return { ok: false, reason: `url resolves to ${kind} address (${addr.toString()})` };
    // The family is taken from the address itself, not from the answer's claim.
    addresses.push({ address: addr.toString(), family: addr.kind() === 'ipv6' ? 6 : 4 });
  }
  return { ok: true, url, exempt, addresses };
}

// ---------------------------------------------------------------------------
// Delivery

export type PostResult = { ok: boolean; status: number | null; latencyMs: number; error: string | null };

// Headers that describe the connection or the framing of the body: ours to
// set. A caller's Host would also change the TLS server name (Node derives SNI
// from it), so it is dropped too; the url decides both.
const CONTROLLED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer']);

/**
 * Vets the url again, then POSTs body with headers to the vetted address. Never throws.
 * latencyMs covers the whole attempt, DNS included. ok is true for any 2xx.
 */
export async function postWebhook(
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  opts: OutboundOptions,
): Promise<PostResult> {
  const started = performance.now();
  const done = (r: Omit<PostResult, 'latencyMs'>): PostResult => ({
    ...r,
    latencyMs: Math.round(performance.now() - started),
  });
  try {
    const verdict = await vet(rawUrl, opts, true);
    if (!verdict.ok) {
      return done({ ok: false, status: null, error: 'dnsError' in verdict ? verdict.dnsError : verdict.reason });
    }
    return done(await send(verdict.url, verdict.addresses, body, headers, opts));
  } catch (err) {
    // Nothing above should throw; this keeps the "never throws" promise if it does.
    return done({ ok: false, status: null, error: `internal error: ${err instanceof Error ? err.message : String(err)}` });
  }
}

/** A socket lookup that answers only with the vetted addresses: the connection cannot go anywhere else. */
function pinnedLookup(addresses: Resolved[]): net.LookupFunction {
  return (_hostname, options, callback) => {
    // With autoSelectFamily (Node's default) net asks for all addresses and
    // tries them in turn ("happy eyeballs"); otherwise it wants just one.
    if (options.all) {
      callback(null, addresses.map((a) => ({ address: a.address, family: a.family })));
    } else {
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    }
  };
}

function statusError(status: number): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `redirect (${status}) not followed`;
  return `http status ${status}`;
}

function send(
  url: URL,
  addresses: Resolved[],
  body: string,
  callerHeaders: Record<string, string>,
  opts: OutboundOptions,
): Promise<Omit<PostResult, 'latencyMs'>> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxResponseBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const first = addresses[0];
  // vet() with requireResolution never succeeds without an address; kept as a guard.
  if (!first) return Promise.resolve({ ok: false, status: null, error: `dns: ENODATA ${url.hostname}` });

  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(callerHeaders)) {
    if (!CONTROLLED_HEADERS.has(key.toLowerCase())) headers[key] = value;
  }
  const has = (name: string) => Object.keys(headers).some((k) => k.toLowerCase() === name);
  if (!has('content-type')) headers['content-type'] = 'application/json';
  if (!has('user-agent')) headers['user-agent'] = USER_AGENT;
  headers['content-length'] = String(Buffer.byteLength(body));

  const secure = url.protocol === 'https:';
  const literal = url.hostname.startsWith('[') || net.isIP(url.hostname) !== 0;
  const options: https.RequestOptions = {
    method: 'POST',
    // An IP literal is connected to as is (net never looks it up); a name
    // stays the request's host, so Host and TLS SNI/certificate checks use
    // it, while the pinned lookup decides where the socket goes.
    host: literal ? first.address : url.hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers,
    // A fresh agent per request: no kept-alive socket to some other address
    // can be picked up, and the connection closes after the answer.
    agent: false,
    ...(literal ? {} : { lookup: pinnedLookup(addresses) }),
  };

  return new Promise((settle) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    let status: number | null = null;
    const finish = (result: Omit<PostResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // Always release the socket: after a full answer, a capped body or a timeout alike.
      req?.destroy();
      settle(result);
    };
    // Once the status line is in, it is the answer; the body is only drained.
    const finishWithStatus = () => {
      if (status === null) return;
      const error = statusError(status);
      finish({ ok: error === null, status, error });
    };

    // One window for connect, request and response. A receiver that answered
    // but stalls its body keeps its status: it has accepted (or refused) the
    // event, and retrying a 2xx would deliver it twice.
    const timer = setTimeout(() => {
      if (status !== null) finishWithStatus();
      else finish({ ok: false, status: null, error: `timeout after ${timeoutMs} ms` });
    }, timeoutMs);

    try {
      req = (secure ? https : http).request(options, (res) => {
        status = res.statusCode ?? null;
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          // Past the cap the rest is not read: finishing destroys the socket.
          if (received >= maxResponseBytes) finishWithStatus();
        });
        res.on('end', finishWithStatus);
        // A body cut short (reset, close) still leaves the status standing.
        res.on('error', finishWithStatus);
        res.on('close', finishWithStatus);
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (status !== null) finishWithStatus();
        else finish({ ok: false, status: null, error: err.message || err.code || 'request failed' });
      });
      req.end(body);
    } catch (err) {
      // request() throws synchronously on e.g. a header value with control characters.
      finish({ ok: false, status: null, error: err instanceof Error ? err.message : String(err) });
    }
  });
}
