-- Up Migration

-- The outbox is also the public event log (GET /v1/events): an event is listed
-- from the moment its state change commits, masked when it is read, and kept 30 days.
CREATE INDEX outbox_log ON outbox (org_id, livemode, created_at DESC, id DESC);
CREATE INDEX outbox_created ON outbox (created_at);
DROP INDEX outbox_org;

CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  livemode boolean NOT NULL,
  url text NOT NULL,
  events text[] NOT NULL,
  description text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  -- Secrets sign every delivery, so they are kept (like any signing key); shown to the caller once.
  secret text NOT NULL,
  -- The replaced secret keeps signing until previous_secret_expires_at (24 h rotation overlap).
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- Start of the current run of failed attempts; null after any success.
  failing_since timestamptz,
  disabled_at timestamptz,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_org ON webhook_endpoints (org_id, livemode, created_at DESC);

-- One event (or test event) for one endpoint; every attempt is in webhook_attempts.
CREATE TABLE webhook_deliveries (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event_type text NOT NULL,
  -- The exact bytes sent: every attempt and every resend carries the same body.
  payload text NOT NULL,
  test boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  first_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- When the state change happened (outbox row); for the latency benchmark and the listing.
  event_created_at timestamptz NOT NULL,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  id bigserial PRIMARY KEY,
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  ok boolean NOT NULL,
  status integer,
  latency_ms integer NOT NULL,
  error text,
  -- 'schedule' (first attempt or retry), 'resend' or 'test'.
  trigger text NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);

-- usage.threshold is sent once per key, period and threshold.
CREATE TABLE usage_thresholds_sent (
  credential_id text NOT NULL,
  period text NOT NULL CHECK (period IN ('day', 'month')),
  period_start date NOT NULL,
  threshold integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (credential_id, period, period_start, threshold)
);

-- Every statement that adds outbox rows wakes the dispatchers at once
-- (src/webhooks/dispatcher.ts); NOTIFYs with the same payload in one
-- transaction are folded into one by PostgreSQL.
CREATE FUNCTION tolk_outbox_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tolk_outbox', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER outbox_notify AFTER INSERT ON outbox FOR EACH STATEMENT EXECUTE FUNCTION tolk_outbox_notify();

-- Down Migration
DROP TRIGGER outbox_notify ON outbox;
DROP FUNCTION tolk_outbox_notify();
DROP TABLE usage_thresholds_sent, webhook_attempts, webhook_deliveries, webhook_endpoints;
DROP INDEX outbox_log, outbox_created;
CREATE INDEX outbox_org ON outbox (org_id, livemode, created_at DESC);
