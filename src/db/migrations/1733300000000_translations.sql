-- Up Migration

-- A phrase of a room's log in another language, made once by a translation
-- engine and read by every listener of that language, on every process
-- (sessions/translations.ts). A row is first a claim (`pending`, with the
-- time it was claimed): the process that inserted it asks the engine, then
-- writes the text (`done`) or that no engine could (`untranslated`). A
-- claim older than the engines' time limit is taken over by the next reader
-- (its process died). Kept as long as the phrase (the rooms' and calls'
-- retention deletes them together).
CREATE TABLE room_translations (
  room_id text NOT NULL,
  seq bigint NOT NULL,
  lang text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'done', 'untranslated')),
  text text,
  engine text,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  translated_at timestamptz,
  PRIMARY KEY (room_id, seq, lang)
);

-- A transcript's phrases keep their place in the room's log, so a transcript
-- read in another language reads the log's translations (made once).
ALTER TABLE transcript_segments ADD COLUMN log_id text, ADD COLUMN seq bigint, ADD COLUMN kind text, ADD COLUMN announced text;
CREATE INDEX transcript_segments_log ON transcript_segments (log_id, seq);

-- Down Migration
DROP INDEX transcript_segments_log;
ALTER TABLE transcript_segments DROP COLUMN log_id, DROP COLUMN seq, DROP COLUMN kind, DROP COLUMN announced;
DROP TABLE room_translations;
