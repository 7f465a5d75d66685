import { z } from 'zod';
import { PathId } from '../../http/schemas.ts';
import { Session } from '../../sessions/schemas.ts';
import { JoinBody } from '../../sessions/routes/join.ts';
import { joinRoom } from '../../sessions/join.ts';
import { bodyOf, defineTool, IdempotencyArg, json, once } from '../tool.ts';

export default defineTool({
  name: 'join_room',
  title: 'Join a room as an AI agent',
  description:
    'Joins a live-translation room as an AI agent participant (shown with an AI badge) and returns its session. ' +
    'You speak in speak_lang and hear everyone else translated into hear_lang. Then use listen (session_id, cursor 0) to hear ' +
    'what people say, say to speak, and leave when done. With announce=true (default) every listener hears that an AI assistant joined. ' +
    'Test keys run on the simulator (two robots talk). Live keys join when the server\'s translation engines cover every pair between ' +
    'your languages and the room\'s, and are billed from the organization\'s balance; otherwise not_available_yet names the pairs no ' +
    'engine covers. Mirrors POST /v1/rooms/{id}/agent-sessions.',
  http: 'POST /v1/rooms/{id}/agent-sessions',
  permission: 'rooms:join',
  write: true,
  input: z.object({
    room_id: PathId.describe('The room to join (room_...)'),
    ...JoinBody.shape,
    speak_lang: JoinBody.shape.speak_lang.describe('The language you speak in (en, pt-BR, ...)'),
    hear_lang: JoinBody.shape.hear_lang.describe("The language you hear others in, translated"),
    idempotency_key: IdempotencyArg,
  }),
  output: Session,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  run: (ctx, { room_id, idempotency_key, ...body }, raw) =>
    once(ctx, idempotency_key, { method: 'POST', path: `/v1/rooms/${room_id}/agent-sessions`, body: bodyOf(raw, 'room_id', 'idempotency_key') }, async (tx) => ({
      status: 201,
      body: await joinRoom(ctx.deps, tx, ctx.cred, room_id, body),
    })),
  text: (s) =>
    `Joined room ${s.room_id} as "${s.name}": session ${s.id}, status ${s.status}, speaking ${s.speak_lang}, hearing ${s.hear_lang}. ` +
    `Next: listen with session_id ${s.id} and cursor 0.\n${json(s)}`,
});
