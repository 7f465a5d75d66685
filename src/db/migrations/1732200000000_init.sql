-- Up Migration

CREATE TABLE organizations (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL DEFAULT 'paid' CHECK (plan IN ('paid', 'free')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'blocked', 'suspended')),
  balance_seconds numeric NOT NULL DEFAULT 36000,
  owner_email text,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  name text NOT NULL,
  -- sha256 of the secret; the secret itself is shown once and never stored.
  secret_hash bytea NOT NULL UNIQUE,
  secret_last4 text NOT NULL,
  permissions text[] NOT NULL,
  ip_allow text[],
  langs text[],
  voices text[],
  numbers text[],
  destinations text[],
  spend_day_minutes numeric,
  spend_month_minutes numeric,
  per_call_minutes numeric,
  requests_per_minute integer NOT NULL DEFAULT 60 CHECK (requests_per_minute > 0),
  expires_at timestamptz,
  revoked_at timestamptz,
  needs_review boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_org ON api_keys (org_id);

-- Fixed-window request counters shared by every server process (see src/http/rate-limit.ts).
CREATE TABLE rate_limit_counters (
  key_id text NOT NULL,
  window_kind text NOT NULL CHECK (window_kind IN ('minute', 'day')),
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key_id, window_kind, window_start)
);

CREATE TABLE idempotency_keys (
  credential_id text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer NOT NULL,
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (credential_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

CREATE TABLE actors (
  id text PRIMARY KEY,
  org_id text NOT NULL,
  livemode boolean NOT NULL,
  machine text NOT NULL,
  state text NOT NULL,
  snapshot jsonb NOT NULL,
  version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE actor_history (
  id bigserial PRIMARY KEY,
  actor_id text NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
  version integer NOT NULL,
  event jsonb NOT NULL,
  from_state text,
  to_state text NOT NULL,
  emitted text[] NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (actor_id, version)
);

-- Domain events, written in the same transaction as the transition that emits them.
CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  event_id text NOT NULL UNIQUE,
  org_id text NOT NULL,
  livemode boolean NOT NULL,
  type text NOT NULL,
  object_id text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz
);
CREATE INDEX outbox_unprocessed ON outbox (id) WHERE processed_at IS NULL;
CREATE INDEX outbox_org ON outbox (org_id, livemode, created_at DESC);

CREATE TABLE rooms (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  credential_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('instant', 'meeting')),
  title text NOT NULL,
  visibility text NOT NULL CHECK (visibility IN ('private', 'public')),
  status text NOT NULL CHECK (status IN ('scheduled', 'live', 'ended')),
  langs text[] NOT NULL,
  invitees text[] NOT NULL,
  starts_at timestamptz,
  duration_min integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX rooms_list ON rooms (org_id, livemode, created_at DESC, id DESC);

-- Every minute spent, by anything; /v1/usage, /v1/me limits and /v1/balance read it.
CREATE TABLE usage_ledger (
  id bigserial PRIMARY KEY,
  org_id text NOT NULL,
  credential_id text NOT NULL,
  livemode boolean NOT NULL,
  kind text NOT NULL,
  seconds numeric NOT NULL,
  ref text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_ledger_credential ON usage_ledger (credential_id, created_at);
CREATE INDEX usage_ledger_org ON usage_ledger (org_id, livemode, created_at);

CREATE TABLE request_counts (
  credential_id text NOT NULL,
  org_id text NOT NULL,
  livemode boolean NOT NULL,
  day date NOT NULL,
  requests integer NOT NULL DEFAULT 0,
  errors integer NOT NULL DEFAULT 0,
  PRIMARY KEY (credential_id, day)
);
CREATE INDEX request_counts_org ON request_counts (org_id, livemode, day);

CREATE TABLE phone_numbers (
  id text PRIMARY KEY,
  org_id text REFERENCES organizations (id),
  e164 text NOT NULL,
  label text,
  is_default boolean NOT NULL DEFAULT false,
  shared boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX phone_numbers_org ON phone_numbers (org_id);

CREATE TABLE event_types (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  page text NOT NULL,
  slug text NOT NULL,
  title text NOT NULL,
  duration_min integer NOT NULL,
  tz text NOT NULL,
  hours text NOT NULL,
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (page, slug)
);

CREATE TABLE mail_outbox (
  id bigserial PRIMARY KEY,
  org_id text,
  to_addr text NOT NULL,
  subject text NOT NULL,
  text text NOT NULL,
  ics text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);

-- Secrets every process must share (join-link signing key), created once.
CREATE TABLE settings (
  name text PRIMARY KEY,
  value text NOT NULL
);
INSERT INTO settings (name, value) VALUES ('link_signing_key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

-- Down Migration
DROP TABLE settings, mail_outbox, event_types, phone_numbers, request_counts, usage_ledger, rooms, outbox, actor_history, actors, idempotency_keys, rate_limit_counters, api_keys, organizations;
