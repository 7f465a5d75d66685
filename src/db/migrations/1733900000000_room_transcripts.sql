-- Up Migration

-- A room's own transcript (transcripts/transcripts.ts planRoomTranscript):
-- written when the room ends, from its first phrase to its end, whoever spoke.
-- It belongs to no session (session_id null), so session_id may now be null;
-- every transcript still belongs to a session or a room. A room has at most one
-- transcript of its own: two processes ending it at once cannot write two (the
-- room's transition refuses the second end, and this index refuses a second row).
ALTER TABLE transcripts ALTER COLUMN session_id DROP NOT NULL;
ALTER TABLE transcripts ADD CONSTRAINT transcripts_owner_check CHECK (session_id IS NOT NULL OR room_id IS NOT NULL);
CREATE UNIQUE INDEX transcripts_room_own ON transcripts (room_id) WHERE session_id IS NULL;

-- Down Migration
DROP INDEX transcripts_room_own;
DELETE FROM transcripts WHERE session_id IS NULL;
ALTER TABLE transcripts DROP CONSTRAINT transcripts_owner_check;
ALTER TABLE transcripts ALTER COLUMN session_id SET NOT NULL;
