import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../errors.ts';
import { CSP, securityHeaders } from '../../http/pages.ts';
import { ID_PATTERN } from '../../ids.ts';
import type { LogBus, Services } from '../../services.ts';
import { AudioSocket, CLOSE } from '../audio.ts';
import { participantOf, type ParticipantRow } from '../participants.ts';
import { PageSpeech } from '../read-aloud.ts';
import { RoomHub } from '../stream.ts';

// What the room page's routes share, a file each here (no API key; a room's
// `url` and its join links open it):
//
// - GET  /r/:id[?t=TOKEN]      the page (room.ts): a join screen (name and languages,
//                              prefilled by a join link), then the room; an
//                              ended or canceled room says so (a private one
//                              without its link, not its title), a meeting not
//                              started says when it starts
// - POST /r/:id/participants   joins ({ name, speak, hear, t? }): 201 with the
//                              participant and the secret of its page (join.ts)
// - GET  /r/:id/stream         the room live, as Server-Sent Events (stream.ts);
//                              ?participant=&secret= (EventSource sends no headers)
// - POST /r/:id/say            a phrase typed by the participant ({ participant, secret, text }) (say.ts)
// - POST /r/:id/leave          leaves ({ participant, secret }; also sent by the tab closing) (leave.ts)
// - GET  /r/:id/audio          WebSocket: the person's microphone (rooms/audio.ts); ?participant=&secret=,
//                              checked before the upgrade (401 otherwise) (audio.ts)
// - GET  /r/:id/speech?seq=N   "read aloud": a phrase spoken in the person's language, WAV (speech.ts)
// - GET  /r/:id/audio-info     ?speak=&hear=[&t=]: what works here for these languages: the microphone,
//                              "read aloud", the translation routes with the room's languages (audio-info.ts)
//
// A private room is joined only with a join link of the room; a public
// room's url is enough. The page loads nothing from another origin, under the
// pages' strict Content-Security-Policy (http/pages.ts); JSON errors are
// problem+json with `field` and `error`, never a 5xx for bad input.

export const hide = { schema: { hide: true } } as const;

/** The room page may use the microphone, for this origin only; nothing else of the device. */
const PERMISSIONS = 'microphone=(self), camera=(), geolocation=(), display-capture=()';

/** What this process keeps for the room pages: their live streams, the read-aloud voices, and each person's open microphone. */
export type RoomPages = {
  hub: RoomHub;
  speech: PageSpeech;
  /** The open microphone of each person on this process: a second one (another tab) replaces the first. */
  microphones: Map<string, AudioSocket>;
  /** The room notifications of every process (a microphone goes when its person leaves: mic-watch.ts). */
  bus: LogBus;
  /** WebSockets open on this process (the pages' WebSocket server's, once registered: pages.ts); tolk_open_connections reads it. */
  openSockets: () => number;
};

export type RoomPageDeps = Services & { rooms: RoomPages };

/** Made once per app, closed with it: the streams end before the server waits for its connections (the browsers reconnect elsewhere). */
export function roomPages(app: FastifyInstance, s: Services): RoomPages {
  // The pages wait for a room's phrases and people as every reader of a log does: on the
  // log's notifications (the LogBus port), which the app gives its services before the pages.
  const bus = s.logBus;
  if (!bus) throw new Error('the room pages need Services.logBus (the log notifications they wait on)');
  const hub = new RoomHub(s, bus, app.log);
  app.addHook('preClose', async () => hub.closeAll());
  app.decorate('roomHub', hub);
  const speech = new PageSpeech(s);
  const microphones = new Map<string, AudioSocket>();
  app.addHook('preClose', async () => {
    for (const m of microphones.values()) m.close(CLOSE.goingAway, 'the server is restarting');
    await Promise.all([...microphones.values()].map((m) => m.settled()));
  });
  app.addHook('onClose', async () => speech.close());
  const pages: RoomPages = { hub, speech, microphones, bus, openSockets: () => microphones.size };
  app.decorate('roomPages', pages);
  return pages;
}

export const Who = { participant: z.string().max(100), secret: z.string().max(100) };
export type WhoQuery = { participant?: string; secret?: string };

/** The participant a request names (?participant=&secret=), or 401. */
export async function who(s: Services, roomId: string, q: WhoQuery): Promise<ParticipantRow> {
  if (!ID_PATTERN.test(roomId)) throw new ApiError('not_found', 'No such room');
  return participantOf(s.pool, roomId, String(q.participant ?? ''), String(q.secret ?? ''));
}

export function page(reply: FastifyReply, status: number, html: string): FastifyReply {
  // The page's address may carry a join link: not indexed, not cached, not sent on.
  return securityHeaders(reply, { private: true, csp: CSP }).header('Permissions-Policy', PERMISSIONS).code(status).send(html);
}

declare module 'fastify' {
  interface FastifyInstance {
    roomHub: RoomHub;
    roomPages: RoomPages;
  }
}
