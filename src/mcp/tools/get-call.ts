import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { Call } from '../../calls/schemas.ts';
import { getCall } from '../../calls/calls.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'get_call',
  title: 'Get a phone call',
  description: 'A call placed with place_call: its status (queued, ringing, answered, completed, busy, voicemail, no_answer, failed, blocked), times, end reason and session. Mirrors GET /v1/calls/{id}.',
  http: 'GET /v1/calls/{id}',
  permission: 'calls:read',
  write: false,
  input: z.object({ call_id: PathId.describe('The call (call_...)') }),
  output: Call,
  annotations: { readOnlyHint: true, openWorldHint: false },
  run: (ctx, { call_id }) => getCall(ctx.deps, ctx.cred, call_id),
  text: (c) => `Call ${c.id} to ${c.to}: ${c.status}${c.end_reason ? ` (${c.end_reason})` : ''}.\n${json(c)}`,
});
