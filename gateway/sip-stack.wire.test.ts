// SIP that carriers accept, for the embedded stack (sip-stack.ts), each
// behaviour against SIPp playing one scenario (gateway/sipp/*.xml), the
// peer's side asserted from SIPp's message trace. SIPp plays the callee
// (UAS) as in sip-stack.sipp.test.ts, or the caller (UAC) sending requests to
// the stack, over UDP or TCP.
// This file: what we put on the wire and take from it (random branches and
// tags, strict parsing, no response twice over TCP) and our answers to
// requests from outside our dialogs.

import dgram from 'node:dgram';
import { describe, expect, test, vi } from 'vitest';
import { finished, flow, wire } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { branchOf, sipFixtures, tagIn } from '../test/helpers/sip-stack-fixtures.ts';
import { until } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp: callee } = sipRig();
const { runSipp } = sipFixtures(cleanups);

describe('1. branches and tags: crypto.randomBytes, not Math.random', () => {
  test('INVITE, ACK, CANCEL and BYE branches are z9hG4bK + 96 random bits, tags 64; two calls never share one even when Math.random repeats itself', async () => {
    // `sip` makes its branches from Math.random: pinned, they would all be the same.
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5);
    cleanups.push(async () => void random.mockRestore());
    const answered = await callee('answer-wait-bye');
    const ringing = await callee('ring-until-cancel');
    const h = await signaling();
    await h.sig.place({ key: 'a', target: answered.uri('+15551230101'), from: '+15550000000' });
    await h.sig.place({ key: 'r', target: ringing.uri('+15551230102'), from: '+15550000000' });
    await h.waitFor('a', 2);
    await h.waitFor('r', 1);
    await h.sig.hangup('a');
    await h.sig.hangup('r');
    expect(await h.waitFor('r', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'rejected', status: 487, reason: 'Request Terminated' }]);

    const a = wire((await finished(answered)).trace);
    const r = wire((await finished(ringing)).trace);
    expect(flow(a)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    expect(flow(r)).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    const ours = [...a, ...r].filter((m) => m.by === 'gateway');
    for (const m of ours) expect(branchOf(m), m.startLine).toMatch(/^z9hG4bK[0-9a-f]{24}$/);
    // A new transaction, a new branch; the CANCEL and the ACK of the 487 share the INVITE's (RFC 3261 9.1, 17.1.1.3).
    expect(new Set([...a.filter((m) => m.by === 'gateway').map(branchOf), branchOf(r[0])]).size).toBe(4);
    expect(branchOf(r[2])).toBe(branchOf(r[0]));
    expect(branchOf(r[5])).toBe(branchOf(r[0]));
    for (const m of [a[0]!, r[0]!]) expect(tagIn(m.header('From'))).toMatch(/^[0-9a-f]{16}$/);
    expect(tagIn(a[0]!.header('From'))).not.toBe(tagIn(r[0]!.header('From')));
  });

  test('an answer to a stranger carries a To tag of 64 random bits', async () => {
    const h = await signaling();
    const s = await runSipp('options', { remote: h.sig.address, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const [, ok] = wire(r.trace);
    expect(tagIn(ok!.header('To'))).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('4. strict parsing, and no response sent twice over TCP', () => {
  test('over TCP the same 488 is written once, whatever the wait for its ACK (Timer G is for UDP)', async () => {
    const s = await runSipp('reinvite-refused', { tcp: true });
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230401'), from: '+15550000000' });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 488 Not Acceptable Here', '< ACK', '< BYE', '> 200 OK']);
    expect(msgs[0]!.header('Via')).toMatch(/^SIP\/2.0\/TCP /);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });

  test('505 for another SIP version, 501 for an unknown method, 400 without From, nothing without Via; a good request still answered', async () => {
    const h = await signaling();
    const s = await runSipp('malformed', { remote: h.sig.address, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual([
      '< OPTIONS', '> 505 Version Not Supported',
      '< FROBNICATE', '> 501 Not Implemented',
      '< OPTIONS', '> 400 Missing From',
      '< OPTIONS',
      '< OPTIONS', '> 200 OK',
    ]);
    expect(msgs[1]!.startLine).toMatch(/^SIP\/2.0 /);
    // Refusals are not the operator's business: nothing at warn.
    expect(h.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  test('a raw request missing Call-ID, CSeq or To, or whose CSeq names another method: 400 to where it came from', async () => {
    const h = await signaling();
    const sock = dgram.createSocket('udp4');
    await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise((r) => sock.close(() => r())));
    const me = `127.0.0.1:${sock.address().port}`;
    const received: string[] = [];
    sock.on('message', (d) => received.push(d.toString('utf8')));
    const [host, port] = h.sig.address.split(':') as [string, string];
    const request = (omit: string, cseq = '1 OPTIONS') => [
      `OPTIONS sip:${h.sig.address} SIP/2.0`,
      `Via: SIP/2.0/UDP ${me};branch=z9hG4bK${omit.toLowerCase()}1`,
      `From: <sip:probe@${me}>;tag=p1`,
      `To: <sip:${h.sig.address}>`,
      `Call-ID: ${omit}@probe`,
      `CSeq: ${cseq}`,
      'Content-Length: 0',
      '', '',
    ].filter((l) => !l.startsWith(`${omit}:`)).join('\r\n');
    for (const [omit, cseq] of [['Call-ID'], ['CSeq'], ['To'], ['none', '1 INVITE']] as [string, string?][]) {
      const n = received.length;
      sock.send(request(omit, cseq), Number(port), host);
      await until(`the answer to a request without ${omit}`, async () => received.length > n, 2_000);
    }
    expect(received.map((m) => m.split('\r\n')[0])).toEqual([
      'SIP/2.0 400 Missing Call-ID',
      'SIP/2.0 400 Missing CSeq',
      'SIP/2.0 400 Missing To',
      'SIP/2.0 400 CSeq Method Does Not Match',
    ]);
    for (const m of received) expect(m).toMatch(new RegExp(`^Via: SIP/2.0/UDP ${me};branch=`, 'm'));
  });
});

describe('3. requests from outside our dialogs', () => {
  test('an INVITE to us: 403 once, never on its own (no reflection); the same INVITE again gets the same 403; a second caller logged at debug', async () => {
    const h = await signaling();
    // Two strangers' calls at once from the same address, each with its own Call-ID.
    const s = await runSipp('call-us-refused', { remote: h.sig.address, calls: 2, args: ['-nr'] });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    for (const callId of new Set(msgs.map((m) => m.header('Call-ID')))) {
      const call = msgs.filter((m) => m.header('Call-ID') === callId);
      // 2.5 s without an ACK, and only the retransmitted INVITE got a second 403.
      expect(flow(call)).toEqual(['< INVITE', '> 403 Forbidden', '< INVITE', '> 403 Forbidden', '< ACK']);
      expect(call[3]!.text).toBe(call[1]!.text);
      expect(branchOf(call[2])).toBe(branchOf(call[0]));
      expect(tagIn(call[1]!.header('To'))).toMatch(/^[0-9a-f]{16}$/);
    }
    const refused = h.lines.filter((l) => l.msg === 'sip: INVITE from outside our dialogs refused');
    expect(refused.map((l) => l.level)).toEqual(['info', 'debug']);
    expect(refused[0]!.o.status).toBe(403);
    expect(h.lines.filter((l) => l.msg === 'sip: a retransmitted request from outside our dialogs').map((l) => l.level)).toEqual(['debug', 'debug']);
    expect(h.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
    expect(h.events).toEqual([]);
  });

  test('over TCP: 403 once, and the same INVITE again gets nothing (no response twice on a reliable transport)', async () => {
    const h = await signaling();
    const s = await runSipp('call-us-refused-tcp', { remote: h.sig.address, tcp: true });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['< INVITE', '> 403 Forbidden', '< INVITE', '< ACK']);
  });

  test('from one of our trunks (the fromTrunk hook): 480', async () => {
    const h = await signaling({ fromTrunk: (source) => source.address === '127.0.0.1' });
    const s = await runSipp('call-us-refused-tcp', { remote: h.sig.address, tcp: true });
    expect(flow(wire((await s.done()).trace)).slice(0, 2)).toEqual(['< INVITE', '> 480 Temporarily Unavailable']);
  });

  test('OPTIONS: 200, Allow lists only what we take, Supported: timer', async () => {
    const h = await signaling();
    const s = await runSipp('options', { remote: h.sig.address });
    const r = await s.done();
    expect(r.code, r.errors).toBe(0);
    const [, ok] = wire(r.trace);
    expect(ok!.startLine).toBe('SIP/2.0 200 OK');
    expect(ok!.header('Allow')).toBe('INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE');
    expect(ok!.header('Supported')).toBe('timer');
    expect(ok!.header('Accept')).toBe('application/sdp');
  });
});
