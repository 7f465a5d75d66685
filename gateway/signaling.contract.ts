// The SipSignaling contract (signaling.ts), one suite for every
// implementation: the embedded stack (sip-stack.contract.test.ts) and the
// drachtio-server adapter (drachtio.contract.test.ts). Each test places a
// call to SIPp playing one scenario (gateway/sipp/*.xml) and checks what the
// interface promises: the dialog events in order, CANCEL and BYE on hangup,
// the ring timeout, media on an answered dialog.

import { afterEach, describe, expect, it } from 'vitest';
import type { DialogEvent, SignalingOptions, SipSignaling } from './signaling.ts';
import { MediaPlane } from './media/plane.ts';
import { finished, flow, startSipp, wire, type Sipp } from '../test/helpers/sipp.ts';
import { until } from '../test/helpers/wait.ts';
import { freeUdpPort } from './sip-stack.ts';

export type MakeSignaling = (o: SignalingOptions) => Promise<SipSignaling>;

const scenario = (name: string) => new URL(`./sipp/${name}.xml`, import.meta.url).pathname;

export function signalingContract(name: string, make: MakeSignaling): void {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function rig(scenarioName: string, o: { ringTimeoutSeconds?: number; media?: boolean; sippArgs?: string[] } = {}) {
    // SIPp is stopped last, after the signaling has hung up what it still holds.
    let sipp: Sipp | undefined;
    cleanups.push(async () => { await sipp?.stop(); });
    const plane = o.media ? await MediaPlane.start('127.0.0.1') : undefined;
    if (plane) cleanups.push(() => plane.stop());
    const events: DialogEvent[] = [];
    const sig = await make({
      listen: '127.0.0.1:0', ringTimeoutSeconds: o.ringTimeoutSeconds ?? 10, media: plane,
      onEvent: (_key, e) => events.push(e),
    });
    cleanups.push(() => sig.close());
    // SIPp on the host the signaling sends from (its address: drachtio-server's
    // SIP address for the drachtio adapter), not a fixed 127.0.0.1.
    const host = sig.address.slice(0, sig.address.lastIndexOf(':'));
    sipp = await startSipp({ scenario: scenario(scenarioName), listen: `${host}:${await freeUdpPort(host)}`, extraArgs: o.sippArgs });
    const key = `call_${Math.random().toString(36).slice(2)}`;
    await sig.place({ key, target: sipp.uri('+14155550142'), from: '+15550001111' });
    const waitFor = (n: number, ms = 10_000) => until(`${n} dialog events`, async () => events.length >= n && events, { timeoutMs: ms, detail: () => JSON.stringify(events) });
    return { sipp, sig, key, events, waitFor, plane };
  }

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
  });
}
