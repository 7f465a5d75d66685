import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addNumber, UsageError } from '../../src/cli/admin.ts';
import { addTrunk } from '../../src/cli/trunk.ts';
import { PIN_TRIES, pinAt } from '../../src/rooms/phone-pins.ts';
import { ApiError } from '../../src/errors.ts';
import { until } from '../helpers/wait.ts';

// Joining a room by phone, the PIN half (operator.md, Phone participants): a join link made
// while the organization has a dial-in number carries the person's PIN of that number; the PIN
// admits to that room only, with the link's name and languages, and guessing it is limited.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/** An organization with a key, a room, and (unless `dialIn` is false) a number of its trunk marked inbound. */
async function org(o: { dialIn?: boolean; e164?: string } = {}) {
  const k = await t.key({ rpm: 100_000 });
  let numberId: string | undefined;
  if (o.dialIn !== false) {
    const trunk = await addTrunk(t.pool, undefined, { org: k.orgId, uri: 'sip:127.0.0.1:5099' });
    numberId = (await addNumber(t.pool, { org: k.orgId, e164: o.e164 ?? '+14155550142', trunk: trunk.id, inbound: true })).id;
  }
  const room = await (await t.request('POST', '/v1/rooms', { key: k.secret, headers: idem(), body: { langs: ['en', 'es'] } })).json();
  const link = async (body: Record<string, string> = {}, roomId = room.id as string) => {
    const res = await t.request('POST', `/v1/rooms/${roomId}/join-links`, { key: k.secret, body });
    expect(res.status, await res.clone().text()).toBe(201);
    return res.json() as Promise<{ url: string; phone: { number: string; pin: string } | null }>;
  };
  return { ...k, numberId, room, link };
}

async function refused(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('a join link\'s phone PIN', () => {
  it('without a dial-in number the link has no phone; with one, each link gets a PIN of its own for that number', async () => {
    const none = await org({ dialIn: false });
    expect((await none.link({ name: 'Ana' })).phone).toBeNull();

    const o = await org();
    const a = await o.link({ name: 'Ana', speak: 'es', hear: 'en' });
    const b = await o.link({ name: 'Bea' });
    expect(a.phone).toEqual({ number: '+14155550142', pin: expect.stringMatching(/^\d{8}$/) });
    expect(b.phone!.pin).not.toBe(a.phone!.pin);
    // The PIN is nowhere in the database as it is typed.
    const { rows } = await t.pool.query(`SELECT p.*::text AS row FROM room_phone_pins p WHERE room_id = $1`, [o.room.id]);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r.row).not.toContain(a.phone!.pin);
  });

  it('the PIN admits to its room with the link\'s name and languages; a wrong one, or one of another number, is nobody\'s', async () => {
    const o = await org({ e164: '+14155550143' });
    const other = await org({ e164: '+14155550144' });
    const a = await o.link({ name: 'Ana', speak: 'es', hear: 'en' });
    const theirs = await other.link({ name: 'Zoe' });
    expect(await pinAt(t.services, o.numberId!, '+34600000001', a.phone!.pin)).toMatchObject({
      room_id: o.room.id, status: 'live', name: 'Ana', speak_lang: 'es', hear_lang: 'en', livemode: false,
    });
    // Not the PIN, not digits, or another number's PIN: one answer, no hint which.
    const wrong = a.phone!.pin === '00000000' ? '00000001' : '00000000';
    expect(await pinAt(t.services, o.numberId!, '+34600000001', wrong)).toBeNull();
    expect(await pinAt(t.services, o.numberId!, '+34600000001', '12*45')).toBeNull();
    expect(await pinAt(t.services, o.numberId!, '+34600000001', theirs.phone!.pin)).toBeNull();
  });

  it('a lapsed room\'s PIN is nobody\'s', async () => {
    const o = await org({ e164: '+14155550145' });
    const a = await o.link({ name: 'Ana' });
    await t.pool.query(`UPDATE room_phone_pins SET expires_at = now() - interval '1 second' WHERE room_id = $1`, [o.room.id]);
    expect(await pinAt(t.services, o.numberId!, '+34600000002', a.phone!.pin)).toBeNull();
  });

  it('guessing is limited: 10 tries per calling phone in 10 minutes, 60 per dial-in number a minute, the right PIN refused too once spent', { timeout: 90_000 }, async () => {
    const o = await org({ e164: '+14155550146' });
    const a = await o.link({ name: 'Ana' });
    // The budgets are counted in windows of the clock (a minute, ten minutes): the tries all fall in one.
    await until('the start of a minute', async () => Date.now() % 60_000 < 20_000 && Date.now() % 600_000 < 570_000, { timeoutMs: 65_000, intervalMs: 200 });
    const wrong = a.phone!.pin === '99999999' ? '99999998' : '99999999';
    for (let i = 0; i < PIN_TRIES.perCaller.limit; i++) expect(await pinAt(t.services, o.numberId!, '+34600000003', wrong)).toBeNull();
    const one = await refused(pinAt(t.services, o.numberId!, '+34600000003', a.phone!.pin));
    expect(one.code).toBe('rate_limited');
    expect(one.message).toMatch(/PIN tries from your phone/);
    // A flood from many phones: the number's budget, whoever calls.
    const used = PIN_TRIES.perCaller.limit;
    const flood = await Promise.allSettled(Array.from({ length: PIN_TRIES.perNumber.limit - used + 5 }, (_, i) => pinAt(t.services, o.numberId!, `+3460000${String(1000 + i)}`, wrong)));
    const limited = flood.filter((r) => r.status === 'rejected' && (r.reason as ApiError).code === 'rate_limited').length;
    expect(limited).toBeGreaterThanOrEqual(5);
    const late = await refused(pinAt(t.services, o.numberId!, '+34600009999', a.phone!.pin));
    expect(late.message).toMatch(/PIN tries at this number/);
  });

  it('tolk number add --inbound needs the trunk its calls come from', async () => {
    const k = await t.key();
    await expect(addNumber(t.pool, { org: k.orgId, e164: '+14155550147', inbound: true })).rejects.toBeInstanceOf(UsageError);
  });
});
