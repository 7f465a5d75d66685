-- Up Migration

-- A room's log carries, besides its phrases, what happens while they are
-- said (operator.md, "Session events beyond segment.final"): a phrase so far
-- (segment.partial, its segment_id the one its final carries), the progress
-- of a session's say (say.started/finished/interrupted, with spoken_ms), and
-- who starts or stops talking (speech.started/stopped). Numbered like the
-- phrases, so a session's cursor covers them; never billed, never in a
-- transcript. Progress and activity have no language of their own.
ALTER TABLE room_segments ADD COLUMN segment_id text, ADD COLUMN spoken_ms integer;
ALTER TABLE room_segments ALTER COLUMN src_lang DROP NOT NULL;
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN (
  'robot', 'agent', 'announcement', 'disclosure', 'person', 'dtmf',
  'segment.partial', 'say.started', 'say.finished', 'say.interrupted', 'speech.started', 'speech.stopped'));

-- Down Migration
DELETE FROM room_segments WHERE kind IN ('segment.partial', 'say.started', 'say.finished', 'say.interrupted', 'speech.started', 'speech.stopped');
ALTER TABLE room_segments DROP CONSTRAINT room_segments_kind_check;
ALTER TABLE room_segments ADD CONSTRAINT room_segments_kind_check CHECK (kind IN ('robot', 'agent', 'announcement', 'disclosure', 'person', 'dtmf'));
ALTER TABLE room_segments ALTER COLUMN src_lang SET NOT NULL;
ALTER TABLE room_segments DROP COLUMN segment_id, DROP COLUMN spoken_ms;
