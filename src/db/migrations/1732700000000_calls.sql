-- Up Migration

-- Phone calls (api.md: Call). The lifecycle is the `call` actor
-- (machines/call.ts); this row is its queryable projection, written in the
-- same transaction as every transition.
CREATE TABLE calls (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  credential_id text NOT NULL,
  to_e164 text NOT NULL,
  from_number_id text NOT NULL,
  from_e164 text NOT NULL,
  country text NOT NULL,
  kind text NOT NULL,
  purpose text NOT NULL,
  consent_kind text,
  consent_ref text,
  agent_lang text NOT NULL,
  remote_lang text NOT NULL,
  voice_id text,
  -- Billed seconds per answered second (policies/: country and number kind).
  minute_factor numeric NOT NULL,
  -- Longest answered time the key's per-call limit allows (null: no limit).
  max_answered_seconds numeric,
  status text NOT NULL CHECK (status IN ('created', 'queued', 'ringing', 'answered', 'completed', 'busy', 'voicemail', 'no_answer', 'failed', 'blocked')),
  end_reason text,
  -- Why the policy table refused it (blocked calls): its stable code and sentence.
  blocked_code text,
  blocked_reason text,
  session_id text,
  billed_seconds numeric NOT NULL DEFAULT 0,
  -- The gateway process holding its SIP dialog (gateways.id), once dialed.
  gateway_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  answered_at timestamptz,
  ended_at timestamptz
);
CREATE INDEX calls_list ON calls (credential_id, created_at DESC, id DESC);
CREATE INDEX calls_open ON calls (gateway_id) WHERE status IN ('created', 'queued', 'ringing', 'answered');
-- Marketing attempts per number in a rolling window (FR: at most 4 in 30 days).
CREATE INDEX calls_attempts ON calls (to_e164, created_at) WHERE purpose = 'marketing' AND status <> 'blocked';

-- Every process that runs a SIP gateway, with its heartbeat. A call whose
-- gateway stopped beating ends as failed/gateway_lost (the sweep).
CREATE TABLE gateways (
  id text PRIMARY KEY,
  sip_address text NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- A call's agent session has no room: it listens to and speaks on the call's
-- line. Its log (room_segments, room_logs) is keyed by log_id: the room's id
-- for a room's session, the call's id for a call's.
ALTER TABLE agent_sessions
  ALTER COLUMN room_id DROP NOT NULL,
  ADD COLUMN log_id text,
  ADD COLUMN call_id text;
UPDATE agent_sessions SET log_id = room_id;
ALTER TABLE agent_sessions
  ALTER COLUMN log_id SET NOT NULL,
  ADD CONSTRAINT agent_sessions_room_or_call CHECK ((room_id IS NULL) <> (call_id IS NULL));
DROP INDEX agent_sessions_room_open;
DROP INDEX agent_sessions_room_langs;
CREATE INDEX agent_sessions_log_open ON agent_sessions (log_id) WHERE status <> 'ended';
CREATE INDEX agent_sessions_log_langs ON agent_sessions (log_id, hear_lang) WHERE status <> 'ended';

-- A call's AI disclosure is on its line like an announcement, worded per language.
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure'));

-- The simulator's speakers of a line: a room has two robots; a call's line
-- has one, the simulated callee (robot_b_lang null), named robot_a_name.
ALTER TABLE sim_rooms
  ALTER COLUMN robot_b_lang DROP NOT NULL,
  ADD COLUMN robot_a_name text NOT NULL DEFAULT 'Robot A';

-- Down Migration
DELETE FROM room_segments WHERE kind = 'disclosure';
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement'));
ALTER TABLE sim_rooms DROP COLUMN robot_a_name;
DELETE FROM sim_rooms WHERE robot_b_lang IS NULL;
ALTER TABLE sim_rooms ALTER COLUMN robot_b_lang SET NOT NULL;
DELETE FROM agent_sessions WHERE room_id IS NULL;
DROP INDEX agent_sessions_log_langs;
DROP INDEX agent_sessions_log_open;
CREATE INDEX agent_sessions_room_langs ON agent_sessions (room_id, hear_lang) WHERE status <> 'ended';
CREATE INDEX agent_sessions_room_open ON agent_sessions (room_id) WHERE status <> 'ended';
ALTER TABLE agent_sessions DROP CONSTRAINT agent_sessions_room_or_call, DROP COLUMN call_id, DROP COLUMN log_id;
ALTER TABLE agent_sessions ALTER COLUMN room_id SET NOT NULL;
DROP TABLE gateways;
DROP TABLE calls;
