import { createHmac, randomInt } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';
import { prepared, withTx } from '../db/pool.ts';
import { now, type Services } from '../services.ts';
import { takeQuotas } from '../http/quotas.ts';
import { linkSigningKey } from './link-key.ts';

// Joining a room by phone (operator.md, Phone participants): a join link made while the
// organization has a dial-in number (`tolk number add ... --trunk T --inbound`) carries a PIN
// of that number, the person's: it admits them with the link's name and languages, to that
// room only, until the room lapses. The caller types it after the greeting.
//
// Our choices, where the issue is silent:
// - 8 digits (a hundred million PINs per number), drawn at random, never reused while the
//   one holding it is valid;
// - kept as an HMAC of the number and the PIN under the link-signing key, never the PIN;
// - each try counts, whatever its answer: 10 per calling number in 10 minutes, 60 per dial-in
//   number a minute (a flood of guesses from many phones finds a live PIN in days, not minutes;
//   the callers meanwhile are told to try again later);
// - a wrong, lapsed or other room's PIN gets one answer: not a PIN (pinAt answers null).

export const PIN_DIGITS = 8;
export const PIN_TRIES = { perCaller: { limit: 10, windowSeconds: 600 }, perNumber: { limit: 60, windowSeconds: 60 } } as const;

/** Where and with what a phone participant joins: their PIN's room, name and languages. */
export type PinHolder = { room_id: string; org_id: string; livemode: boolean; status: string; name: string | null; speak_lang: string | null; hear_lang: string | null };

function pinMac(key: string, numberId: string, pin: string): string {
  return createHmac('sha256', key).update(`${numberId}:${pin}`).digest('base64url');
}

/**
 * A PIN of the organization's dial-in number for one person of the room (their name and
 * languages, as the link carries them), valid until the room lapses; null when the organization
 * has no dial-in number.
 */
export async function makePhonePin(
  s: Services,
  db: Queryable,
  room: { id: string; org_id: string; expires_at: Date },
  prefill: { name?: string; speak?: string; hear?: string },
): Promise<{ number: string; pin: string } | null> {
  const number = await s.reactions.dialInNumber(db, room.org_id);
  if (!number) return null;
  const key = await linkSigningKey(db);
  // A PIN held by someone else is drawn again (a lapsed one is taken over).
  for (let attempt = 0; attempt < 8; attempt++) {
    const pin = String(randomInt(0, 10 ** PIN_DIGITS)).padStart(PIN_DIGITS, '0');
    const { rowCount } = await db.query(prepared(
      `INSERT INTO room_phone_pins AS p (number_id, pin_mac, room_id, name, speak_lang, hear_lang, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (number_id, pin_mac) DO UPDATE SET room_id = EXCLUDED.room_id, name = EXCLUDED.name, speak_lang = EXCLUDED.speak_lang,
         hear_lang = EXCLUDED.hear_lang, expires_at = EXCLUDED.expires_at, created_at = now()
       WHERE p.expires_at <= now()`,
      [number.id, pinMac(key, number.id, pin), room.id, prefill.name ?? null, prefill.speak ?? null, prefill.hear ?? null, room.expires_at],
    ));
    if (rowCount === 1) return { number: number.e164, pin };
  }
  throw new Error(`no free PIN found at number ${number.id}`);
}

/**
 * Whose PIN `pin` is at dial-in number `numberId`, typed by `caller` (their number, or the address
 * they call from): its room and the person's name and languages; null when it is none (wrong,
 * lapsed, of another number), never saying which. Every try counts (PIN_TRIES); one over either
 * budget is refused with 429 rate_limited, before the PIN is looked at.
 */
export async function pinAt(s: Services, numberId: string, caller: string, pin: string): Promise<PinHolder | null> {
  return withTx(s.pool, async (tx) => {
    await takeQuotas(tx, [
      { bucket: `pin:caller:${caller}`, ...PIN_TRIES.perCaller, what: 'PIN tries from your phone' },
      { bucket: `pin:number:${numberId}`, ...PIN_TRIES.perNumber, what: 'PIN tries at this number' },
    ], now(s).getTime());
    if (!new RegExp(`^\\d{${PIN_DIGITS}}$`).test(pin)) return null;
    const { rows } = await tx.query<PinHolder>(prepared(
      `SELECT p.room_id, r.org_id, r.livemode, r.status, p.name, p.speak_lang, p.hear_lang
         FROM room_phone_pins p JOIN rooms r ON r.id = p.room_id
        WHERE p.number_id = $1 AND p.pin_mac = $2 AND p.expires_at > now()`,
      [numberId, pinMac(await linkSigningKey(tx), numberId, pin)],
    ));
    return rows[0] ?? null;
  });
}
