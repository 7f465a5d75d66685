-- Up Migration

-- The final SIP answer to a call's INVITE (operator.md: sip_code, sip_reason),
-- null until there is one (and for a call that got none: unreachable, blocked).
ALTER TABLE calls ADD COLUMN sip_code integer, ADD COLUMN sip_reason text;

-- Down Migration
ALTER TABLE calls DROP COLUMN sip_code, DROP COLUMN sip_reason;
