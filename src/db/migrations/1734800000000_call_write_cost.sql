-- Up Migration

-- What a call writes, made cheaper without writing less (docs/testing.md, the calls target):
--
-- An actor's history rows are written only by the statement that inserts or
-- updates their actor (actors/store.ts: the history row selects the actor's
-- id from that statement's own row), and actors are never deleted, so the
-- foreign key checked nothing the statement had not: it cost each of a
-- call's seven transitions a lookup of the actor and a share lock on its row.
ALTER TABLE actor_history DROP CONSTRAINT actor_history_actor_id_fkey;

-- The open sessions of a log are found by (log_id, hear_lang), whose
-- leading column serves a search by log_id alone: the second index was an
-- entry per session for nothing.
DROP INDEX agent_sessions_log_open;

-- Retention deletes idempotency keys by age, and nothing else reads their
-- created_at by an index; the table is written in time order, so a block
-- range index (a few pages, touched only when a range is summarized) finds
-- the old rows, where a B-tree took an entry per key written. (The event
-- log's stays a B-tree: a restart's banner reads its newest event by it.)
DROP INDEX idempotency_keys_created;
CREATE INDEX idempotency_keys_created ON idempotency_keys USING brin (created_at);

-- Down Migration
DROP INDEX idempotency_keys_created;
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
CREATE INDEX agent_sessions_log_open ON agent_sessions (log_id) WHERE status <> 'ended';
ALTER TABLE actor_history ADD CONSTRAINT actor_history_actor_id_fkey FOREIGN KEY (actor_id) REFERENCES actors (id) ON DELETE CASCADE;
