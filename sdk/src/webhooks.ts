// Verifying a webhook request (api.md section 6, Delivery 4):
//
//   Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]
//
// v1 is the HMAC-SHA256 of "<t>.<raw body>" keyed with the endpoint's secret
// (the whole `whsec_…` string). It is checked over the raw body, before any
// JSON parsing; with Web Crypto's verify, whose comparison is constant-time;
// against every v1 the header carries (two for 24 hours after a rotation) and
// every secret given (a receiver that holds the old and the new one while it
// switches). A timestamp more than `toleranceSeconds` (default 300) from now is
// refused, so a captured request cannot be replayed later. Web Crypto is the
// platform's in Node 20+, Deno, browsers and edge runtimes, so this works in each.

import { TolkSignatureVerificationError } from './errors.ts';

/** The envelope every delivery carries (api.md section 6, Delivery 2). */
export type WebhookEvent = {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  org_id: string;
  api_version: string;
  data: { object: { id: string; [field: string]: unknown } };
};

export type VerifyOptions = {
  /** Largest distance between the signature's timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds since the epoch (default Date.now()). */
  now?: number;
};

export const SIGNATURE_HEADER = 'Service-Signature';

function fail(message: string): TolkSignatureVerificationError {
  return new TolkSignatureVerificationError({ code: 'signature_verification_failed', status: 0, message, request_id: null });
}

function bytesOf(body: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  throw new TypeError('Tolk.webhooks.verify: pass the raw body (a string, Uint8Array or ArrayBuffer) exactly as it arrived, not parsed JSON');
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return null;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** t and the v1 values of a Service-Signature header. */
function parseHeader(header: string): { t: number; v1: string[] } {
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1') v1.push(v);
  }
  if (t === null) throw fail(`${SIGNATURE_HEADER}: no timestamp (t=…) in "${header.slice(0, 100)}"`);
  if (v1.length === 0) throw fail(`${SIGNATURE_HEADER}: no v1 signature in "${header.slice(0, 100)}"`);
  return { t, v1 };
}

/**
 * The event of a webhook request, once its Service-Signature verifies with
 * `secret` (or any of several); throws TolkSignatureVerificationError otherwise.
 */
export async function verify(
  rawBody: string | Uint8Array | ArrayBuffer,
  header: string | null | undefined,
  secret: string | readonly string[],
  o: VerifyOptions = {},
): Promise<WebhookEvent> {
  const body = bytesOf(rawBody);
  if (typeof header !== 'string' || header.trim() === '') throw fail(`no ${SIGNATURE_HEADER} header: not a request the service signed`);
  const secrets = (typeof secret === 'string' ? [secret] : [...secret]).filter((s) => typeof s === 'string' && s !== '');
  if (secrets.length === 0) throw new TypeError('Tolk.webhooks.verify: the endpoint secret (whsec_…) is required');
  const { t, v1 } = parseHeader(header);

  const prefix = new TextEncoder().encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);
  const subtle = globalThis.crypto.subtle;
  const keys = await Promise.all(secrets.map((s) =>
    subtle.importKey('raw', new TextEncoder().encode(s), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify'])));
  let matched = false;
  for (const sig of v1.map(hexBytes)) {
    if (sig === null) continue;
    for (const key of keys) if (await subtle.verify('HMAC', key, sig, signed)) matched = true;
  }
  if (!matched) throw fail(`${SIGNATURE_HEADER}: no v1 signature matches the body with the secret given (a body changed, parsed or re-encoded, or the wrong endpoint's secret)`);

  const tolerance = o.toleranceSeconds ?? 300;
  const age = (o.now ?? Date.now()) / 1000 - t;
  if (Math.abs(age) > tolerance) {
    throw fail(`${SIGNATURE_HEADER}: signed ${Math.round(Math.abs(age))} s ${age > 0 ? 'ago' : 'ahead'}, beyond the tolerance of ${tolerance} s (a replay, or a clock off)`);
  }
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw fail('the signed body is not JSON');
  }
  return event as WebhookEvent;
}
