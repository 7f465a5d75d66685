import { z } from 'zod';

// Shapes every resource shares (api.md section 2). These zod schemas, and
// those in each capability's schemas.ts, validate requests, type the handlers,
// serialize responses and generate /v1/openapi.json.

export const Problem = z
  .object({
    type: z.string().describe('Link ending in #<code>'),
    title: z.string().describe('Equal to code'),
    status: z.int(),
    code: z.string().describe('Stable; branch on it'),
    message: z.string().describe('For people; names the field for invalid_request'),
    request_id: z.string().regex(/^req_/),
  })
  .meta({ id: 'Problem' });

export const LANG = /^[a-z]{2,3}(-[A-Za-z]{2,4})?$/;
export const Lang = z.string().regex(LANG, 'must be a language code such as en or pt-BR');
/**
 * An id in a path. Ids are short (ID_PATTERN allows at most 100 characters), so a longer one is
 * refused naming the parameter (`id: Too big: …`) and never echoed back. Within that length the
 * pattern is not checked here: an id that cannot exist answers 404 like any unknown id.
 */
export const PathId = z.string().max(100);
export const IdParams = z.object({ id: PathId });

const INTEGER = /^-?\d+$/;
/**
 * An integer in the query string (`limit`, `cursor`, `wait`, …); `bounds` adds its limits and
 * default: `queryInt((n) => n.min(1).max(100).default(20))`. Only digits (and a leading minus)
 * are read as a number, so `abc`, `1.5`, `1e3`, `0x10` and an empty value answer
 * `<name>: must be an integer` (z.coerce read `abc` as NaN and the empty value as 0). The
 * OpenAPI document still says integer, with the bounds and the default.
 */
export function queryInt<T extends z.ZodType>(bounds: (n: z.ZodInt) => T) {
  const n = z.int({
    error: (iss) => iss.code !== 'invalid_type' ? undefined
      // A number here came from digits too many to be exact (read as Infinity).
      : typeof iss.input === 'number' ? `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}` : 'must be an integer',
  });
  return z.preprocess((v) => (typeof v === 'string' && INTEGER.test(v) ? Number(v) : v), bounds(n));
}

/** `limit` of every list: 1-100, default 20, as Stripe's lists (api.md leaves the bounds open). */
export const ListLimit = queryInt((n) => n.min(1).max(100).default(20));

/**
 * A body whose every field is optional: no body at all (none sent, an empty one with
 * `Content-Type: application/json`, or `null`) is the same as `{}`. Fastify hands a missing body
 * to the validator as null. The OpenAPI document marks such a body not required (http/openapi.ts).
 */
export function optionalBody<T extends z.ZodObject>(schema: T) {
  return z.preprocess((v) => v ?? {}, schema);
}

/** Error responses every route can give; the OpenAPI document marks them application/problem+json. */
export const errorResponses = {
  '4XX': Problem,
  '5XX': Problem,
} as const;

export const Email = z.email().max(254);

/**
 * Control characters (C0 and C1: line breaks, tabs, escape, ...) and the
 * Unicode direction overrides and isolates, which can reorder how a name
 * reads in a mail client or a page (a guest named `Evil\r\nBcc: ...` put
 * lines of the attacker's own into invitation mails).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The same, but line breaks and tabs: what a phrase of several lines may hold. */
const CONTROL_IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/**
 * A name or title: one line, no control characters. Every name and title that
 * reaches a mail or a page (guest, participant, agent, person, voice, room,
 * meeting) is one; `bounds` adds its lengths: `OneLine((s) => s.min(1).max(80))`.
 */
export function OneLine<T extends z.ZodType<string>>(bounds: (s: z.ZodString) => T) {
  return bounds(z.string()).refine((v) => !CONTROL.test(v), 'must be one line of text, without control characters (line breaks, tabs) or direction overrides');
}

/** Free text of a phrase (say): line breaks and tabs allowed, other control characters not. */
export function FreeText<T extends z.ZodType<string>>(bounds: (s: z.ZodString) => T) {
  return bounds(z.string()).refine((v) => !CONTROL_IN_TEXT.test(v), 'must be text without control characters (line breaks and tabs are fine) or direction overrides');
}
export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z.string().max(255).describe('Required; any unique value up to 255 characters'),
});

/** `{data: [...]}`: a list that is never paged. */
export const DataList = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** A calendar date in a query (YYYY-MM-DD). */
export const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
