-- Up Migration

-- Live cloning (voices/cloning.ts): a live clone is made at the cloning
-- engine (ElevenLabs' instant voice cloning) from the consent recording.
-- provider_voice_id is the provider's voice, the one the synthesizer speaks
-- the clone with; provider_error the provider's last answer when the voice
-- failed there (failure_code says why, in the API's words). When the consent
-- is withdrawn the provider's voice is deleted by a retried job, and
-- provider_deleted_at records that the provider no longer has it.
ALTER TABLE voices
  ADD COLUMN provider text CHECK (provider IN ('elevenlabs')),
  ADD COLUMN provider_voice_id text,
  ADD COLUMN provider_error text,
  ADD COLUMN provider_deleted_at timestamptz;

-- Down Migration
ALTER TABLE voices
  DROP COLUMN provider_deleted_at,
  DROP COLUMN provider_error,
  DROP COLUMN provider_voice_id,
  DROP COLUMN provider;
