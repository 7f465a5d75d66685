-- Up Migration
-- Room expiry is one periodic sweep over expires_at (rooms/jobs.ts) instead of
-- one pg-boss job per room: the rooms still open, by when they expire.
CREATE INDEX rooms_open_by_expiry ON rooms (expires_at) WHERE status <> 'ended';

-- The per-room timers written before are no longer needed: the sweep ends
-- those rooms by their expires_at. (pg-boss's schema exists once it started.)
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    DELETE FROM pgboss.job WHERE name = 'room-expire' AND state IN ('created', 'retry');
  END IF;
END $$;

-- Down Migration
DROP INDEX IF EXISTS rooms_open_by_expiry;
