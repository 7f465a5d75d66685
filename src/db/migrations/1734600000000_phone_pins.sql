-- Up Migration

-- Phone participants (operator.md, Phone participants). A number marked inbound takes calls
-- from its trunk into rooms; a join link made while the organization has one carries a PIN of
-- that number: the person's (their name and languages), one room's, lapsing with the room.
ALTER TABLE phone_numbers ADD COLUMN inbound boolean NOT NULL DEFAULT false;

-- A PIN is kept as an HMAC of the number and the PIN under the service's link-signing key
-- (rooms/phone-pins.ts), never the PIN: a copy of the table alone does not give them away.
CREATE TABLE room_phone_pins (
  number_id text NOT NULL REFERENCES phone_numbers (id) ON DELETE CASCADE,
  pin_mac text NOT NULL,
  room_id text NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
  name text,
  speak_lang text,
  hear_lang text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (number_id, pin_mac)
);
CREATE INDEX room_phone_pins_room ON room_phone_pins (room_id);

-- Down Migration
DROP TABLE room_phone_pins;
ALTER TABLE phone_numbers DROP COLUMN inbound;
