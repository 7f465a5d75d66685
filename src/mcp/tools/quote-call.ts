import { CallQuote } from '../../calls/schemas.ts';
import { QuoteQuery } from '../../calls/routes/quote.ts';
import { quoteCall } from '../../calls/quote.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'quote_call',
  title: 'Quote a phone call',
  description:
    'Before placing a call: the destination country and number kind of `to` (E.164), its minute factor, and whether a call of ' +
    '`purpose` (with `consent`) may be placed there now (country rules, calling hours in the callee\'s local time), with the reason. ' +
    'Mirrors GET /v1/calls/quote.',
  http: 'GET /v1/calls/quote',
  permission: 'calls:read',
  write: false,
  input: QuoteQuery.extend({ to: QuoteQuery.shape.to.describe('The number to call, E.164 (+ country code and number)') }),
  output: CallQuote,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: async (ctx, q) => quoteCall(ctx.deps, ctx.cred, q),
  text: (q) =>
    `${q.to} (${q.country}, ${q.kind}): ${q.allowed ? 'can be called' : 'cannot be called'}; minute factor ${q.minute_factor}. ${q.reason}` +
    `${q.purpose ? `\nPurpose ${q.purpose.purpose}: ${q.purpose.allowed ? 'allowed' : `not allowed (${q.purpose.code})`}${q.purpose.message ? `: ${q.purpose.message}` : ''}` : ''}\n${json(q)}`,
});
