-- Up Migration

-- People in a room through its page (the room page, src/rooms/page.ts): who
-- is present, in which languages, and since when. A person is present until
-- they leave, their page has been silent for longer than the absence limit
-- (rooms/participants.ts), or the room ends. The page proves it is theirs
-- with a secret whose hash is kept here.
CREATE TABLE room_participants (
  id text PRIMARY KEY,
  room_id text NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
  org_id text NOT NULL,
  livemode boolean NOT NULL,
  name text NOT NULL,
  speak_lang text NOT NULL,
  hear_lang text NOT NULL,
  secret_hash text NOT NULL,
  -- The room's log position when they joined: their page shows what is said after it.
  from_seq bigint NOT NULL DEFAULT 0,
  joined_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  left_at timestamptz,
  left_reason text CHECK (left_reason IN ('left', 'absent', 'room_ended'))
);
CREATE INDEX room_participants_present ON room_participants (room_id) WHERE left_at IS NULL;
CREATE INDEX room_participants_seen ON room_participants (last_seen_at) WHERE left_at IS NULL;

-- What people type on the page is a phrase of the room's log like the others.
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure', 'person'));

-- Down Migration
DELETE FROM room_segments WHERE kind = 'person';
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure'));
DROP TABLE room_participants;
