import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './http/route.ts';
import type { ListenDeps } from './sessions/listen.ts';
import meAccount from './account/routes/me.ts';
import balanceAccount from './account/routes/balance.ts';
import usageAccount from './account/routes/usage.ts';
import listRooms from './rooms/routes/list.ts';
import createRooms from './rooms/routes/create.ts';
import getRooms from './rooms/routes/get.ts';
import deleteRooms from './rooms/routes/delete.ts';
import joinLinksRooms from './rooms/routes/join-links.ts';
import eventTypesBookings from './bookings/routes/event-types.ts';
// The document's components are listed in the order their schemas load: the
// calls' (Call, CallQuote) before the catalog's (PhoneNumber, Avatar).
import quoteCalls from './calls/routes/quote.ts';
import createCalls from './calls/routes/create.ts';
import listCalls from './calls/routes/list.ts';
import getCalls from './calls/routes/get.ts';
import hangupCalls from './calls/routes/hangup.ts';
import numbersCatalog from './catalog/routes/numbers.ts';
import avatarsCatalog from './catalog/routes/avatars.ts';
import catalogVoices from './voices/routes/catalog.ts';
import listEndpointsWebhooks from './webhooks/routes/list-endpoints.ts';
import createEndpointWebhooks from './webhooks/routes/create-endpoint.ts';
import deleteEndpointWebhooks from './webhooks/routes/delete-endpoint.ts';
import rotateSecretWebhooks from './webhooks/routes/rotate-secret.ts';
import testWebhooks from './webhooks/routes/test.ts';
import listDeliveriesWebhooks from './webhooks/routes/list-deliveries.ts';
import resendDeliveryWebhooks from './webhooks/routes/resend-delivery.ts';
import listEventsWebhooks from './webhooks/routes/list-events.ts';
import joinSessions from './sessions/routes/join.ts';
import getSessions from './sessions/routes/get.ts';
import saySessions from './sessions/routes/say.ts';
import eventsSessions from './sessions/routes/events.ts';
import leaveSessions from './sessions/routes/leave.ts';
import listTranscripts from './transcripts/routes/list.ts';
import getTranscripts from './transcripts/routes/get.ts';
import listMeetings from './rooms/meetings/routes/list.ts';
import createMeetings from './rooms/meetings/routes/create.ts';
import cancelMeetings from './rooms/meetings/routes/cancel.ts';
import slotsBookings from './bookings/routes/slots.ts';
import createBookings from './bookings/routes/create.ts';
import listVoices from './voices/routes/list.ts';
import cloneVoices from './voices/routes/clone.ts';
import addGenericVoices from './voices/routes/add-generic.ts';
import getVoices from './voices/routes/get.ts';
import deleteVoices from './voices/routes/delete.ts';
import completeConsentVoices from './voices/routes/complete-consent.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The session bus the app decorates itself with (app.ts), for what watches it from outside. */
    sessionBus: ListenDeps['bus'];
  }
}

/** The endpoints' deps, with the session bus and event reader that listening needs (sessions/listen.ts ListenDeps). */
export type V1Deps = RouteDeps & ListenDeps;

/** Every /v1 endpoint, one file each in its capability's routes/, registered here and nowhere else. */
export const V1_ROUTES: Array<(app: FastifyInstance, deps: V1Deps) => void> = [
  meAccount,
  balanceAccount,
  usageAccount,
  listRooms,
  createRooms,
  getRooms,
  deleteRooms,
  joinLinksRooms,
  eventTypesBookings,
  numbersCatalog,
  avatarsCatalog,
  catalogVoices,
  listEndpointsWebhooks,
  createEndpointWebhooks,
  deleteEndpointWebhooks,
  rotateSecretWebhooks,
  testWebhooks,
  listDeliveriesWebhooks,
  resendDeliveryWebhooks,
  listEventsWebhooks,
  joinSessions,
  getSessions,
  saySessions,
  eventsSessions,
  leaveSessions,
  listTranscripts,
  getTranscripts,
  listMeetings,
  createMeetings,
  cancelMeetings,
  slotsBookings,
  createBookings,
  listVoices,
  cloneVoices,
  addGenericVoices,
  getVoices,
  deleteVoices,
  completeConsentVoices,
  quoteCalls,
  createCalls,
  listCalls,
  getCalls,
  hangupCalls,
];
