import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { Session } from '../../sessions/schemas.ts';
import { leave } from '../../sessions/leave.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'leave',
  title: 'Leave the room',
  description:
    'Ends your session: the agent leaves the room (on a call, hangs up) and the conversation becomes a transcript. ' +
    'Leaving an ended session gives session_ended. Mirrors POST /v1/sessions/{id}/leave.',
  http: 'POST /v1/sessions/{id}/leave',
  permission: 'rooms:join',
  write: true,
  input: z.object({ session_id: PathId.describe('Your session (ses_...)') }),
  output: Session,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  run: (ctx, { session_id }) => leave(ctx.deps, ctx.cred, session_id),
  text: (s) => `Left: session ${s.id} is ${s.status}; billed ${s.billed_seconds} s.\n${json(s)}`,
});
