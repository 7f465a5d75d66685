-- Up Migration

-- The outbox's rows are still queued by the statement that writes them, but
-- the dispatchers are no longer woken from inside that statement's
-- transaction: PostgreSQL queues a transaction's notifications at its commit
-- under one lock for the whole cluster, held until the commit is on disk, so
-- every event-writing transaction waited for the previous one's flush (none
-- committed together). The process that commits the rows sends the NOTIFY
-- once they are committed, at most one per 20 ms (src/db/after-commit.ts);
-- rows written by hand wait for the dispatchers' sweep (every 3 s).
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION tolk_outbox_notify();
CREATE FUNCTION tolk_outbox_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_queue (id) SELECT id FROM added WHERE processed_at IS NULL;
  RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_enqueue AFTER INSERT ON outbox REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tolk_outbox_enqueue();

-- Down Migration
DROP TRIGGER outbox_enqueue ON outbox;
DROP FUNCTION tolk_outbox_enqueue();
CREATE FUNCTION tolk_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_queue (id) SELECT id FROM added WHERE processed_at IS NULL;
  PERFORM pg_notify('tolk_outbox', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tolk_outbox_notify();
