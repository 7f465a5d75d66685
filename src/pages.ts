import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { pageErrorHandler } from './http/pages.ts';
import type { Services } from './services.ts';
import { MAX_MESSAGE_BYTES } from './rooms/audio.ts';
import { roomPages, type RoomPageDeps } from './rooms/pages/live.ts';
import assets from './http/assets.ts';
import favicon from './http/favicon.ts';
import landing from './http/landing.ts';
import bookPage from './bookings/pages/book.ts';
import slotsPage from './bookings/pages/slots.ts';
import createBookingPage from './bookings/pages/create.ts';
import managePage from './bookings/pages/manage.ts';
import cancelBookingPage from './bookings/pages/cancel.ts';
import rescheduleBookingPage from './bookings/pages/reschedule.ts';
import invitePage from './bookings/pages/invite.ts';
import consentPage from './voices/pages/consent.ts';
import codeConsent from './voices/pages/code.ts';
import verifyConsent from './voices/pages/verify.ts';
import recordingConsent from './voices/pages/recording.ts';
import statusConsent from './voices/pages/status.ts';
import revokeConsentPage from './voices/pages/revoke-page.ts';
import revokeConsent from './voices/pages/revoke.ts';
import roomPage from './rooms/pages/room.ts';
import joinRoom from './rooms/pages/join.ts';
import streamRoom from './rooms/pages/stream.ts';
import sayRoom from './rooms/pages/say.ts';
import leaveRoom from './rooms/pages/leave.ts';
import audioRoom from './rooms/pages/audio.ts';
import voicesRoom from './rooms/pages/voices.ts';
import speechRoom from './rooms/pages/speech.ts';
import audioInfoRoom from './rooms/pages/audio-info.ts';

export type PageDeps = RoomPageDeps;

/**
 * Every public page and the routes their scripts call (no API key, hidden
 * from /v1/openapi.json), one file each in its capability's pages/,
 * registered here and nowhere else; their scripts and stylesheets are
 * served by http/assets.ts.
 */
export const PAGE_ROUTES: Array<(app: FastifyInstance, deps: PageDeps) => void> = [
  assets,
  favicon,
  landing,
  bookPage,
  slotsPage,
  createBookingPage,
  managePage,
  cancelBookingPage,
  rescheduleBookingPage,
  invitePage,
  consentPage,
  codeConsent,
  verifyConsent,
  recordingConsent,
  statusConsent,
  revokeConsentPage,
  revokeConsent,
  roomPage,
  joinRoom,
  streamRoom,
  sayRoom,
  leaveRoom,
  audioRoom,
  voicesRoom,
  speechRoom,
  audioInfoRoom,
];

/** The pages in a context of their own: their errors (http/pages.ts), and WebSockets for the room's microphone. */
export function registerPages(app: FastifyInstance, s: Services) {
  const deps: PageDeps = { ...s, rooms: roomPages(app, s) };
  app.register(async (pages) => {
    pages.setErrorHandler(pageErrorHandler(`${s.config.publicBaseUrl}/docs/errors`));
    await pages.register(websocket, { options: { maxPayload: MAX_MESSAGE_BYTES + 1024 } });
    // The WebSocket server is this context's (not the root instance's): what tolk_open_connections counts.
    deps.rooms.openSockets = () => pages.websocketServer.clients.size;
    for (const register of PAGE_ROUTES) register(pages, deps);
  });
}
