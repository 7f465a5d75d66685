// The embedded SIP signaling (sip-stack.ts) itself, on loopback: the address
// it listens on, its answers to requests sent by hand, what place() refuses,
// and a listener that throws.

import dgram from 'node:dgram';
import net from 'node:net';
import { describe, expect, test } from 'vitest';
import { createSipSignaling } from './sip-stack.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { recordingLog, sipFixtures } from '../test/helpers/sip-stack-fixtures.ts';
import { until } from '../test/helpers/wait.ts';

const { cleanups, signaling } = sipRig();
const { callee, rawSip } = sipFixtures(cleanups);

describe('the stack itself', () => {
  test('an address in use (UDP or TCP) is a clear rejection, not a crash', async () => {
    const udp = dgram.createSocket('udp4');
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => udp.close(() => r())));
    const udpPort = udp.address().port;
    await expect(createSipSignaling({ listen: `127.0.0.1:${udpPort}`, ringTimeoutSeconds: 5, onEvent: () => {} })).rejects.toThrow(
      `SIP stack cannot listen on 127.0.0.1:${udpPort} (UDP and TCP): the address is already in use`,
    );

    const tcp = net.createServer();
    await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => tcp.close(() => r())));
    const tcpPort = (tcp.address() as net.AddressInfo).port;
    await expect(createSipSignaling({ listen: `127.0.0.1:${tcpPort}`, ringTimeoutSeconds: 5, onEvent: () => {} })).rejects.toThrow(/already in use/);

    await expect(createSipSignaling({ listen: 'localhost', ringTimeoutSeconds: 5, onEvent: () => {} })).rejects.toThrow(/host:port/);
  });

  test('an explicit free port is used as given', async () => {
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    const port = probe.address().port;
    await new Promise<void>((r) => probe.close(() => r()));
    const h = await signaling({ listen: `127.0.0.1:${port}` });
    expect(h.sig.address).toBe(`127.0.0.1:${port}`);
  });

  test('incoming requests: OPTIONS 200, BYE of an unknown dialog 481, other methods 405, an INVITE 403, an unknown method 501', async () => {
    const h = await signaling();
    const raw = await rawSip();
    raw.send(h.sig.address, 'OPTIONS');
    await raw.waitFor(1);
    raw.send(h.sig.address, 'BYE', { toTag: ';tag=nope' });
    await raw.waitFor(2);
    raw.send(h.sig.address, 'MESSAGE');
    await raw.waitFor(3);
    raw.send(h.sig.address, 'INFO', { toTag: ';tag=nope' });
    await raw.waitFor(4);
    raw.send(h.sig.address, 'INVITE');
    await raw.waitFor(5);
    raw.send(h.sig.address, 'FROBNICATE');
    await raw.waitFor(6);
    expect(raw.lines()).toEqual([
      'SIP/2.0 200 OK',
      'SIP/2.0 481 Call/Transaction Does Not Exist',
      'SIP/2.0 405 Method Not Allowed',
      'SIP/2.0 481 Call/Transaction Does Not Exist',
      'SIP/2.0 403 Forbidden',
      'SIP/2.0 501 Not Implemented',
    ]);
    expect(raw.received[0]).toMatch(/^Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE$/m);
    expect(raw.received[2]).toMatch(/^Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE$/m);
  });

  test('place() refuses a key already active and header values that are not ASCII', async () => {
    const c = await callee(1);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: c.uri('+15550000101'), from: '+15550000000' });
    await expect(h.sig.place({ key: 'c1', target: c.uri('+15550000101'), from: '+15550000000' })).rejects.toThrow(/already active/);
    await expect(h.sig.place({ key: 'c2', target: c.uri('+15551234567'), from: '+15550000000', headers: { 'X-Name': 'Zoë' } })).rejects.toThrow(/ASCII/);
    await expect(h.sig.place({ key: 'c3', target: c.uri('+15551234567'), from: '+15550000000', headers: { 'X-Evil': 'a\r\nVia: x' } })).rejects.toThrow(/ASCII/);
    await expect(h.sig.place({ key: 'c4', target: 'not a uri', from: '+15550000000' })).rejects.toThrow(/SIP URI/);
    expect(h.sig.active()).toEqual(['c1']);
  });

  test('a listener that throws is logged and the dialog goes on', async () => {
    const c = await callee(10);
    const rec = recordingLog();
    const seen: string[] = [];
    const sig = await createSipSignaling({
      listen: '127.0.0.1:0',
      ringTimeoutSeconds: 5,
      log: rec.log,
      onEvent: (_k, ev) => {
        seen.push(ev.type);
        throw new Error('listener bug');
      },
    });
    cleanups.push(() => sig.close());
    await sig.place({ key: 'c1', target: c.uri('+15551234567'), from: '+15550000000' });
    await until('answered', async () => seen.includes('answered'), 3_000);
    expect(rec.count('sip: onEvent threw')).toBe(2);
  });
});
