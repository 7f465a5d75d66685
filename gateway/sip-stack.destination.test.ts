// SIP that carriers accept, for the embedded stack (sip-stack.ts), each
// behaviour against SIPp playing one scenario (gateway/sipp/*.xml), the
// peer's side asserted from SIPp's message trace. SIPp plays the callee
// (UAS) as in sip-stack.sipp.test.ts, or the caller (UAC) sending requests to
// the stack, over UDP or TCP.
// This file: where a call goes, an unreachable destination failing it at once
// and a 3xx redirect followed once to the same number.

import dgram from 'node:dgram';
import { describe, expect, test } from 'vitest';
import { freeUdpPort } from './sip-stack.ts';
import { finished, flow, startSipp, wire } from '../test/helpers/sipp.ts';
import { sipRig, sippScenario } from '../test/helpers/sip-rig.ts';
import { branchOf } from '../test/helpers/sip-stack-fixtures.ts';
import { quietFor } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp: callee } = sipRig();
const scenario = sippScenario;

describe('5. an unreachable destination fails the call at once', () => {
  test('a closed UDP port: no_response within a second (ICMP port unreachable), and the INVITE is not sent on', async () => {
    const h = await signaling({ noResponseSeconds: 30 });
    const port = await freeUdpPort('127.0.0.1'); // nothing listens there
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: `sip:+15551230501@127.0.0.1:${port}`, from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 1_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(h.sig.active()).toEqual([]);
    const unreachable = h.lines.find((l) => l.msg === "sip: the INVITE's destination is unreachable");
    expect(unreachable?.o.code).toBe('ECONNREFUSED');
    // Had it been sent on, a socket bound there now would hear its retransmissions.
    const late = dgram.createSocket('udp4');
    const heard: string[] = [];
    late.on('message', (d) => heard.push(d.toString('utf8')));
    await new Promise<void>((r) => late.bind(port, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => late.close(() => r())));
    // INVITE retransmissions come at 0.5, 1 and 2 s (RFC 3261 Timer A): 2.5 s would hear two at least.
    await quietFor(2_500);
    expect(heard).toEqual([]);
  });

  test('a closed TCP port: no_response at once (connection refused)', async () => {
    const h = await signaling({ noResponseSeconds: 30 });
    const port = await freeUdpPort('127.0.0.1');
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: `sip:+15551230502@127.0.0.1:${port};transport=tcp`, from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 1_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  test('a peer that listens but stays silent is not taken for unreachable: no_response only after noResponseSeconds', async () => {
    const s = await callee('never-answer');
    const h = await signaling({ noResponseSeconds: 1.5 });
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230503'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 3_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400);
    expect(h.lines.some((l) => l.msg === "sip: the INVITE's destination is unreachable")).toBe(false);
  });
});

describe('6. 3xx: a redirect followed once, to the same number', () => {
  test('302 to the same number: the 302 ACKed, a new INVITE to its Contact in the same call (next CSeq), answered and hung up as usual', async () => {
    const s = await callee('redirect-then-answer');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230601'), from: '+15550000000', headers: { 'X-Tolk-Call': 'c1' } });
    expect(await h.waitFor('c1', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'answered', status: 200, voicemail: false }]);
    await h.sig.hangup('c1');
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK', '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const [first, moved, ack, second] = msgs;
    expect(branchOf(ack)).toBe(branchOf(first));
    expect(second!.startLine).toBe(`INVITE ${/<([^>]+)>/.exec(moved!.header('Contact')!)![1]} SIP/2.0`);
    expect(second!.header('Call-ID')).toBe(first!.header('Call-ID'));
    expect(second!.header('From')).toBe(first!.header('From'));
    expect(second!.header('To')).toBe(first!.header('To'));
    expect(second!.header('CSeq')).toBe('2 INVITE');
    expect(second!.header('X-Tolk-Call')).toBe('c1');
    expect(second!.body).toBe(first!.body);
    expect(branchOf(second)).not.toBe(branchOf(first));
    expect(msgs[6]!.header('CSeq')).toBe('2 ACK');
    expect(msgs[7]!.header('CSeq')).toBe('3 BYE');
  });

  test('a second redirect ends the call: rejected with the 302', async () => {
    const s = await callee('redirect-twice');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230602'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 302, reason: 'Moved Temporarily' }]);
    expect(h.sig.active()).toEqual([]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK', '> INVITE', '< 302 Moved Temporarily', '> ACK']);
  });

  test.each([
    ['another number', (at: string) => `<sip:+15559999999@${at}>`],
    ['a tel: URI', () => '<tel:+15551230603>'],
    ['a sips: URI', (at: string) => `<sips:+15551230603@${at}>`],
  ])('a redirect to %s is not followed: rejected with the 302', async (_what, contact) => {
    const at = `127.0.0.1:${await freeUdpPort('127.0.0.1')}`;
    const s = await startSipp({ scenario: scenario('redirect-elsewhere'), listen: at, extraArgs: ['-set', 'contact', contact(at)] });
    cleanups.push(() => s.stop());
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230603'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 302, reason: 'Moved Temporarily' }]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 302 Moved Temporarily', '> ACK']);
    // The redirect not followed: nothing more is reported after the ACK (200 ms, well past handling it).
    await quietFor(200);
    expect(h.of('c1')).toHaveLength(1);
  });
});
