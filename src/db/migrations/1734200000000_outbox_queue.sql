-- Up Migration

-- The events not yet dispatched, apart from the event log (outbox). Marking
-- an event dispatched used to update its outbox row: a new version of the
-- row and an entry in each of its five indexes (never a HOT update, since
-- processed_at is in outbox_unprocessed's predicate), seven times a call.
-- Now the dispatcher deletes the event's id from this small queue and the
-- log's row is written once. Every statement that adds outbox rows queues
-- them (an event written as already processed, as an import would, is not
-- queued) and wakes the dispatchers (src/webhooks/dispatcher.ts); NOTIFYs
-- with the same payload in one transaction are folded into one by PostgreSQL.
LOCK TABLE outbox IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE outbox_queue (id bigint PRIMARY KEY);
-- The events written before this migration and not dispatched yet are still delivered.
INSERT INTO outbox_queue (id) SELECT id FROM outbox WHERE processed_at IS NULL;
CREATE OR REPLACE FUNCTION tolk_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox_queue (id) SELECT id FROM added WHERE processed_at IS NULL;
  PERFORM pg_notify('tolk_outbox', '');
  RETURN NULL;
END;
$$;
DROP TRIGGER outbox_notify ON outbox;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION tolk_outbox_notify();
DROP INDEX outbox_unprocessed;

-- Down Migration
LOCK TABLE outbox IN SHARE ROW EXCLUSIVE MODE;
UPDATE outbox SET processed_at = now()
 WHERE processed_at IS NULL AND NOT EXISTS (SELECT 1 FROM outbox_queue q WHERE q.id = outbox.id);
DROP TRIGGER outbox_notify ON outbox;
CREATE OR REPLACE FUNCTION tolk_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tolk_outbox', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION tolk_outbox_notify();
DROP TABLE outbox_queue;
CREATE INDEX outbox_unprocessed ON outbox (id) WHERE processed_at IS NULL;
