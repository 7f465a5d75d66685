-- Up Migration

-- What is heard on a call's line (gateway/media): a phrase the recognizer
-- could not read keeps its length (audio_ms) and no text, never invented
-- text; a DTMF digit the callee pressed is an entry of its own kind.
ALTER TABLE room_segments ALTER COLUMN text DROP NOT NULL;
ALTER TABLE room_segments ADD COLUMN audio_ms integer;
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure', 'person', 'dtmf'));

-- Down Migration
DELETE FROM room_segments WHERE kind = 'dtmf' OR text IS NULL;
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure', 'person'));
ALTER TABLE room_segments DROP COLUMN audio_ms;
ALTER TABLE room_segments ALTER COLUMN text SET NOT NULL;
