-- Up Migration

-- Limits on what anonymous visitors of the public pages may do (src/http/quotas.ts):
-- one row per bucket (who or what is limited: a client address, a recipient
-- address, a link, a room, a participant) and fixed window. A request's
-- counts are taken in the transaction of what it does, so a refused or
-- failed request counts nothing, and every server process shares them.
CREATE TABLE quota_counters (
  bucket text NOT NULL,
  window_seconds integer NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (bucket, window_seconds, window_start)
);
CREATE INDEX quota_counters_start ON quota_counters (window_start);

-- The room page's open streams (GET /r/{id}/stream), across every process:
-- a row while the stream is open, refreshed by its process's heartbeat, so a
-- process that dies leaves rows that go stale instead of counting for ever.
CREATE TABLE room_streams (
  id text PRIMARY KEY,
  participant_id text NOT NULL REFERENCES room_participants (id) ON DELETE CASCADE,
  seen_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX room_streams_participant ON room_streams (participant_id);

-- Down Migration
DROP TABLE room_streams;
DROP TABLE quota_counters;
