import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { Tolk, TolkSignatureVerificationError } from '../../sdk/src/index.ts';

// Tolk.webhooks.verify on the service's real deliveries (a room's
// room.started sent by the delivery worker, and test sends), received by a
// real HTTP server: the body as it came verifies; a byte changed, an old
// timestamp, a wrong secret do not; after a rotation either secret verifies.

vi.setConfig({ testTimeout: 60_000 });

let t: TestApp;
let rx: Receiver;
let tolk: Tolk;

beforeAll(async () => {
  rx = await startReceiver();
  t = await startTestApp({ workers: true, config: { webhookAllowOrigins: [rx.origin] } });
  const { secret } = await t.key({ rpm: 100_000 });
  tolk = new Tolk(secret, { baseUrl: t.url });
});
afterAll(async () => {
  await t?.close();
  await rx?.close();
});

const header = (n: number) => rx.received[n]!.headers['service-signature'] as string;
const tOf = (h: string) => Number(/t=(\d+)/.exec(h)![1]);

describe('Tolk.webhooks.verify', () => {
  it('a real delivery verifies and gives its event; a changed byte, an old timestamp, another secret do not', async () => {
    const endpoint = await tolk.webhookEndpoints.create({ url: rx.url, events: ['room.started'] });
    const room = await tolk.rooms.create({ title: 'Signed' });
    const [got] = await rx.waitFor(1);
    const sig = got!.headers['service-signature'] as string;

    const event = await Tolk.webhooks.verify(got!.body, sig, endpoint.secret);
    expect(event).toMatchObject({ type: 'room.started', livemode: false, api_version: 'v1', data: { object: { id: room.id } } });
    expect(event.id).toMatch(/^evt_/);
    // The same from bytes, and from the instance.
    expect(await tolk.webhooks.verify(new TextEncoder().encode(got!.body), sig, endpoint.secret)).toEqual(event);

    const tampered = got!.body.replace(room.id, `${room.id.slice(0, -1)}X`);
    expect(tampered).not.toBe(got!.body);
    await expect(Tolk.webhooks.verify(tampered, sig, endpoint.secret)).rejects.toBeInstanceOf(TolkSignatureVerificationError);
    // Re-encoded JSON is another body: the signature is over the raw bytes.
    await expect(Tolk.webhooks.verify(JSON.stringify(JSON.parse(got!.body), null, 1), sig, endpoint.secret)).rejects.toMatchObject({ code: 'signature_verification_failed' });
    // Parsed JSON is refused with the reason.
    await expect(Tolk.webhooks.verify(JSON.parse(got!.body), sig, endpoint.secret)).rejects.toThrow(/raw body/);
    await expect(Tolk.webhooks.verify(got!.body, sig, 'whsec_someOtherEndpointsSecret000000')).rejects.toMatchObject({ code: 'signature_verification_failed' });
    await expect(Tolk.webhooks.verify(got!.body, undefined, endpoint.secret)).rejects.toThrow(/no Service-Signature header/);
    await expect(Tolk.webhooks.verify(got!.body, `t=${tOf(sig)}`, endpoint.secret)).rejects.toThrow(/no v1/);

    // Five minutes is the tolerance: a replay six minutes later is refused, unless the receiver allows more.
    const sixLater = (tOf(sig) + 360) * 1000;
    await expect(Tolk.webhooks.verify(got!.body, sig, endpoint.secret, { now: sixLater })).rejects.toThrow(/beyond the tolerance of 300 s/);
    expect((await Tolk.webhooks.verify(got!.body, sig, endpoint.secret, { now: sixLater, toleranceSeconds: 600 })).id).toBe(event.id);
    expect((await Tolk.webhooks.verify(got!.body, sig, endpoint.secret, { now: (tOf(sig) + 290) * 1000 })).id).toBe(event.id);
    await tolk.webhookEndpoints.del(endpoint.id);
  });

  it('after a rotation the header carries two v1 values, and either secret verifies', async () => {
    const endpoint = await tolk.webhookEndpoints.create({ url: rx.url, events: ['meeting.created'] });
    const { secret: fresh } = await tolk.webhookEndpoints.rotateSecret(endpoint.id);
    const from = rx.received.length;
    const sent = await tolk.webhookEndpoints.test(endpoint.id, { type: 'meeting.created' });
    expect(sent.ok).toBe(true);
    await rx.waitFor(from + 1);
    const body = rx.received[from]!.body;
    const sig = header(from);
    expect(sig.match(/v1=/g)).toHaveLength(2);

    for (const secret of [endpoint.secret, fresh, [fresh, endpoint.secret], ['whsec_unrelated000000000000000000', fresh]]) {
      expect((await Tolk.webhooks.verify(body, sig, secret)).type).toBe('meeting.created');
    }
    // Only the new secret's value left: the old secret no longer verifies it.
    const newestOnly = sig.split(',').slice(0, 2).join(',');
    await expect(Tolk.webhooks.verify(body, newestOnly, endpoint.secret)).rejects.toBeInstanceOf(TolkSignatureVerificationError);
    expect((await Tolk.webhooks.verify(body, newestOnly, fresh)).type).toBe('meeting.created');
  });
});
