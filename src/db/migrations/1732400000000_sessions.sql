-- Up Migration

-- AI agent sessions (api.md: Agent session). The lifecycle is the `session`
-- actor; this row is its queryable projection, written in the same transaction.
CREATE TABLE agent_sessions (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  credential_id text NOT NULL,
  room_id text NOT NULL REFERENCES rooms (id),
  name text NOT NULL,
  speak_lang text NOT NULL,
  hear_lang text NOT NULL,
  voice_id text,
  status text NOT NULL CHECK (status IN ('joining', 'active', 'ended')),
  billed_seconds numeric NOT NULL DEFAULT 0,
  -- Last session event number handed out. Taken under this row's lock, so
  -- events become visible in number order and a cursor never skips one.
  last_seq bigint NOT NULL DEFAULT 0,
  -- When this session's queued speech ends (say answers queued_ms from it).
  speaking_until timestamptz,
  started_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz
);
CREATE INDEX agent_sessions_room_open ON agent_sessions (room_id) WHERE status <> 'ended';
CREATE INDEX agent_sessions_org_open ON agent_sessions (org_id) WHERE status <> 'ended';

-- What was said in a room, in the speaker's language: robots, agents, announcements.
CREATE TABLE room_segments (
  id bigserial PRIMARY KEY,
  room_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('robot', 'agent', 'announcement')),
  speaker text,
  participant_id text NOT NULL,
  src_lang text NOT NULL,
  text text NOT NULL,
  session_id text,
  utterance_id text,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX room_segments_room ON room_segments (room_id, id);

-- What each session hears, numbered per session (the listening cursor).
CREATE TABLE session_events (
  session_id text NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  type text NOT NULL,
  segment_id bigint,
  speaker text,
  src_lang text,
  text text,
  text_in_hear_lang text,
  meta jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (session_id, seq)
);

-- The test-mode simulator: a room talks while it has an open session.
-- Every worker process paces rooms from here (SKIP LOCKED), so robots keep
-- talking whichever process is alive.
CREATE TABLE sim_rooms (
  room_id text PRIMARY KEY,
  robot_a_lang text NOT NULL,
  robot_b_lang text NOT NULL,
  phrase_n integer NOT NULL DEFAULT 0,
  next_phrase_at timestamptz NOT NULL
);
CREATE INDEX sim_rooms_due ON sim_rooms (next_phrase_at);

-- A robot's answer to a `say`, due within 3 seconds (scaled by TOLK_SIM_SPEED).
CREATE TABLE sim_replies (
  id bigserial PRIMARY KEY,
  room_id text NOT NULL,
  robot text NOT NULL CHECK (robot IN ('a', 'b')),
  reply_n integer NOT NULL,
  due_at timestamptz NOT NULL
);
CREATE INDEX sim_replies_due ON sim_replies (due_at);

-- A session's conversation, kept when it leaves or its room ends.
CREATE TABLE transcripts (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  livemode boolean NOT NULL,
  credential_id text NOT NULL,
  session_id text NOT NULL UNIQUE,
  room_id text,
  lang text NOT NULL,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  segments integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX transcripts_list ON transcripts (org_id, livemode, created_at DESC, id DESC);

CREATE TABLE transcript_segments (
  transcript_id text NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
  n integer NOT NULL,
  speaker text,
  src_lang text,
  text text,
  at timestamptz NOT NULL,
  PRIMARY KEY (transcript_id, n)
);

-- Down Migration
DROP TABLE transcript_segments, transcripts, sim_replies, sim_rooms, session_events, room_segments, agent_sessions;
