// Every event type the service emits (api.md section 6), declared once: the
// machines' emits, the events written without a machine (writeEvent, a
// transcript's), the webhook endpoints' enabled_events, the event log's
// filter and the OpenAPI enum all take it from here, and a test holds it to
// api.md's list and to the OpenAPI document.

export const EVENT_TYPES = [
  'room.started', 'room.ended', 'room.participant_joined', 'room.participant_left',
  'session.started', 'session.ended',
  'meeting.created', 'meeting.canceled', 'meeting.updated',
  'booking.created', 'booking.rescheduled', 'booking.canceled',
  'transcript.ready', 'summary.ready',
  'call.blocked', 'call.ringing', 'call.answered', 'call.voicemail', 'call.completed', 'call.failed', 'call.ended',
  'voice.consent_completed', 'voice.ready', 'voice.failed', 'voice.revoked', 'voice.expired',
  'usage.threshold', 'credential.expiring',
] as const;

export type EventTypeName = (typeof EVENT_TYPES)[number];

/** What a machine emits: events of the declared types only. */
export type Emits<T extends EventTypeName> = T extends EventTypeName ? { type: T } : never;
