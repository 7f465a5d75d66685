import { Call, PlaceCallBody } from '../../calls/schemas.ts';
import { placeAndDial } from '../../calls/place.ts';
import { bodyOf, defineTool, IdempotencyArg, json, once } from '../tool.ts';

export default defineTool({
  name: 'place_call',
  title: 'Place a translated phone call',
  description:
    'Calls a phone number as an AI agent that first tells the callee it is an AI, in their language. You speak and hear in agent_lang; ' +
    'the callee hears and speaks remote_lang. The call\'s conversation is its session (session_id): listen to hear the callee, say to ' +
    'speak, hang_up (or leave) to end. A destination or purpose the country rules refuse gives a call with status blocked and the reason. ' +
    'Check with quote_call first. Test keys call the simulator; live keys place real calls through the operator\'s trunk, billed from the balance, ' +
    'or get not_available_yet where the service has no trunk or engines for them. Mirrors POST /v1/calls.',
  http: 'POST /v1/calls',
  permission: 'calls:dial',
  write: true,
  input: PlaceCallBody.extend({ idempotency_key: IdempotencyArg }),
  output: Call,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (ctx, { idempotency_key, ...body }, raw) =>
    placeAndDial(ctx.deps, ctx.cred, body, (work) => once(ctx, idempotency_key, { method: 'POST', path: '/v1/calls', body: bodyOf(raw, 'idempotency_key') }, work), ctx.log),
  text: (c) =>
    c.status === 'blocked'
      ? `Call ${c.id} was blocked: ${c.blocked?.code}: ${c.blocked?.message}\n${json(c)}`
      : `Call ${c.id} to ${c.to} is ${c.status}. Listen with session_id ${c.session_id} and cursor 0.\n${json(c)}`,
});
