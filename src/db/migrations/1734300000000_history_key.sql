-- Up Migration

-- An actor's history is keyed by the actor and its version, which every
-- reader goes by (ORDER BY version for one actor_id). The surrogate id,
-- read by nothing, cost each transition a sequence step and a second index
-- entry, seven times a call; its rows stay as they are.
ALTER TABLE actor_history
  DROP COLUMN id,
  DROP CONSTRAINT actor_history_actor_id_version_key,
  ADD CONSTRAINT actor_history_pkey PRIMARY KEY (actor_id, version);

-- Down Migration
ALTER TABLE actor_history
  DROP CONSTRAINT actor_history_pkey,
  ADD CONSTRAINT actor_history_actor_id_version_key UNIQUE (actor_id, version),
  ADD COLUMN id bigserial PRIMARY KEY;
