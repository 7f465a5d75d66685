// The embedded SIP signaling (sip-stack.ts) placing calls against SIPp on
// loopback, one scenario per test (gateway/sipp/*.xml), whose message trace
// shows the dialog as it went over the wire: each outcome, and the requests
// we send for it (ACK, BYE, CANCEL, retransmissions).

import { describe, expect, test } from 'vitest';
import { finished, flow, wire } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { branchOf } from '../test/helpers/sip-stack-fixtures.ts';
import { quietFor, until } from '../test/helpers/wait.ts';

const { signaling, sipp } = sipRig();

describe('against SIPp', () => {
  test('answered, then the callee hangs up: ringing, answered, remote_hangup; ACK and 200 OK on the wire', async () => {
    const s = await sipp('answer-then-bye');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230001'), from: '+15550000000', headers: { 'X-Tolk-Call': 'c1' } });
    expect(await h.waitFor('c1', 3)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
      { type: 'remote_hangup' },
    ]);
    expect(h.sig.active()).toEqual([]);

    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< BYE', '> 200 OK']);
    const [invite, , ok, ack, bye, byeOk] = msgs;
    expect(invite!.startLine).toBe(`INVITE ${s.uri('+15551230001')} SIP/2.0`);
    expect(invite!.header('Via')).toMatch(new RegExp(`^SIP/2.0/UDP ${h.sig.address};branch=z9hG4bK`));
    expect(invite!.header('Max-Forwards')).toBe('70');
    expect(invite!.header('From')).toMatch(new RegExp(`^<sip:\\+15550000000@${h.sig.address}>;tag=\\w+$`));
    expect(invite!.header('To')).toBe(`<${s.uri('+15551230001')}>`);
    expect(invite!.header('Contact')).toBe(`<sip:+15550000000@${h.sig.address}>`);
    expect(invite!.header('CSeq')).toBe('1 INVITE');
    expect(invite!.header('X-Tolk-Call')).toBe('c1');
    expect(invite!.header('Content-Type')).toBe('application/sdp');
    expect(invite!.body).toMatch(/^v=0\r?\n/);
    expect(invite!.body).toContain('a=rtpmap:0 PCMU/8000');
    expect(invite!.body).toContain('a=rtpmap:8 PCMA/8000');
    expect(invite!.body).toContain('telephone-event/8000');
    expect(Number(invite!.header('Content-Length'))).toBe(Buffer.byteLength(invite!.body.replace(/\r?\n/g, '\r\n')));
    // The ACK of the 2xx: to the 200's Contact, the callee's tag, CSeq of the INVITE, a branch of its own.
    const contact = /<([^>]+)>/.exec(ok!.header('Contact')!)![1];
    expect(ack!.startLine).toBe(`ACK ${contact} SIP/2.0`);
    expect(ack!.header('To')).toBe(ok!.header('To'));
    expect(ack!.header('CSeq')).toBe('1 ACK');
    expect(ack!.header('Max-Forwards')).toBe('70');
    expect(branchOf(ack)).not.toBe(branchOf(invite));
    expect(byeOk!.header('CSeq')).toBe(bye!.header('CSeq'));
  });

  test('answered, then we hang up: a BYE with Max-Forwards to the Contact, nothing reported for it', async () => {
    const s = await sipp('answer-wait-bye');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230002'), from: '+15550000000' });
    await h.waitFor('c1', 2);
    expect(h.sig.active()).toEqual(['c1']);
    await h.sig.hangup('c1');
    expect(h.sig.active()).toEqual([]);

    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const ok = msgs[2]!;
    const bye = msgs[4]!;
    expect(bye.startLine).toBe(`BYE ${/<([^>]+)>/.exec(ok.header('Contact')!)![1]} SIP/2.0`);
    expect(bye.header('Max-Forwards')).toBe('70');
    expect(bye.header('CSeq')).toBe('2 BYE');
    expect(bye.header('From')).toBe(msgs[0]!.header('From'));
    expect(bye.header('To')).toBe(ok.header('To'));
    expect(bye.header('Via')).toMatch(new RegExp(`^SIP/2.0/UDP ${h.sig.address};`));
    // Our own hangup reports nothing: a report would follow the BYE's 200 OK, which SIPp has sent.
    await quietFor(50);
    expect(h.of('c1')).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
    ]);
  });

  test('486 Busy Here: rejected, ACKed in the INVITE transaction', async () => {
    const s = await sipp('busy');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230003'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 486, reason: 'Busy Here' }]);
    expect(h.sig.active()).toEqual([]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 486 Busy Here', '> ACK']);
    // The ACK of a non-2xx belongs to the INVITE's transaction: same branch, same Request-URI.
    expect(branchOf(msgs[2])).toBe(branchOf(msgs[0]));
    expect(msgs[2]!.startLine).toBe(`ACK ${s.uri('+15551230003')} SIP/2.0`);
    expect(msgs[2]!.header('CSeq')).toBe('1 ACK');
  });

  test('180 then 480: ringing, rejected 480', async () => {
    const s = await sipp('ring-then-480');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230004'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'rejected', status: 480, reason: 'Temporarily Unavailable' },
    ]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '< 480 Temporarily Unavailable', '> ACK']);
  });

  test('503 Service Unavailable: rejected 503 (not the 503 `sip` makes up in its place)', async () => {
    const s = await sipp('unavailable-503');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230005'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 503, reason: 'Service Unavailable' }]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 503 Service Unavailable', '> ACK']);
  });

  test('hangup while ringing: CANCEL (same branch as the INVITE), then the 487 is reported as rejected', async () => {
    const s = await sipp('ring-until-cancel');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230006'), from: '+15550000000' });
    await h.waitFor('c1', 1);
    await h.sig.hangup('c1');
    expect(await h.waitFor('c1', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'rejected', status: 487, reason: 'Request Terminated' },
    ]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    const [invite, , cancel] = msgs;
    expect(cancel!.startLine).toBe(`CANCEL ${s.uri('+15551230006')} SIP/2.0`);
    expect(branchOf(cancel)).toBe(branchOf(invite));
    expect(cancel!.header('CSeq')).toBe('1 CANCEL');
    expect(cancel!.header('Max-Forwards')).toBe('70');
    expect(cancel!.header('From')).toBe(invite!.header('From'));
    expect(cancel!.header('To')).toBe(invite!.header('To'));
  });

  test('ring timeout: CANCELed after ringTimeoutSeconds from the INVITE, reported as ring_timeout', async () => {
    const s = await sipp('ring-until-cancel');
    const h = await signaling({ ringTimeoutSeconds: 0.5 });
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230007'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'ring_timeout' }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
    expect(h.sig.active()).toEqual([]);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
  });

  test('a retransmitted 200 OK gets the same ACK again and is reported once', async () => {
    // -nr: see the scenario's header.
    const s = await sipp('retransmit-200', ['-nr']);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230008'), from: '+15550000000' });
    await h.waitFor('c1', 2);
    // The second 200 comes 200 ms after the first ACK; its ACK on the wire before we hang up.
    await until('the second ACK', async () => wire(await s.traceSoFar()).filter((m) => m.startLine.startsWith('ACK ')).length === 2, 2_000);
    await h.sig.hangup('c1');
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    const acks = msgs.filter((m) => m.startLine.startsWith('ACK '));
    expect(acks[1]!.text).toBe(acks[0]!.text);
    expect(h.of('c1')).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
    ]);
  });

  test('no answer at all: no_response after noResponseSeconds, the INVITE retransmitted meanwhile, no CANCEL', async () => {
    const s = await sipp('never-answer');
    const h = await signaling({ noResponseSeconds: 2 });
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230009'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1, 4_000)).toEqual([{ type: 'no_response' }]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900);
    expect(h.sig.active()).toEqual([]);
    await h.sig.close();
    await s.stop();
    const msgs = wire((await s.done()).trace);
    expect(msgs.length).toBeGreaterThanOrEqual(2); // T1 = 500 ms: sent at 0, 0.5 and 1.5 s
    expect(new Set(flow(msgs))).toEqual(new Set(['> INVITE']));
    expect(new Set(msgs.map(branchOf)).size).toBe(1);
  });
});
