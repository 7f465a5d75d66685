import { createHmac, randomBytes } from 'node:crypto';

// Webhook signatures (api.md section 6, Delivery 4).
//
// Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">,
// keyed with the endpoint secret string itself (the scheme Stripe's libraries
// verify). During a rotation overlap the header carries one v1 per live secret,
// newest first, and a receiver accepts if either matches.
//
// The same secrets also sign the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature), whose key is the base64 part of the
// secret after `whsec_`, over "<id>.<t>.<raw body>", as "v1,<base64>" values
// separated by spaces.

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 24 random bytes in base64 (32 characters, no padding). */
export function newSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

export function serviceSignature(secrets: string[], t: number, body: string): string {
  const parts = [`t=${t}`];
  for (const s of secrets) parts.push(`v1=${createHmac('sha256', s).update(`${t}.${body}`).digest('hex')}`);
  return parts.join(',');
}

export function standardSignature(secrets: string[], id: string, t: number, body: string): string {
  return secrets
    .map((s) => {
      const key = Buffer.from(s.startsWith(PREFIX) ? s.slice(PREFIX.length) : s, 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${t}.${body}`).digest('base64')}`;
    })
    .join(' ');
}

/** Every signing header of one attempt. */
export function signatureHeaders(secrets: string[], eventId: string, t: number, body: string): Record<string, string> {
  return {
    'service-signature': serviceSignature(secrets, t, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(t),
    'webhook-signature': standardSignature(secrets, eventId, t, body),
  };
}
