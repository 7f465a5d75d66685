-- Up Migration

-- A statement that runs alone (no BEGIN, no COMMIT: db/writes.ts runAlone)
-- checks its optimistic versions inside itself: when a version check found
-- no row, the statement fails, and with it every write it made, with the
-- SQLSTATE of a serialization failure (the writer reads afresh and retries).
CREATE FUNCTION tolk_expect_rows(got integer, want integer) RETURNS integer
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF got IS DISTINCT FROM want THEN
    RAISE EXCEPTION 'expected % rows, got %: changed concurrently', want, got USING ERRCODE = '40001';
  END IF;
  RETURN got;
END
$$;

-- Down Migration
DROP FUNCTION tolk_expect_rows(integer, integer);
