import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { prepared } from '../db/pool.ts';
import { ApiError, invalid } from '../errors.ts';
import { FreeText, Lang, OneLine } from '../http/schemas.ts';
import { CSP, PAGE_STYLE, pageErrorHandler, parseBody, securityHeaders, sendAsset } from '../http/pages.ts';
import { ID_PATTERN } from '../ids.ts';
import { now, type Services } from '../services.ts';
import type { SessionBus } from '../sessions/bus.ts';
import { linkSigningKey, verifyJoinToken } from './join-links.ts';
import { joinAsPerson, leaveAsPerson, leaveUnlessBack, openStream, participantOf, sayAsPerson } from './participants.ts';
import { ROOM_SCRIPT, ROOM_STYLE, roomPageHtml, roomProblemHtml, type RoomView } from './page-view.ts';
import { RoomHub } from './stream.ts';
import { readFileSync } from 'node:fs';
import websocket from '@fastify/websocket';
import { AudioSocket, CLOSE, MAX_MESSAGE_BYTES } from './audio.ts';
import { PageSpeech, readAloud } from './read-aloud.ts';
import type { ParticipantRow } from './participants.ts';

/** The page's audio scripts, real files beside this one (the microphone's worklet must be a module of its own). */
const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
const AUDIO_SCRIPT = asset('room-audio.js');
const MIC_WORKLET = asset('mic-worklet.js');
/** The room page may use the microphone, for this origin only; nothing else of the device. */
const PERMISSIONS = 'microphone=(self), camera=(), geolocation=(), display-capture=()';

// The room page: what a room's `url` and its join links open (no API key).
//
// - GET  /r/:id[?t=TOKEN]      the page: a join screen (name and languages,
//                              prefilled by a join link), then the room; an
//                              ended or canceled room says so (a private one
//                              without its link, not its title), a meeting not
//                              started says when it starts
// - POST /r/:id/participants   joins ({ name, speak, hear, t? }): 201 with the
//                              participant and the secret of its page
// - GET  /r/:id/stream         the room live, as Server-Sent Events (stream.ts);
//                              ?participant=&secret= (EventSource sends no headers)
// - POST /r/:id/say            a phrase typed by the participant ({ participant, secret, text })
// - POST /r/:id/leave          leaves ({ participant, secret }; also sent by the tab closing)
// - GET  /r/:id/audio          WebSocket: the person's microphone (audio.ts); ?participant=&secret=,
//                              checked before the upgrade (401 otherwise)
// - GET  /r/:id/speech?seq=N   "read aloud": a phrase spoken in the person's language, WAV (read-aloud.ts)
// - GET  /r/:id/audio-info     ?speak=&hear=: whether the microphone and "read aloud" can work here
// - GET  /r/assets/room.js|.css|room-audio.js|mic-worklet.js
//
// A private room is joined only with a join link of the room; a public
// room's url is enough. The page loads nothing from another origin, under the
// pages' strict Content-Security-Policy (http/pages.ts); JSON errors are
// problem+json with `field` and `error`, never a 5xx for bad input.

const JoinBody = z.object({
  name: OneLine((s) => s.trim().min(1, 'required').max(80)),
  speak: Lang,
  hear: Lang,
  t: z.string().max(4096).optional(),
});
const Who = { participant: z.string().max(100), secret: z.string().max(100) };
const SayBody = z.object({ ...Who, text: FreeText((s) => s.min(1).max(1000)) });
const LeaveBody = z.object({ ...Who, unloading: z.boolean().optional() });

type RoomRow = RoomView['room'];

async function roomOf(s: Services, id: string): Promise<RoomRow | null> {
  if (!ID_PATTERN.test(id)) return null;
  const { rows } = await s.pool.query<RoomRow>(prepared(`SELECT id, title, status, visibility, starts_at, langs FROM rooms WHERE id = $1`, [id]));
  return rows[0] ?? null;
}

function page(reply: FastifyReply, status: number, html: string): FastifyReply {
  // The page's address may carry a join link: not indexed, not cached, not sent on.
  return securityHeaders(reply, { private: true, csp: CSP }).header('Permissions-Policy', PERMISSIONS).code(status).send(html);
}

/** The participant a request names (?participant=&secret=), or 401. */
async function who(s: Services, roomId: string, q: { participant?: string; secret?: string }): Promise<ParticipantRow> {
  if (!ID_PATTERN.test(roomId)) throw new ApiError('not_found', 'No such room');
  return participantOf(s.pool, roomId, String(q.participant ?? ''), String(q.secret ?? ''));
}

export default function register(app: FastifyInstance, s: Services, bus: SessionBus) {
  const hub = new RoomHub(s, bus, app.log);
  // Before the server waits for its connections to end: the pages' streams end (their browsers reconnect elsewhere).
  app.addHook('preClose', async () => hub.closeAll());
  app.decorate('roomHub', hub);

  const speech = new PageSpeech(s);
  /** The open microphone of each person on this process: a second one (another tab) replaces the first. */
  const microphones = new Map<string, AudioSocket>();
  app.addHook('preClose', async () => {
    for (const m of microphones.values()) m.close(CLOSE.goingAway, 'the server is restarting');
    await Promise.all([...microphones.values()].map((m) => m.settled()));
  });
  app.addHook('onClose', async () => speech.close());

  app.register(async (pages) => {
    pages.setErrorHandler(pageErrorHandler(s));
    const hide = { schema: { hide: true } };
    await pages.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES + 1024 } });

    pages.get('/r/assets/room.js', hide, async (_req, reply) => sendAsset(reply, 'text/javascript', ROOM_SCRIPT));
    pages.get('/r/assets/room.css', hide, async (_req, reply) => sendAsset(reply, 'text/css', PAGE_STYLE + ROOM_STYLE));
    pages.get('/r/assets/room-audio.js', hide, async (_req, reply) => sendAsset(reply, 'text/javascript', AUDIO_SCRIPT));
    pages.get('/r/assets/mic-worklet.js', hide, async (_req, reply) => sendAsset(reply, 'text/javascript', MIC_WORKLET));

    type WhoQuery = { participant?: string; secret?: string };
    pages.get<{ Params: { id: string }; Querystring: WhoQuery }>('/r/:id/audio', {
      ...hide,
      websocket: true,
      // Refused before the upgrade: no socket without a participant of the room.
      preValidation: async (req) => {
        (req as unknown as { participant: ParticipantRow }).participant = await who(s, req.params.id, req.query);
      },
    }, (socket, req) => {
      const p = (req as unknown as { participant: ParticipantRow }).participant;
      microphones.get(p.id)?.close(CLOSE.replaced, 'your microphone was opened in another tab');
      const mic = new AudioSocket(s, socket, req.params.id, p, req.log);
      microphones.set(p.id, mic);
      socket.on('close', () => { if (microphones.get(p.id) === mic) microphones.delete(p.id); });
    });

    pages.get<{ Params: { id: string }; Querystring: WhoQuery & { seq?: string } }>('/r/:id/speech', hide, async (req, reply) => {
      const p = await who(s, req.params.id, req.query);
      const r = await readAloud(s, speech, req.params.id, p, String(req.query.seq ?? ''));
      return reply.type('audio/wav').header('Cache-Control', 'private, max-age=3600').header('X-Content-Type-Options', 'nosniff')
        .header('Content-Language', r.lang).send(r.wav);
    });

    pages.get<{ Params: { id: string }; Querystring: { speak?: string; hear?: string } }>('/r/:id/audio-info', hide, async (req) => {
      const speak = Lang.safeParse(req.query.speak);
      const hear = Lang.safeParse(req.query.hear);
      if (!speak.success) throw invalid('speak', 'a language code, e.g. en');
      if (!hear.success) throw invalid('hear', 'a language code, e.g. es');
      return {
        microphone: { available: s.recognizer?.hears(speak.data) ?? false, lang: speak.data },
        read_aloud: { available: speech.speaks(hear.data), lang: hear.data },
      };
    });

    pages.get<{ Params: { id: string }; Querystring: { t?: string | string[] } }>('/r/:id', hide, async (req, reply) => {
      const room = await roomOf(s, req.params.id);
      if (!room) return page(reply, 404, roomProblemHtml('not_found', req.headers['accept-language']));
      let token: string | null = null;
      let prefill: RoomView['prefill'] = {};
      if (req.query.t !== undefined) {
        // `t` given twice (an array) is an altered link too.
        const claims = typeof req.query.t === 'string' ? verifyJoinToken(await linkSigningKey(s.pool), req.query.t, now(s).getTime()) : null;
        if (!claims || claims.room_id !== room.id) return page(reply, 403, roomProblemHtml('bad_link', req.headers['accept-language']));
        token = req.query.t as string;
        prefill = { ...(claims.name ? { name: claims.name } : {}), ...(claims.speak ? { speak: claims.speak } : {}), ...(claims.hear ? { hear: claims.hear } : {}) };
      } else if (room.visibility === 'private' || !s.config.anonymousJoin) {
        // TOLK_ANONYMOUS_JOIN=off: a public room's url alone lets nobody in either.
        if (room.status === 'live' || room.status === 'scheduled') return page(reply, 403, roomProblemHtml('private', req.headers['accept-language']));
        // Over, the page says so, but not what it was: a private room's title is
        // for those with its link (a booked meeting's names the guest).
        return page(reply, 200, roomPageHtml({ room: { ...room, title: '' }, token, prefill, accept: req.headers['accept-language'] }));
      }
      return page(reply, 200, roomPageHtml({ room, token, prefill, accept: req.headers['accept-language'] }));
    });

    pages.post<{ Params: { id: string } }>('/r/:id/participants', hide, async (req, reply) => {
      const body = parseBody(JoinBody, req.body);
      return reply.code(201).send(await joinAsPerson(s, req.params.id, body, req.ip));
    });

    pages.post<{ Params: { id: string } }>('/r/:id/say', hide, async (req, reply) => {
      const body = parseBody(SayBody, req.body);
      return reply.code(202).send(await sayAsPerson(s, req.params.id, body.participant, body.secret, body.text));
    });

    pages.post<{ Params: { id: string } }>('/r/:id/leave', hide, async (req) => {
      const body = parseBody(LeaveBody, req.body);
      if (body.unloading) {
        // The tab is closing, or reloading: the person leaves unless their page is back in a few seconds.
        await leaveUnlessBack(s, req.params.id, body.participant, body.secret);
        return { left: false };
      }
      await leaveAsPerson(s, req.params.id, body.participant, body.secret);
      return { left: true };
    });

    pages.get<{ Params: { id: string }; Querystring: { participant?: string; secret?: string; after?: string } }>('/r/:id/stream', hide, async (req, reply) => {
      const roomId = req.params.id;
      if (!ID_PATTERN.test(roomId)) throw new ApiError('not_found', 'No such room');
      const p = await participantOf(s.pool, roomId, String(req.query.participant ?? ''), String(req.query.secret ?? ''));
      // Where the page resumes: EventSource's Last-Event-ID (the last phrase it got), else where it joined.
      // Never before the join: what was said before the person came is not theirs to read, whatever the page sends.
      const last = req.headers['last-event-id'] ?? req.query.after;
      const resume = typeof last === 'string' && /^\d{1,15}$/.test(last) ? Number(last) : null;
      const after = Math.max(resume ?? 0, Number(p.from_seq));
      // At most streamsPerParticipant open at once, on every process (a reload's old stream closes as the new one opens).
      const stream = await openStream(s, p.id);
      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
        'X-Request-Id': req.id,
      });
      res.write(`retry: 2000\n\n`);
      hub.attach(roomId, res, p, after, stream);
    });
  });
}

declare module 'fastify' {
  interface FastifyInstance {
    roomHub: RoomHub;
  }
}
