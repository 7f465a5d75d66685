-- Up Migration

-- The operator's carrier connections (operator.md, SIP trunks and live mode):
-- one organization's each, never another's. The password is AES-256-GCM
-- ciphertext under TOLK_SECRET_KEY (src/trunks/secret.ts), never plain text.
CREATE TABLE trunks (
  id text PRIMARY KEY,
  org_id text NOT NULL REFERENCES organizations (id),
  -- Where calls go: sip:HOST[:PORT][;transport=udp|tcp]; the Request-URI's host.
  uri text NOT NULL,
  -- The next hop instead of the trunk's host (an outbound proxy), sent as a loose Route.
  proxy text,
  username text,
  password_enc text,
  realm text,
  from_domain text,
  caller_id text NOT NULL DEFAULT 'from' CHECK (caller_id IN ('from', 'pai')),
  -- Privacy: id with the caller id in P-Asserted-Identity (the far end withholds it from the callee).
  privacy boolean NOT NULL DEFAULT false,
  -- How the dialed number is written in the Request-URI and To: +E.164, or digits without the +.
  number_format text NOT NULL DEFAULT 'e164' CHECK (number_format IN ('e164', 'digits')),
  max_cps real CHECK (max_cps IS NULL OR max_cps > 0),
  -- The earliest moment the next INVITE may leave (calls-per-second pacing shared by every gateway).
  next_invite_at timestamptz,
  -- From the OPTIONS pings: unknown until the first answer or miss.
  state text NOT NULL DEFAULT 'unknown' CHECK (state IN ('unknown', 'up', 'down')),
  state_reason text,
  state_since timestamptz,
  misses integer NOT NULL DEFAULT 0,
  pinged_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX trunks_org ON trunks (org_id);

-- The trunk live calls from this number go out through.
ALTER TABLE phone_numbers ADD COLUMN trunk_id text REFERENCES trunks (id) ON DELETE SET NULL;
-- The trunk a live call was placed through (null: test mode, the simulator or the test peer).
ALTER TABLE calls ADD COLUMN trunk_id text;

-- Down Migration
ALTER TABLE calls DROP COLUMN trunk_id;
ALTER TABLE phone_numbers DROP COLUMN trunk_id;
DROP TABLE trunks;
