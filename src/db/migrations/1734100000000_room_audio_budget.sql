-- Up Migration

-- Seconds of audio each room participant sent from their microphone, per
-- minute (rooms/audio-budget.ts): the budget of PublicLimits'
-- audioSecondsPerParticipantMinute is the person's, whatever socket or
-- process the audio came through. Written about once a second per person
-- speaking; rows older than two minutes are deleted. Unlogged: a counter of
-- the last minute, safe to lose in a crash.
CREATE UNLOGGED TABLE room_audio_seconds (
  participant_id text NOT NULL,
  minute bigint NOT NULL,
  seconds double precision NOT NULL,
  PRIMARY KEY (participant_id, minute)
);

-- A phrase of a room spoken aloud in one language and voice (rooms/read-aloud.ts),
-- kept so that every person, request and process that reads it aloud plays
-- the same synthesis instead of asking the engine again. Goes with its room.
CREATE TABLE room_speech (
  room_id text NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  lang text NOT NULL,
  voice text NOT NULL,
  pcm bytea NOT NULL,
  ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (room_id, seq, lang, voice)
);

-- Down Migration

DROP TABLE room_speech;
DROP TABLE room_audio_seconds;
