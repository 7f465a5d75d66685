-- Up Migration

-- Voices (api.md: Voice, the voice state table, the Voices endpoints).

-- A cloned voice: an actor (machines/voice.ts) whose status the store writes.
-- The person's name and e-mail are kept for the consent flow (the one-time
-- code goes to that address) and shown masked; events never carry them.
CREATE TABLE voices (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  -- The key that asked: its own clones are listed to it in every state.
  credential_id text NOT NULL,
  name text NOT NULL,
  language text NOT NULL,
  -- Why the organization asks (optional; shown to the person).
  purpose text,
  person_name text NOT NULL,
  person_email text NOT NULL,
  status text NOT NULL CHECK (status IN ('awaiting_consent', 'processing', 'ready', 'failed', 'revoked', 'expired')),
  failure_code text,
  -- The consent page's address is /consent/<consent_token>; the link lapses at link_expires_at.
  consent_token text NOT NULL UNIQUE,
  link_expires_at timestamptz NOT NULL,
  -- The one-time code last sent to the person (its hash, never the code),
  -- when it lapses, the wrong tries at it, and how many codes were sent.
  code_hash text,
  code_expires_at timestamptz,
  code_attempts integer NOT NULL DEFAULT 0,
  codes_sent integer NOT NULL DEFAULT 0,
  code_sent_at timestamptz,
  -- Once the code was right: the hash of the page's secret that proves it
  -- (sent with the recording), valid until verified_until.
  verified_hash text,
  verified_until timestamptz,
  -- Recordings the page sent (each is decoded; at most a few per link).
  recording_attempts integer NOT NULL DEFAULT 0,
  -- The consent itself, kept as the proof of it: when, how (page or
  -- test_helper), the sentence read, from where. The recording is in
  -- voice_recordings, deleted when the consent is withdrawn.
  consented_at timestamptz,
  consent_method text CHECK (consent_method IN ('page', 'test_helper')),
  consent_sentence text,
  consent_ip text,
  consent_user_agent text,
  -- The link of the confirmation mail that withdraws the consent (/consent/revoke/<revoke_token>).
  revoke_token text UNIQUE,
  revoked_at timestamptz,
  revoked_by text CHECK (revoked_by IN ('person', 'organization')),
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz
);
CREATE INDEX voices_org ON voices (org_id, livemode, created_at, id);

-- The consent recording (biometric data): one per voice, deleted on withdrawal.
CREATE TABLE voice_recordings (
  voice_id text PRIMARY KEY REFERENCES voices (id) ON DELETE CASCADE,
  content_type text NOT NULL,
  audio bytea NOT NULL,
  duration_ms integer NOT NULL,
  sound_ms integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Generic voices an organization added to its voices (POST /v1/voices/generic), per mode.
CREATE TABLE voice_choices (
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  voice_id text NOT NULL,
  credential_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, livemode, voice_id)
);

-- Down Migration
DROP TABLE voice_choices;
DROP TABLE voice_recordings;
DROP TABLE voices;
