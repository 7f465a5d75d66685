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
// Path ids are not pattern-checked here: an id that cannot exist answers 404 like any unknown id.
export const IdParams = z.object({ id: z.string() });

/** `limit` of every list: 1-100, default 20, as Stripe's lists (api.md leaves the bounds open). */
export const ListLimit = z.coerce.number().int().min(1).max(100).default(20);

/** Error responses every route can give; the OpenAPI document marks them application/problem+json. */
export const errorResponses = {
  '4XX': Problem,
  '5XX': Problem,
} as const;

export const Email = z.email().max(254);
export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z.string().max(255).describe('Required; any unique value up to 255 characters'),
});

/** `{data: [...]}`: a list that is never paged. */
export const DataList = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** A calendar date in a query (YYYY-MM-DD). */
export const DateOnly = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
