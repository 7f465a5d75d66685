-- Up Migration

-- Meetings and bookings (api.md: Room as meeting, Event type, Slots, Booking).

-- A meeting is a room of kind 'meeting' (machines/room.ts SCHEDULE). DELETE
-- /v1/meetings/{id} cancels it: a state of its own, `canceled`.
ALTER TABLE rooms DROP CONSTRAINT rooms_status_check;
ALTER TABLE rooms ADD CONSTRAINT rooms_status_check CHECK (status IN ('scheduled', 'live', 'ended', 'canceled'));
-- The host's time zone (calendar files show the time in it), and the
-- calendar SEQUENCE, raised on every change of the meeting (a new time, the
-- cancellation): calendars replace an event only by a higher SEQUENCE. The
-- meeting's timers carry the sequence they were set for, so a timer of a
-- time that changed since does nothing.
ALTER TABLE rooms ADD COLUMN tz text;
ALTER TABLE rooms ADD COLUMN sequence integer NOT NULL DEFAULT 0;
CREATE INDEX rooms_meetings ON rooms (org_id, livemode, starts_at, id) WHERE kind = 'meeting';
-- The expiry sweep looks only at rooms still open (a canceled one is done too).
DROP INDEX rooms_open_by_expiry;
CREATE INDEX rooms_open_by_expiry ON rooms (expires_at) WHERE status IN ('scheduled', 'live');

-- Every mail the service sends: kept here always (tolk mail list), and sent
-- to SMTP_URL when it is live mode's and SMTP_URL is set, by a pg-boss job
-- per message (mail/jobs.ts) that records how it went.
ALTER TABLE mail_outbox ADD COLUMN livemode boolean NOT NULL DEFAULT false;
ALTER TABLE mail_outbox ADD COLUMN html text;
-- METHOD of the calendar file (REQUEST, CANCEL) when ics is set.
ALTER TABLE mail_outbox ADD COLUMN ics_method text;
-- kept: never to leave the outbox (test mode, or no SMTP_URL); queued: a
-- send job exists; sent: the SMTP server accepted it; failed: every attempt failed.
ALTER TABLE mail_outbox ADD COLUMN status text NOT NULL DEFAULT 'kept' CHECK (status IN ('kept', 'queued', 'sent', 'failed'));
ALTER TABLE mail_outbox ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE mail_outbox ADD COLUMN last_error text;
ALTER TABLE mail_outbox ADD COLUMN message_id text;
CREATE INDEX mail_outbox_to ON mail_outbox (lower(to_addr), created_at DESC);

-- The language the host speaks (tolk event-type create --lang): a booked
-- meeting's room gets it beside the guest's.
ALTER TABLE event_types ADD COLUMN lang text NOT NULL DEFAULT 'en';

-- Bookings. The host is the event type's page (a person or a team): two
-- bookings of one host can never overlap, by construction: an exclusion
-- constraint over the active bookings' time ranges, per host and mode
-- (a test booking never takes a live slot).
CREATE EXTENSION IF NOT EXISTS btree_gist;
CREATE TABLE bookings (
  id text PRIMARY KEY,
  event_type_id text NOT NULL REFERENCES event_types (id),
  host text NOT NULL,
  -- The host's organization (the event type's), and the booker's (the caller's; the same when booking one's own link).
  org_id text NOT NULL REFERENCES organizations (id),
  booker_org_id text NOT NULL REFERENCES organizations (id),
  credential_id text NOT NULL,
  livemode boolean NOT NULL,
  room_id text NOT NULL REFERENCES rooms (id),
  status text NOT NULL CHECK (status IN ('confirmed', 'rescheduled', 'canceled', 'completed')),
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  guest_name text NOT NULL,
  guest_email text NOT NULL,
  guest_speak text NOT NULL,
  guest_hear text,
  guest_tz text NOT NULL,
  guest_locale text NOT NULL,
  answers jsonb NOT NULL DEFAULT '{}',
  -- The secret of manage_url (the guest's page to cancel or move the booking).
  manage_token text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  CHECK (end_at > start_at),
  CONSTRAINT bookings_no_overlap EXCLUDE USING gist (host WITH =, livemode WITH =, tstzrange(start_at, end_at) WITH &&)
    WHERE (status IN ('confirmed', 'rescheduled'))
);
CREATE INDEX bookings_event_type ON bookings (event_type_id, start_at);
CREATE INDEX bookings_room ON bookings (room_id);

-- Down Migration
DROP TABLE bookings;
ALTER TABLE event_types DROP COLUMN lang;
DROP INDEX mail_outbox_to;
ALTER TABLE mail_outbox DROP COLUMN livemode, DROP COLUMN html, DROP COLUMN ics_method, DROP COLUMN status,
  DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN message_id;
DROP INDEX rooms_open_by_expiry;
CREATE INDEX rooms_open_by_expiry ON rooms (expires_at) WHERE status <> 'ended';
DROP INDEX rooms_meetings;
ALTER TABLE rooms DROP COLUMN sequence, DROP COLUMN tz;
UPDATE rooms SET status = 'ended' WHERE status = 'canceled';
ALTER TABLE rooms DROP CONSTRAINT rooms_status_check;
ALTER TABLE rooms ADD CONSTRAINT rooms_status_check CHECK (status IN ('scheduled', 'live', 'ended'));
