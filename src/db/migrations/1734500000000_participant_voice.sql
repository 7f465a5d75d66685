-- Up Migration

-- A person who joins through their own invitation (a meeting's or a booking's join link) and
-- whose cloned voice is ready in the room's organization is interpreted in that voice
-- (rooms/read-aloud.ts phraseVoice); checked again each time it is spoken, so a voice withdrawn
-- meanwhile is never used.
ALTER TABLE room_participants ADD COLUMN voice_id text;

-- Down Migration
ALTER TABLE room_participants DROP COLUMN voice_id;
