import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { Call } from '../../calls/schemas.ts';
import { hangupCall } from '../../calls/events.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'hang_up',
  title: 'Hang up a phone call',
  description:
    'Ends a call: a ringing call is canceled, an answered one completed. An ended call comes back unchanged, so repeating it is safe. ' +
    'Mirrors POST /v1/calls/{id}/hangup.',
  http: 'POST /v1/calls/{id}/hangup',
  permission: 'calls:dial',
  write: true,
  input: z.object({ call_id: PathId.describe('The call (call_...)') }),
  output: Call,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  run: (ctx, { call_id }) => hangupCall(ctx.deps, ctx.cred, call_id),
  text: (c) => `Call ${c.id} is ${c.status}${c.end_reason ? ` (${c.end_reason})` : ''}.\n${json(c)}`,
});
