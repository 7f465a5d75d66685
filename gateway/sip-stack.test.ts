// The embedded SIP signaling (sip-stack.ts) against real callees on
// loopback: SIPp playing one scenario per test (gateway/sipp/*.xml), whose
// message trace shows the dialog as it went over the wire, and the built-in
// simulated callee (callee.ts) for each outcome it offers.

import dgram from 'node:dgram';
import net from 'node:net';
import { describe, expect, test } from 'vitest';
import { createSipSignaling } from './sip-stack.ts';
import { startSimulatedCallee, type SimulatedCalleeOptions } from './callee.ts';
import { MediaPlane } from './media/plane.ts';
import { PicoSynthesizer } from '../src/engines/pico/synthesizer.ts';
import { finished, flow, wire, type WireMessage } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { quietFor, until } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp } = sipRig();

const branchOf = (m: WireMessage | undefined) => /branch=([^;\s]+)/.exec(m?.header('Via') ?? '')?.[1];

/** A log that keeps its messages, for what the simulated callee saw. */
function recordingLog() {
  const lines: { msg: string; o: Record<string, unknown> }[] = [];
  const push = (o: object, msg: string) => lines.push({ msg, o: o as Record<string, unknown> });
  return { log: { info: push, warn: push, error: push }, count: (msg: string) => lines.filter((l) => l.msg === msg).length, lines };
}

async function callee(speed = 10, media?: SimulatedCalleeOptions['media']) {
  const rec = recordingLog();
  const c = await startSimulatedCallee({ listen: '127.0.0.1:0', speed, log: rec.log, media });
  cleanups.push(() => c.close());
  return { ...c, ...rec, uri: (number: string) => `sip:${number}@${c.address}` };
}


/** A bare UDP socket speaking SIP by hand, keeping every message it gets. */
async function rawSip() {
  const sock = dgram.createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise((r) => sock.close(() => r())));
  const me = `127.0.0.1:${sock.address().port}`;
  const received: string[] = [];
  sock.on('message', (data) => received.push(data.toString('utf8')));
  return {
    me,
    received,
    /** The start lines received so far. */
    lines: () => received.map((m) => m.split('\r\n')[0]),
    /** Sends a request to `to` (host:port); `branch`, `callId` and `cseq` let a test repeat or CANCEL one. */
    send(to: string, method: string, o: { uri?: string; branch?: string; callId?: string; cseq?: string; toTag?: string } = {}) {
      const msg = [
        `${method} ${o.uri ?? `sip:${to}`} SIP/2.0`,
        `Via: SIP/2.0/UDP ${me};branch=${o.branch ?? `z9hG4bK${Math.random().toString(36).slice(2)}`}`,
        'Max-Forwards: 70',
        `From: <sip:probe@${me}>;tag=p1`,
        `To: <${o.uri ?? `sip:${to}`}>${o.toTag ?? ''}`,
        `Call-ID: ${o.callId ?? `${Math.random().toString(36).slice(2)}@probe`}`,
        `CSeq: ${o.cseq ?? `1 ${method}`}`,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n');
      const [host, port] = to.split(':') as [string, string];
      sock.send(msg, Number(port), host);
    },
    /** Waits until `n` messages came. */
    waitFor: (n: number) => until(`${n} SIP messages`, async () => received.length >= n, { timeoutMs: 3_000, detail: () => received.map((m) => m.split('\r\n')[0]).join(' | ') }),
  };
}

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

describe('against the simulated callee', () => {
  test('0100: 486 Busy Here', async () => {
    const c = await callee();
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: c.uri('+15550000100'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 486, reason: 'Busy Here' }]);
  });

  test('0101: rings, then 480 Temporarily Unavailable after 5 s / speed', async () => {
    const c = await callee(10);
    const h = await signaling();
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: c.uri('+15550000101'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'rejected', status: 480, reason: 'Temporarily Unavailable' },
    ]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(450);
  });

  test('0102: a voicemail picks up with a plain 200 OK, then its greeting and beep tell it from a person (answering-machine detection)', async () => {
    const plane = await MediaPlane.start('127.0.0.1');
    cleanups.push(() => plane.stop());
    const pico = new PicoSynthesizer();
    cleanups.push(() => pico.close());
    const c = await callee(10, { plane, speech: pico });
    const h = await signaling({ media: plane });
    const beeps: number[] = [];
    plane.on('beep', (k, hz) => { if (k === 'vm') beeps.push(hz); });
    await h.sig.place({ key: 'vm', target: c.uri('+15550000102'), from: '+15550000000' });
    await h.sig.place({ key: 'person', target: c.uri('+15550000142'), from: '+15550000000' });
    // No marker on the wire: the signaling reports both as answered.
    expect(await h.waitFor('vm', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'answered', status: 200, voicemail: false }]);
    expect(await h.waitFor('person', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'answered', status: 200, voicemail: false }]);
    // The audio does tell them apart: a hello then silence, a long greeting then a 1 kHz beep.
    // The callee synthesizes its hello with Pico once answered: on a busy machine its first packet
    // came after 1 s (verdict `unknown`, no media yet), so the wait for media is generous.
    const [vm, person] = await Promise.all([plane.detectMachine('vm', { noMediaMs: 10_000 }), plane.detectMachine('person', { noMediaMs: 10_000 })]);
    expect(person.kind).toBe('human');
    expect(vm.kind).toBe('machine');
    await until('the beep', async () => beeps.length > 0, 10_000);
    expect(beeps[0]).toBe(1000);
    await h.sig.hangup('vm');
    await h.sig.hangup('person');
    await until('the callee to get the BYEs', async () => c.count('callee: BYE') === 2, 2_000);
  });

  test('0103: 503 Service Unavailable', async () => {
    const c = await callee();
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: c.uri('+15550000103'), from: '+15550000000' });
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 503, reason: 'Service Unavailable' }]);
  });

  test('any other number: rings, answers after 1 s / speed, stays up until our BYE', async () => {
    const c = await callee(10);
    const h = await signaling();
    const t0 = Date.now();
    await h.sig.place({ key: 'c1', target: c.uri('+15551234567'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
    ]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(90);
    // Up until our BYE: at speed 10 every step of the callee takes 100 ms, so three steps' time without one.
    await quietFor(300);
    expect(h.of('c1')).toHaveLength(2);
    expect(h.sig.active()).toEqual(['c1']);
    await h.sig.hangup('c1');
    await until('the callee to get the BYE', async () => c.count('callee: BYE') === 1, 2_000);
    expect(h.sig.active()).toEqual([]);
    expect(h.of('c1')).toHaveLength(2);
  });

  test('ring timeout against the callee: CANCEL, 487, ring_timeout', async () => {
    const c = await callee(1); // 0101 rings 5 s at speed 1
    const h = await signaling({ ringTimeoutSeconds: 0.3 });
    await h.sig.place({ key: 'c1', target: c.uri('+15550000101'), from: '+15550000000' });
    expect(await h.waitFor('c1', 2)).toEqual([{ type: 'ringing', status: 180 }, { type: 'ring_timeout' }]);
    expect(c.count('callee: CANCEL')).toBe(1);
    expect(c.lines.some((l) => l.msg === 'callee: final answer' && l.o.status === 487)).toBe(true);
  });

  test('20 calls in parallel: all answered, all hung up cleanly', async () => {
    const c = await callee(10);
    const h = await signaling();
    const keys = Array.from({ length: 20 }, (_, i) => `call-${i}`);
    await Promise.all(keys.map((key, i) => h.sig.place({ key, target: c.uri(`+1555100${String(i).padStart(4, '0')}`), from: '+15550000000' })));
    expect(h.sig.active().sort()).toEqual([...keys].sort());
    await until('every call answered', async () => keys.every((k) => h.of(k).length === 2), 5_000);
    for (const key of keys) {
      expect(h.of(key)).toEqual([
        { type: 'ringing', status: 180 },
        { type: 'answered', status: 200, voicemail: false },
      ]);
    }
    await Promise.all(keys.map((key) => h.sig.hangup(key)));
    expect(h.sig.active()).toEqual([]);
    await until('the callee to get 20 BYEs', async () => c.count('callee: BYE') === 20, 3_000);
    expect(h.events).toHaveLength(40);
  });

  test('hangup is idempotent: one CANCEL while ringing, one BYE once answered; unknown keys ignored', async () => {
    const slow = await callee(1); // 0101 rings for 5 s
    const c = await callee(10);
    const h = await signaling();
    await h.sig.hangup('nobody');

    await h.sig.place({ key: 'ringing', target: slow.uri('+15550000101'), from: '+15550000000' });
    await h.waitFor('ringing', 1);
    await Promise.all([h.sig.hangup('ringing'), h.sig.hangup('ringing')]);
    await h.sig.hangup('ringing');
    expect(await h.waitFor('ringing', 2)).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'rejected', status: 487, reason: 'Request Terminated' },
    ]);
    await h.sig.hangup('ringing');
    expect(slow.count('callee: CANCEL')).toBe(1);

    await h.sig.place({ key: 'up', target: c.uri('+15551234567'), from: '+15550000000' });
    await h.waitFor('up', 2);
    await Promise.all([h.sig.hangup('up'), h.sig.hangup('up')]);
    await h.sig.hangup('up');
    await until('the callee to get the BYE', async () => c.count('callee: BYE') === 1, 2_000);
    // The second hangup would send its BYE at once, the first one's came: no other within 100 ms.
    await quietFor(100);
    expect(c.count('callee: BYE')).toBe(1);
    expect(h.of('up')).toHaveLength(2);
    expect(h.sig.active()).toEqual([]);
  });

  test('hangup before any answer: the CANCEL waits for the 1xx', async () => {
    const c = await callee(1);
    const h = await signaling();
    const placing = h.sig.place({ key: 'c1', target: c.uri('+15550000101'), from: '+15550000000' });
    await h.sig.hangup('c1'); // the INVITE is not even on the wire yet
    await placing;
    expect(await h.waitFor('c1', 1)).toEqual([{ type: 'rejected', status: 487, reason: 'Request Terminated' }]);
    expect(c.count('callee: CANCEL')).toBe(1);
  });

  test('the callee absorbs a retransmitted INVITE, answers a CANCEL 200 and the INVITE 487', async () => {
    const c = await callee(1); // 0101 rings for 5 s
    const raw = await rawSip();
    const invite = { uri: c.uri('+15550000101'), branch: 'z9hG4bKretrans1', callId: 'retrans@probe' };
    raw.send(c.address, 'INVITE', invite);
    await raw.waitFor(1);
    raw.send(c.address, 'INVITE', invite); // the same INVITE again: `sip` answers it with the last response
    await raw.waitFor(2);
    expect(c.count('callee: INVITE')).toBe(1);
    raw.send(c.address, 'CANCEL', { ...invite, cseq: '1 CANCEL' });
    await raw.waitFor(4);
    expect(raw.lines()).toEqual(['SIP/2.0 180 Ringing', 'SIP/2.0 180 Ringing', 'SIP/2.0 200 OK', 'SIP/2.0 487 Request Terminated']);
    expect(raw.received[3]).toMatch(/^CSeq: 1 INVITE$/m);
    raw.send(c.address, 'ACK', { ...invite, cseq: '1 ACK', toTag: `;tag=${/^To:.*;tag=(\w+)/m.exec(raw.received[3]!)![1]}` });
    raw.send(c.address, 'BYE', { uri: c.uri('+15550000101'), toTag: ';tag=nope' });
    await raw.waitFor(5);
    raw.send(c.address, 'MESSAGE');
    await raw.waitFor(6);
    raw.send(c.address, 'OPTIONS');
    await raw.waitFor(7);
    expect(raw.lines().slice(4)).toEqual(['SIP/2.0 481 Call/Transaction Does Not Exist', 'SIP/2.0 405 Method Not Allowed', 'SIP/2.0 200 OK']);
  });

  test('close() ends the active dialogs: BYE the answered, CANCEL the ringing', async () => {
    const c = await callee(10);
    const s = await sipp('ring-until-cancel');
    const h = await signaling();
    await h.sig.place({ key: 'a', target: c.uri('+15551234567'), from: '+15550000000' });
    await h.sig.place({ key: 'b', target: c.uri('+15551234568'), from: '+15550000000' });
    await h.sig.place({ key: 'r', target: s.uri('+15551230010'), from: '+15550000000' });
    await Promise.all([h.waitFor('a', 2), h.waitFor('b', 2), h.waitFor('r', 1)]);
    expect(h.sig.active().sort()).toEqual(['a', 'b', 'r']);
    const before = h.events.length;

    await h.sig.close();
    expect(h.sig.active()).toEqual([]);
    expect(c.count('callee: BYE')).toBe(2);
    const r = await finished(s);
    expect(r.code, r.errors).toBe(0);
    expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
    expect(h.events).toHaveLength(before); // close() reports nothing
    await expect(h.sig.place({ key: 'late', target: c.uri('+15551234567'), from: '+1' })).rejects.toThrow(/closed/);
    await h.sig.close(); // idempotent
  });
});

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
