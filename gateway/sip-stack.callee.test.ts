// The embedded SIP signaling (sip-stack.ts) against the built-in simulated
// callee (callee.ts) on loopback, for each outcome it offers (answering-machine
// detection on its voicemail's audio among them), hangups and close(); and the
// callee's own answers to requests sent by hand.

import { describe, expect, test } from 'vitest';
import { MediaPlane } from './media/plane.ts';
import { PicoSynthesizer } from '../src/engines/pico/synthesizer.ts';
import { finished, flow, wire } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { sipFixtures } from '../test/helpers/sip-stack-fixtures.ts';
import { quietFor, until } from '../test/helpers/wait.ts';

const { cleanups, signaling, sipp } = sipRig();
const { callee, rawSip } = sipFixtures(cleanups);

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
    // came after 1 s (verdict `unknown`, no media yet), so the wait for media is generous, and so are
    // the waits for a voice and for a verdict (a loaded CI machine once had the greeting start past the
    // default 5 s); what tells them apart, the lengths of voice and pause, is the default.
    const patient = { noMediaMs: 10_000, options: { waitMs: 10_000, maxMs: 14_000 } };
    const [vm, person] = await Promise.all([plane.detectMachine('vm', patient), plane.detectMachine('person', patient)]);
    expect(person.kind, JSON.stringify(person)).toBe('human');
    expect(vm.kind, JSON.stringify(vm)).toBe('machine');
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
