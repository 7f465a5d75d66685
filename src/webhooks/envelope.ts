// The public shape of an event (api.md section 6, Delivery 2-3): the same
// envelope is stored in the event log and sent to endpoints.

export type Envelope = {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  org_id: string;
  api_version: 'v1';
  data: { object: Record<string, unknown> & { id: string } };
};

/** Keys whose values are third-party speech or transcript text; never published. */
const TEXT_KEYS = new Set(['text', 'text_in_hear_lang', 'untrusted_content', 'transcript', 'segments', 'content']);
/** Keys that carry phone numbers whatever their format. */
const PHONE_KEY = /(^|_)(to|from|phone|number|caller_id|msisdn)$/;
const E164 = /^\+\d{6,15}$/;

/** Keeps the first three digits (country and area) and the last two: "+14155550123" -> "+141******23". */
export function maskPhone(value: string): string {
  const digits = value.replace(/\D/g, '');
  if (digits.length < 6) return value.replace(/\d/g, '*');
  const head = value.startsWith('+') ? `+${digits.slice(0, 3)}` : digits.slice(0, 3);
  return `${head}${'*'.repeat(digits.length - 5)}${digits.slice(-2)}`;
}

/**
 * A copy of data.object fit for the log and for webhooks: phone numbers
 * masked (by key name, or any E.164-looking string), transcript text removed.
 */
export function publicObject(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => publicObject(v, key));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (TEXT_KEYS.has(k)) continue;
      out[k] = publicObject(v, k);
    }
    return out;
  }
  if (typeof value === 'string' && key !== 'id' && (E164.test(value) || (PHONE_KEY.test(key) && /\d{6}/.test(value.replace(/\D/g, ''))))) {
    return maskPhone(value);
  }
  return value;
}

export function envelope(e: { id: string; type: string; created: Date; livemode: boolean; orgId: string; object: unknown }): Envelope {
  return {
    id: e.id,
    type: e.type,
    created: Math.floor(e.created.getTime() / 1000),
    livemode: e.livemode,
    org_id: e.orgId,
    api_version: 'v1',
    data: { object: publicObject(e.object) as Envelope['data']['object'] },
  };
}

/** The envelope of an outbox row (the outbox is the event log). */
export function fromOutbox(r: { event_id: string; type: string; object_id: string; created_at: Date; livemode: boolean; org_id: string; data: { object?: unknown } | null }): Envelope {
  return envelope({ id: r.event_id, type: r.type, created: r.created_at, livemode: r.livemode, orgId: r.org_id, object: r.data?.object ?? { id: r.object_id } });
}
