import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { SayBody, SayResult } from '../../sessions/routes/say.ts';
import { say } from '../../sessions/say.ts';
import { defineTool, json } from '../tool.ts';

export default defineTool({
  name: 'say',
  title: 'Speak in the room',
  description:
    'Speaks text in the room as your agent: it is translated into every listener language and spoken with the session\'s voice ' +
    '(on a call, to the callee in their language). Returns at once with the utterance id, how long it waits behind earlier speech ' +
    '(queued_ms) and the seconds charged (seconds spoken times listener languages; a live key pays them from the organization\'s ' +
    'balance, a test key from none). A spending limit, or a live balance that cannot pay, gives spend_limit_reached. ' +
    'Its progress comes to listen as say.started and say.finished (or say.interrupted when, on a call, the callee talks over an ' +
    'interruptible say: the default there) with meta.utterance_id. ' +
    'Mirrors POST /v1/sessions/{id}/say.',
  http: 'POST /v1/sessions/{id}/say',
  permission: 'rooms:join',
  write: true,
  input: z.object({ session_id: PathId.describe('Your session (ses_...)'), ...SayBody.shape }),
  output: SayResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (ctx, { session_id, ...body }) => say(ctx.deps, ctx.cred, session_id, body),
  text: (r) => `Said (utterance ${r.utterance_id}); queued ${r.queued_ms} ms; charged ${r.charged_seconds} s.\n${json(r)}`,
});
