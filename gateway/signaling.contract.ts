// The SipSignaling contract (signaling.ts), one suite for every
// implementation: the embedded stack (sip-stack.contract.test.ts) and the
// drachtio-server adapter (drachtio.contract.test.ts). Each test places a
// call to SIPp playing one scenario (gateway/sipp/*.xml) and checks what the
// interface promises: the dialog events in order, CANCEL and BYE on hangup,
// the ring timeout, media on an answered dialog, the far end's hold and
// session refresh, an answer without usable media (no_media), a far end gone
// silent (media_timeout), and an INVITE from outside our dialogs (403). A new
// SIP behaviour gets its test here, so that both adapters have to pass it.

import { afterEach, describe, expect, it } from 'vitest';
import type { DialogEvent, SignalingOptions, SipSignaling } from './signaling.ts';
import { MediaPlane } from './media/plane.ts';
import type { Negotiated } from './media/sdp.ts';
import { finished, flow, startSipp, wire, type Sipp, type WireMessage } from '../test/helpers/sipp.ts';
import { until } from '../test/helpers/wait.ts';
import { freeUdpPort } from './sip-stack.ts';

export type MakeSignaling = (o: SignalingOptions) => Promise<SipSignaling>;

const scenario = (name: string) => new URL(`./sipp/${name}.xml`, import.meta.url).pathname;

export function signalingContract(name: string, make: MakeSignaling): void {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function rig(scenarioName: string, o: { ringTimeoutSeconds?: number; mediaTimeoutSeconds?: number; media?: boolean; sippArgs?: string[] } = {}) {
    // SIPp is stopped last, after the signaling has hung up what it still holds.
    let sipp: Sipp | undefined;
    cleanups.push(async () => { await sipp?.stop(); });
    const plane = o.media ? await MediaPlane.start('127.0.0.1') : undefined;
    if (plane) cleanups.push(() => plane.stop());
    // What the signaling tells the plane, in order: the far end's SDP as each connect has it.
    const told: Negotiated[] = [];
    if (plane) {
      const connect = plane.connect.bind(plane);
      plane.connect = async (k, remote) => {
        told.push(remote);
        return connect(k, remote);
      };
    }
    const events: DialogEvent[] = [];
    const at: number[] = [];
    const sig = await make({
      listen: '127.0.0.1:0', ringTimeoutSeconds: o.ringTimeoutSeconds ?? 10, mediaTimeoutSeconds: o.mediaTimeoutSeconds, media: plane,
      onEvent: (_key, e) => { events.push(e); at.push(Date.now()); },
    });
    cleanups.push(() => sig.close());
    // SIPp on the host the signaling sends from (its address: drachtio-server's
    // SIP address for the drachtio adapter), not a fixed 127.0.0.1.
    const host = sig.address.slice(0, sig.address.lastIndexOf(':'));
    sipp = await startSipp({ scenario: scenario(scenarioName), listen: `${host}:${await freeUdpPort(host)}`, extraArgs: o.sippArgs });
    const key = `call_${Math.random().toString(36).slice(2)}`;
    await sig.place({ key, target: sipp.uri('+14155550142'), from: '+15550001111' });
    const waitFor = (n: number, ms = 10_000) => until(`${n} dialog events`, async () => events.length >= n && events, { timeoutMs: ms, detail: () => JSON.stringify(events) });
    return { sipp, sig, key, events, at, waitFor, plane, told };
  }

  /** A free even UDP port on loopback, for SIPp's media (-mp): RTP on it, RTCP on the next. */
  async function mediaPort(): Promise<number> {
    const p = await freeUdpPort('127.0.0.1');
    return p % 2 ? (p < 65000 ? p + 1 : p - 1) : p;
  }

  /** Our answer (a 2xx) to SIPp's request of this CSeq (`1 INVITE`). */
  const answerTo = (msgs: WireMessage[], cseq: string) => msgs.find((m) => m.by === 'gateway' && /^SIP\/2\.0 2\d\d /.test(m.startLine) && m.header('CSeq') === cseq);
  /** A line of an SDP body starting with `prefix` (`m=`, `o=`). */
  const sdpLine = (m: WireMessage | undefined, prefix: string) => m?.body.split(/\r?\n/).find((l) => l.startsWith(prefix));
  /** The flow without 100 Trying, which a stack may or may not send to a re-INVITE. */
  const calls = (msgs: WireMessage[]) => flow(msgs).filter((l) => l !== '> 100 Trying' && l !== '< 100 Trying');

  describe(`SipSignaling contract: ${name}`, () => {
    it('answered, then hung up by us: ringing, answered; our BYE ends the dialog', async () => {
      const { sipp, sig, key, events, waitFor } = await rig('answer-wait-bye');
      await waitFor(2);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered']);
      expect(sig.active()).toContain(key);
      await sig.hangup(key);
      await sig.hangup(key); // idempotent
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      expect(flow(wire(r.trace)).slice(-2)).toEqual(['> BYE', '< 200 OK']);
      expect(sig.active()).not.toContain(key);
      expect(events).toHaveLength(2);
    });

    it('the callee hangs up: remote_hangup', async () => {
      const { sipp, waitFor } = await rig('answer-then-bye');
      const events = await waitFor(3);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
      expect((await finished(sipp)).code).toBe(0);
    });

    it('486: rejected with its status', async () => {
      const { waitFor } = await rig('busy');
      expect(await waitFor(1)).toEqual([{ type: 'rejected', status: 486, reason: expect.any(String) }]);
    });

    it('hung up while ringing: CANCEL, and the 487 reported as rejected', async () => {
      const { sipp, sig, key, waitFor } = await rig('ring-until-cancel');
      await waitFor(1);
      await sig.hangup(key);
      const events = await waitFor(2);
      expect(events[1]).toMatchObject({ type: 'rejected', status: 487 });
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      expect(flow(wire(r.trace))).toContain('> CANCEL');
    });

    for (const [when, ms] of [['as soon as the INVITE is out', 0], ['after its 100 Trying', 300]] as const) {
      it(`hung up ${when}, before it rings: the CANCEL goes once a 1xx came (RFC 3261 9.1), the 487 reported as rejected, nothing else`, async () => {
        const { sipp, sig, key, waitFor } = await rig('trying-until-cancel');
        if (ms) await new Promise((r) => setTimeout(r, ms));
        await sig.hangup(key);
        expect(await waitFor(1)).toEqual([{ type: 'rejected', status: 487, reason: 'Request Terminated' }]);
        const r = await finished(sipp);
        expect(r.code, r.errors).toBe(0);
        expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 100 Trying', '> CANCEL', '< 200 OK', '< 487 Request Terminated', '> ACK']);
        expect(sig.active()).not.toContain(key);
      });
    }

    it('ringing past the ring timeout: CANCEL, ring_timeout', async () => {
      const { sipp, waitFor } = await rig('ring-until-cancel', { ringTimeoutSeconds: 1 });
      const events = await waitFor(2);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'ring_timeout']);
      expect((await finished(sipp)).code).toBe(0);
    });

    it('with a media plane: the offer names our RTP port, and audio played on the answered dialog comes back from an echoing callee', async () => {
      let mp = await freeUdpPort('127.0.0.1');
      if (mp % 2) mp = mp < 65000 ? mp + 1 : mp - 1;
      const { sipp, sig, key, waitFor, plane } = await rig('answer-wait-bye', { media: true, sippArgs: ['-rtp_echo', '-mp', String(mp)] });
      await waitFor(2);
      expect(sig.hasMedia(key)).toBe(true);
      const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
      const done = new Promise<void>((ok) => plane!.on('finished', (k) => { if (k === key) ok(); }));
      await sig.play(key, 'tone', tone);
      await done;
      await until('the echo', async () => ((await plane!.stats(key))?.received ?? 0) >= 45, 3_000);
      await sig.hangup(key);
      const r = await finished(sipp);
      const invite = wire(r.trace).find((m) => m.startLine.startsWith('INVITE'))!;
      expect(Number(/^m=audio (\d+) /m.exec(invite.body)![1])).not.toBe(9);
    });

    it('the far end holds (re-INVITE a=sendonly), refreshes the session (UPDATE) and resumes: each answered 200, nothing sent while held, the call stays up', async () => {
      const { sipp, sig, key, events, waitFor, plane, told } = await rig('hold-resume-refresh', { media: true, sippArgs: ['-mp', String(await mediaPort())] });
      await waitFor(2);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered']);
      const tone = (ms: number) => Int16Array.from({ length: ms * 8 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
      const played = (utterance: string) => new Promise<void>((ok) => plane!.on('finished', (k, u) => { if (k === key && u === utterance) ok(); }));
      const sent = async () => (await plane!.stats(key))!.sent;

      // Held: audio played meanwhile is played out in time, and not sent.
      await until('the hold', async () => told.some((n) => n.direction === 'sendonly'), 3_000);
      expect(sig.active()).toContain(key);
      const before = await sent();
      const heldDone = played('held');
      await sig.play(key, 'held', tone(300));
      await heldDone;
      expect(await sent()).toBe(before);

      // Resumed: audio goes out again.
      await until('the resume', async () => told.filter((n) => n.direction === 'sendrecv').length >= 2, 4_000);
      const resumedDone = played('resumed');
      await sig.play(key, 'resumed', tone(200));
      await resumedDone;
      expect(await sent()).toBeGreaterThanOrEqual(before + 9);

      expect(sig.active()).toContain(key);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered']);
      await sig.hangup(key);
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      const msgs = wire(r.trace);
      expect(calls(msgs)).toEqual([
        '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
        '< INVITE', '> 200 OK', '< ACK',
        '< UPDATE', '> 200 OK',
        '< INVITE', '> 200 OK', '< ACK',
        '> BYE', '< 200 OK',
      ]);
      const offer = msgs[0]!;
      const hold = answerTo(msgs, '1 INVITE');
      const refresh = answerTo(msgs, '2 UPDATE');
      const resume = answerTo(msgs, '3 INVITE');
      for (const ok of [hold, refresh, resume]) {
        expect(ok!.header('Supported')).toMatch(/\btimer\b/);
        expect(ok!.header('Allow')).toMatch(/\bUPDATE\b/);
      }
      // RFC 4028: the session timer of the request echoed, the requester refreshes.
      for (const ok of [hold, refresh]) {
        expect(ok!.header('Session-Expires')).toBe('1800;refresher=uac');
        expect(ok!.header('Require')).toBe('timer');
      }
      // Hold (a=sendonly): we answer a=recvonly, on our own RTP port; the refresh has no SDP; resume: a=sendrecv.
      expect(hold!.header('Content-Type')).toBe('application/sdp');
      expect(hold!.body).toMatch(/^a=recvonly\r?$/m);
      expect(sdpLine(hold, 'm=')!.split(' ')[1]).toBe(sdpLine(offer, 'm=')!.split(' ')[1]);
      expect(refresh!.body.trim()).toBe('');
      expect(resume!.body).toMatch(/^a=sendrecv\r?$/m);
      // One SDP session, its version one up each time (RFC 3264 8).
      const origins = [offer, hold, resume].map((m) => sdpLine(m, 'o=')!.split(' '));
      expect(new Set(origins.map((o) => o[1])).size).toBe(1);
      const versions = origins.map((o) => Number(o[2]));
      expect(versions[1]).toBeGreaterThan(versions[0]!);
      expect(versions[2]).toBeGreaterThan(versions[1]!);
      // The plane: the answer, the hold, the resume, all to the one destination.
      expect(told.map((n) => n.direction)).toEqual(['sendrecv', 'sendonly', 'sendrecv']);
      expect(new Set(told.map((n) => `${n.address}:${n.port}`)).size).toBe(1);
      expect(events).toHaveLength(2);
    });

    it('mid-call: an offer without our codecs 488, a session interval under Min-SE 422, an extension we lack 420, each leaving the call up; a re-INVITE without SDP gets our offer, its ACK the answer', async () => {
      const { sipp, waitFor, told } = await rig('reinvite-refusals', { media: true, sippArgs: ['-mp', String(await mediaPort())] });
      const events = await waitFor(3);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered', 'remote_hangup']);
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      const msgs = wire(r.trace);
      expect(calls(msgs)).toEqual([
        '> INVITE', '< 180 Ringing', '< 200 OK', '> ACK',
        '< INVITE', '> 488 Not Acceptable Here', '< ACK',
        '< UPDATE', '> 422 Session Interval Too Small',
        '< INVITE', '> 420 Bad Extension', '< ACK',
        '< INVITE', '> 200 OK', '< ACK',
        '< BYE', '> 200 OK',
      ]);
      const status = (cseq: string) => msgs.find((m) => m.by === 'gateway' && m.header('CSeq') === cseq && !m.startLine.includes(' 100 '));
      expect(status('2 UPDATE')!.header('Min-SE')).toBe('90');
      expect(status('3 INVITE')!.header('Unsupported')).toBe('foo');
      // Asked for an offer: both codecs on our RTP port, sendrecv; a newer version of our one session.
      const offer = answerTo(msgs, '4 INVITE')!;
      expect(offer.header('Content-Type')).toBe('application/sdp');
      expect(sdpLine(offer, 'm=')).toBe(`m=audio ${sdpLine(msgs[0], 'm=')!.split(' ')[1]} RTP/AVP 0 8 101`);
      expect(offer.body).toMatch(/^a=sendrecv\r?$/m);
      const [first, later] = [msgs[0], offer].map((m) => sdpLine(m, 'o=')!.split(' '));
      expect(later![1]).toBe(first![1]);
      expect(Number(later![2])).toBeGreaterThan(Number(first![2]));
      // The plane: the 2xx's answer, then the answer in the ACK; nothing from the refused offers.
      expect(told.map((n) => n.direction)).toEqual(['sendrecv', 'sendrecv']);
    });

    it('a 200 OK without SDP: ACK, then BYE at once; no_media with its status and reason, never answered', async () => {
      const { sipp, sig, key, waitFor } = await rig('answer-no-sdp');
      const events = await waitFor(2);
      expect(events).toEqual([{ type: 'ringing', status: 180 }, { type: 'no_media', status: 200, reason: 'OK' }]);
      expect(sig.hasMedia(key)).toBe(false);
      expect(sig.active()).not.toContain(key);
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      expect(flow(wire(r.trace))).toEqual(['> INVITE', '< 180 Ringing', '< 200 OK', '> ACK', '> BYE', '< 200 OK']);
    });

    for (const [name, what] of [['answer-g729', 'G.729'], ['answer-opus', 'Opus']] as const) {
      it(`a 200 OK offering only ${what} (no codec in common), with a media plane: ACK, BYE, no_media`, async () => {
        const { sipp, sig, key, waitFor } = await rig(name, { media: true });
        const events = await waitFor(2);
        expect(events).toEqual([{ type: 'ringing', status: 180 }, { type: 'no_media', status: 200, reason: 'OK' }]);
        expect(sig.hasMedia(key)).toBe(false);
        const r = await finished(sipp);
        expect(r.code, r.errors).toBe(0);
        expect(flow(wire(r.trace)).slice(-3)).toEqual(['> ACK', '> BYE', '< 200 OK']);
      });
    }

    it('answered, then no RTP and no RTCP from the far end for mediaTimeoutSeconds: BYE, media_timeout', async () => {
      const { sipp, sig, key, events, at, waitFor } = await rig('answer-wait-bye', { media: true, mediaTimeoutSeconds: 2, sippArgs: ['-mp', String(await mediaPort())] });
      await waitFor(3, 8_000);
      expect(events.map((e) => e.type)).toEqual(['ringing', 'answered', 'media_timeout']);
      // Counted from the answer, not from the INVITE.
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(1_900);
      expect(at[2]! - at[1]!).toBeLessThan(4_000);
      expect(sig.active()).not.toContain(key);
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      expect(flow(wire(r.trace)).slice(-2)).toEqual(['> BYE', '< 200 OK']);
    });

    /** The signaling, and SIPp as the caller sending to its SIP address. */
    async function caller(scenarioName: string) {
      const events: DialogEvent[] = [];
      const sig = await make({ listen: '127.0.0.1:0', ringTimeoutSeconds: 10, onEvent: (_k, e) => events.push(e) });
      cleanups.push(() => sig.close());
      const host = sig.address.slice(0, sig.address.lastIndexOf(':'));
      const sipp = await startSipp({ scenario: scenario(scenarioName), listen: `${host}:${await freeUdpPort(host)}`, extraArgs: [sig.address] });
      cleanups.push(() => sipp.stop());
      return { sig, sipp, events };
    }

    it('an INVITE from outside our dialogs: 403, and nothing reported', async () => {
      const { sig, sipp, events } = await caller('refuse-call');
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      expect(calls(wire(r.trace))).toEqual(['< INVITE', '> 403 Forbidden', '< ACK']);
      expect(events).toEqual([]);
      expect(sig.active()).toEqual([]);
    });

    it('OPTIONS (a carrier\'s keep-alive): 200 OK naming what we take', async () => {
      const { sipp } = await caller('options-ping');
      const r = await finished(sipp);
      expect(r.code, r.errors).toBe(0);
      const msgs = wire(r.trace);
      expect(flow(msgs)).toEqual(['< OPTIONS', '> 200 OK']);
      expect(msgs[1]!.header('Allow')).toMatch(/^INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE$/);
      expect(msgs[1]!.header('Supported')).toMatch(/\btimer\b/);
      expect(msgs[1]!.header('Accept')).toBe('application/sdp');
    });
  });
}
