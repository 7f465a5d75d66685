-- Up Migration

-- A participant who is in the room by phone (rooms/phone/): the caller's number, masked as the
-- page shows it (its badge), or null for a page's participant; the minute factor their connected
-- minutes are billed at (their dial-in number's, or their call's), and the gateway process that
-- holds their line: should it die, the presence sweep ends them (its heartbeat stops) and bills them once.
ALTER TABLE room_participants ADD COLUMN phone text;
ALTER TABLE room_participants ADD COLUMN phone_minute_factor real;
ALTER TABLE room_participants ADD COLUMN phone_billed_seconds real;

-- A phone participant whose gateway process died (its heartbeat stopped): ended by the presence sweep as 'gateway_lost'.
ALTER TABLE room_participants DROP CONSTRAINT room_participants_left_reason_check;
ALTER TABLE room_participants ADD CONSTRAINT room_participants_left_reason_check CHECK (left_reason IN ('left', 'absent', 'room_ended', 'gateway_lost'));

-- A call placed into a room (POST /v1/calls with room_id): once answered, its callee is a participant there.
ALTER TABLE calls ADD COLUMN room_id text REFERENCES rooms (id) ON DELETE SET NULL;

-- Down Migration
ALTER TABLE calls DROP COLUMN room_id;
UPDATE room_participants SET left_reason = 'absent' WHERE left_reason = 'gateway_lost';
ALTER TABLE room_participants DROP CONSTRAINT room_participants_left_reason_check;
ALTER TABLE room_participants ADD CONSTRAINT room_participants_left_reason_check CHECK (left_reason IN ('left', 'absent', 'room_ended'));
ALTER TABLE room_participants DROP COLUMN phone_billed_seconds;
ALTER TABLE room_participants DROP COLUMN phone_minute_factor;
ALTER TABLE room_participants DROP COLUMN phone;
