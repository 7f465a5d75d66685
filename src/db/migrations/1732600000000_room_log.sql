-- Up Migration
-- What a room hears is stored once, in its log (room_segments), numbered per
-- room; each session's events are derived from it at read time (the window
-- of the room's numbers it was present for, less its own phrases), translated
-- into the session's language as they are read. Publishing a phrase is then
-- the same few statements whatever the number of listeners.

-- The last number handed out in each room. Taken by UPDATE, under this row's
-- lock until the publisher commits, so a room's numbers become visible in
-- order and a cursor never skips or repeats one.
CREATE TABLE room_logs (
  room_id text PRIMARY KEY,
  seq bigint NOT NULL
);

ALTER TABLE room_segments
  ADD COLUMN seq bigint,
  -- Seconds of listening one listener is billed for this phrase (charged as it is read).
  ADD COLUMN listen_seconds numeric NOT NULL DEFAULT 0,
  -- For an announcement: the name of the agent announced (its wording is made per language).
  ADD COLUMN announced text;

UPDATE room_segments g SET seq = n.seq
  FROM (SELECT id, row_number() OVER (PARTITION BY room_id ORDER BY id) AS seq FROM room_segments) n
 WHERE g.id = n.id;

-- A room's numbers start above every per-session number handed out before, so a
-- cursor an open session's client still holds never hides a new phrase.
INSERT INTO room_logs (room_id, seq)
SELECT room_id, max(seq) FROM (
  SELECT room_id, seq FROM room_segments
  UNION ALL SELECT room_id, last_seq FROM agent_sessions
) x GROUP BY room_id;

ALTER TABLE room_segments ALTER COLUMN seq SET NOT NULL;
CREATE UNIQUE INDEX room_segments_room_seq ON room_segments (room_id, seq);
DROP INDEX room_segments_room;

ALTER TABLE agent_sessions
  -- The session hears the room's log after from_seq, up to to_seq once it ended.
  ADD COLUMN from_seq bigint NOT NULL DEFAULT 0,
  ADD COLUMN to_seq bigint,
  -- Its listening is billed up to here (each phrase once, as it is first read).
  ADD COLUMN metered_seq bigint NOT NULL DEFAULT 0;

-- Sessions open now hear from here on (what they heard before was billed as it arrived).
UPDATE agent_sessions s SET from_seq = l.seq, metered_seq = l.seq
  FROM room_logs l WHERE l.room_id = s.room_id AND s.status <> 'ended';
UPDATE agent_sessions SET to_seq = from_seq WHERE status = 'ended';

ALTER TABLE agent_sessions DROP COLUMN last_seq;
DROP TABLE session_events;

-- The languages a room's open sessions hear, read by a loose index scan (say's price).
CREATE INDEX agent_sessions_room_langs ON agent_sessions (room_id, hear_lang) WHERE status <> 'ended';

-- Down Migration
DROP INDEX agent_sessions_room_langs;
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
ALTER TABLE agent_sessions ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;
ALTER TABLE agent_sessions DROP COLUMN from_seq, DROP COLUMN to_seq, DROP COLUMN metered_seq;
CREATE INDEX room_segments_room ON room_segments (room_id, id);
DROP INDEX room_segments_room_seq;
ALTER TABLE room_segments DROP COLUMN seq, DROP COLUMN listen_seconds, DROP COLUMN announced;
DROP TABLE room_logs;
