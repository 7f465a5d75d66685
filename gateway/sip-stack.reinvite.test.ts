// SIP that carriers accept, for the embedded stack (sip-stack.ts), each
// behaviour against SIPp playing one scenario (gateway/sipp/*.xml), the
// peer's side asserted from SIPp's message trace. SIPp plays the callee
// (UAS) as in sip-stack.sipp.test.ts, or the caller (UAC) sending requests to
// the stack, over UDP or TCP.
// This file: re-INVITE and UPDATE on an answered dialog (hold, resume, the
// session timer, our answer's retransmissions, and what we refuse).

import { describe, expect, test } from 'vitest';
import { MediaPlane } from './media/plane.ts';
import type { Negotiated } from './media/sdp.ts';
import { finished, flow, once, wire, type WireMessage } from '../test/helpers/sipp.ts';
import { sipRig } from '../test/helpers/sip-rig.ts';
import { answersTo, sdpLine, tagIn } from '../test/helpers/sip-stack-fixtures.ts';

const { cleanups, signaling, sipp: callee } = sipRig();

describe('2. re-INVITE and UPDATE on an answered dialog', () => {
  /** The o= version of an SDP body. */
  const version = (m: WireMessage) => Number(sdpLine(m, 'o=')!.split(' ')[2]);

  test('hold, session refresh, resume, old-style hold, an offerless re-INVITE: each answered 200, our SDP mirroring the offer; the call goes on', async () => {
    const s = await callee('reinvite-hold-update');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230201'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    expect(h.of('c1')).toEqual([
      { type: 'ringing', status: 180 },
      { type: 'answered', status: 200, voicemail: false },
      { type: 'remote_hangup' },
    ]);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual([
      '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
      '< INVITE', '> 200 OK', '< ACK',
      '< UPDATE', '> 200 OK',
      '< UPDATE', '> 200 OK',
      '< INVITE', '> 200 OK', '< ACK',
      '< INVITE', '> 200 OK', '< ACK',
      '< BYE', '> 200 OK',
    ]);
    const contact = msgs[0]!.header('Contact');
    const [hold] = answersTo(msgs, '1 INVITE');
    const [refresh] = answersTo(msgs, '2 UPDATE');
    const [resume] = answersTo(msgs, '3 UPDATE');
    const [oldHold] = answersTo(msgs, '4 INVITE');
    const [offer] = answersTo(msgs, '5 INVITE');
    for (const ok of [hold, refresh, resume, oldHold, offer]) {
      expect(ok!.startLine).toBe('SIP/2.0 200 OK');
      expect(ok!.header('Supported')).toBe('timer');
      expect(ok!.header('Allow')).toBe('INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE');
      expect(ok!.header('Contact')).toBe(contact);
      expect(tagIn(ok!.header('To'))).toBe(tagIn(msgs[0]!.header('From')));
    }
    // RFC 4028: the session timer of the request echoed, the requester refreshes.
    for (const ok of [hold, refresh]) {
      expect(ok!.header('Session-Expires')).toBe('1800;refresher=uac');
      expect(ok!.header('Require')).toBe('timer');
    }
    // Hold (a=sendonly): we answer a=recvonly; resume: a=sendrecv; c=0.0.0.0: recvonly too.
    expect(hold!.header('Content-Type')).toBe('application/sdp');
    expect(hold!.body).toMatch(/^a=recvonly\r?$/m);
    expect(sdpLine(hold!, 'm=')).toMatch(/^m=audio 9 RTP\/AVP 0 101/); // no media plane: the discard port
    expect(refresh!.body).toBe('');
    expect(resume!.body).toMatch(/^a=sendrecv\r?$/m);
    expect(oldHold!.body).toMatch(/^a=recvonly\r?$/m);
    expect(oldHold!.header('Session-Expires')).toBeUndefined();
    // No offer in the re-INVITE: the 200 offers (both codecs), the ACK answered.
    expect(offer!.body).toMatch(/^m=audio 9 RTP\/AVP 0 8 101/m);
    expect(offer!.body).toMatch(/^a=sendrecv\r?$/m);
    // One SDP session, its version one up each time (RFC 3264 8).
    const ours = [hold, resume, oldHold, offer].map((m) => version(m!));
    expect(ours).toEqual([...ours].sort((x, y) => x - y));
    expect(new Set(ours).size).toBe(4);
    expect(new Set([msgs[0]!, hold!, resume!, oldHold!, offer!].map((m) => sdpLine(m, 'o=')!.split(' ')[1]))).toHaveLength(1);
  });

  test('with a media plane: the answer names our RTP port; the plane is told the hold, and keeps the destination through it', async () => {
    const plane = await MediaPlane.start('127.0.0.1');
    cleanups.push(() => plane.stop());
    const told: Negotiated[] = [];
    const connect = plane.connect.bind(plane);
    plane.connect = async (key, remote) => {
      told.push(remote);
      return connect(key, remote);
    };
    const s = await callee('reinvite-hold-update');
    const h = await signaling({ media: plane });
    await h.sig.place({ key: 'c1', target: s.uri('+15551230202'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    const port = sdpLine(msgs[0]!, 'm=')!.split(' ')[1];
    expect(port).not.toBe('9');
    for (const ok of [...answersTo(msgs, '1 INVITE'), ...answersTo(msgs, '3 UPDATE'), ...answersTo(msgs, '5 INVITE')]) {
      expect(sdpLine(ok, 'm=')!.split(' ')[1]).toBe(port);
    }
    // The answer, hold, resume, hold (c=0.0.0.0: no destination, so the old one kept), the answer in the last ACK.
    expect(told.map((n) => n.direction)).toEqual(['sendrecv', 'sendonly', 'sendrecv', 'sendonly', 'sendrecv']);
    expect(new Set(told.map((n) => `${n.address}:${n.port}`)).size).toBe(1);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });
});

describe('2. (the 2xx and errors of a re-INVITE on the wire)', () => {
  test('our 200 to a re-INVITE is retransmitted over UDP until its ACK, then no more', async () => {
    // -nr: see the scenario's header.
    const s = await callee('reinvite-late-ack', ['-nr']);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230203'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 200 OK', '> 200 OK', '< ACK', '< BYE', '> 200 OK']);
    expect(msgs[6]!.text).toBe(msgs[5]!.text);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });

  test('an in-dialog offer we cannot take: 488, retransmitted until the ACK over UDP (Timer G), the call goes on', async () => {
    const s = await callee('reinvite-refused');
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri('+15551230204'), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    const msgs = wire(r.trace);
    expect(answersTo(msgs, '1 INVITE').filter((m) => m.startLine === 'SIP/2.0 488 Not Acceptable Here').length).toBeGreaterThanOrEqual(2);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
  });
});

describe('2. (the refusals of a re-INVITE or UPDATE, each followed by the call going on)', () => {
  /** Places a call to SIPp playing `name`, waits for its end, and checks the call went on to the callee's BYE. */
  async function midCall(name: string, number: string) {
    const s = await callee(name);
    const h = await signaling();
    await h.sig.place({ key: 'c1', target: s.uri(number), from: '+15550000000' });
    const r = await finished(s, 10_000);
    expect(r.code, r.errors).toBe(0);
    expect(h.of('c1').map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
    return wire(r.trace);
  }

  test('420: a re-INVITE requiring an option tag we do not have is refused, naming it in Unsupported', async () => {
    const msgs = await midCall('reinvite-420', '+15551230205');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< INVITE', '> 420 Bad Extension', '< ACK', '< BYE', '> 200 OK']);
    const [bad] = answersTo(msgs, '1 INVITE');
    expect(bad!.header('Unsupported')).toBe('x-tolk-unknown');
    expect(bad!.body).toBe('');
  });

  test('422: a session interval below 90 s is refused with Min-SE: 90; asked again at 90 s, it is taken', async () => {
    const msgs = await midCall('update-422', '+15551230206');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< UPDATE', '> 422 Session Interval Too Small', '< UPDATE', '> 200 OK', '< BYE', '> 200 OK']);
    const [small] = answersTo(msgs, '1 UPDATE');
    expect(small!.header('Min-SE')).toBe('90');
    const [ok] = answersTo(msgs, '2 UPDATE');
    expect(ok!.header('Session-Expires')).toBe('90;refresher=uac');
  });

  test('491: an offer crossing ours (ours in the 200 to an offerless re-INVITE, its answer not yet in the ACK); after the ACK the same offer is taken', async () => {
    const msgs = await midCall('update-491', '+15551230207');
    const [offer] = answersTo(msgs, '1 INVITE');
    expect(offer!.startLine).toBe('SIP/2.0 200 OK');
    expect(offer!.body).toMatch(/^m=audio 9 RTP\/AVP 0 8 101/m);
    expect(answersTo(msgs, '2 UPDATE').map((m) => m.startLine)).toEqual(['SIP/2.0 491 Request Pending']);
    const [taken] = answersTo(msgs, '3 UPDATE');
    expect(taken!.startLine).toBe('SIP/2.0 200 OK');
    expect(taken!.body).toMatch(/^a=sendrecv\r?$/m);
    // Our 200 to the re-INVITE may come again before its ACK (UDP): a retransmission is left out.
    expect(flow(once(msgs))).toEqual([
      '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
      '< INVITE', '> 200 OK', '< UPDATE', '> 491 Request Pending', '< ACK', '< UPDATE', '> 200 OK', '< BYE', '> 200 OK',
    ]);
  });

  test('500: a request older than the last one of the dialog (an offer in UPDATE CSeq 1 after CSeq 2) is refused with Retry-After', async () => {
    const msgs = await midCall('update-500', '+15551230208');
    expect(flow(msgs)).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '< UPDATE', '> 200 OK', '< UPDATE', '> 500 Server Internal Error', '< BYE', '> 200 OK']);
    const [late] = answersTo(msgs, '1 UPDATE');
    expect(late!.header('Retry-After')).toBe('1');
    expect(late!.body).toBe('');
  });
});
