import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import dgram from 'node:dgram';
import { once } from 'node:events';
import { MediaPlane } from './plane.ts';
import { encodeG711, FRAME_SAMPLES, parseRtp, RtpSender } from './rtp.ts';
import type { Negotiated } from './sdp.ts';
import { librivox, type Recording } from '../../test/helpers/vad-audio.ts';
import { until } from '../../test/helpers/wait.ts';

// Barge-in on the wire: a UDP peer on loopback talks real speech (LibriVox,
// 8 kHz PCMU, paced at 20 ms) over a say the plane speaks, and what the peer
// receives from the plane is timed. The stop latency is from the send of the
// peer's first frame of speech (where the recording's speech starts) to the
// arrival of the last packet of the agent's speech at the peer.

let plane: MediaPlane;
let recs: Recording[];
beforeAll(async () => {
  plane = await MediaPlane.start('127.0.0.1');
  recs = librivox();
});
afterAll(async () => { await plane?.stop(); });

const remote = (port: number): Negotiated => ({
  address: '127.0.0.1', port, codec: 'PCMU', payloadType: 0, dtmfPayloadType: 101, ptimeMs: 20, direction: 'sendrecv',
});

/** The agent's long say: two recordings one after the other (about 8 s of speech). */
const agentSpeech = () => {
  const a = recs[1]!.pcm;
  const b = recs[2]!.pcm;
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

/** A peer that receives the plane's packets (their arrival times) and talks: `frames` of 8 kHz PCM, one per 20 ms. */
async function peer(o: { echo?: boolean } = {}) {
  const sock = dgram.createSocket('udp4');
  sock.bind(0, '127.0.0.1');
  await once(sock, 'listening');
  const got: number[] = [];
  const sender = new RtpSender(0);
  let planePort = 0;
  sock.on('message', (b) => {
    const p = parseRtp(b);
    if (!p) return;
    got.push(performance.now());
    // A far end that sends our audio back as it came (a loopback).
    if (o.echo) sock.send(sender.packet(new Uint8Array(p.payload)), planePort, '127.0.0.1');
  });
  /** Sends pcm paced at 20 ms; answers when each frame left (performance.now). */
  const talk = async (pcm: Int16Array): Promise<number[]> => {
    const bytes = encodeG711('PCMU', pcm);
    const sentAt: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i + FRAME_SAMPLES <= bytes.length; i += FRAME_SAMPLES) {
      const due = t0 + (i / FRAME_SAMPLES) * 20;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      sentAt.push(performance.now());
      sock.send(sender.packet(bytes.subarray(i, i + FRAME_SAMPLES)), planePort, '127.0.0.1');
    }
    return sentAt;
  };
  return {
    port: sock.address().port, got, talk,
    target: (p: number) => { planePort = p; },
    close: () => sock.close(),
  };
}

type Outcome = { finished: number | null; interrupted: number | null };

/** Listens for the end of `utterance` on `key`: its spoken ms as finished or interrupted. */
function outcome(key: string, utterance: string): { o: Outcome; done: Promise<void> } {
  const o: Outcome = { finished: null, interrupted: null };
  const done = new Promise<void>((ok) => {
    const fin = (k: string, u: string, ms: number) => { if (k === key && u === utterance) { o.finished = ms; off(); ok(); } };
    const int = (k: string, u: string, ms: number) => { if (k === key && u === utterance) { o.interrupted = ms; off(); ok(); } };
    const off = () => { plane.off('finished', fin); plane.off('interrupted', int); };
    plane.on('finished', fin);
    plane.on('interrupted', int);
  });
  return { o, done };
}

/** A call: a stream that hears, connected to a fresh peer, which sends silence first (the stream latches, the jitter buffer fills). */
async function call(key: string, o: { echo?: boolean } = {}) {
  const p = await peer(o);
  const { port } = await plane.open(key, { hear: true });
  p.target(port);
  await plane.connect(key, remote(p.port));
  return p;
}

/** The peer's speech: `leadMs` of silence, then the recording from `leadInMs` before its speech, `speechMs` of it. */
function speech(r: Recording, o: { leadMs: number; speechMs: number; tailMs?: number }): { pcm: Int16Array; onsetFrame: number } {
  const from = Math.max(0, r.start - 8 * 100);
  const cut = r.pcm.subarray(from, r.start + o.speechMs * 8);
  const pcm = new Int16Array(o.leadMs * 8 + cut.length + (o.tailMs ?? 600) * 8);
  pcm.set(cut, o.leadMs * 8);
  return { pcm, onsetFrame: Math.floor((o.leadMs * 8 + (r.start - from)) / FRAME_SAMPLES) };
}

const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)]!;

describe('barge-in', () => {
  it('the callee talking over an interruptible say stops it while they talk, on the wire (the delay printed), and it is reported interrupted with what was sent', async () => {
    const latencies: number[] = [];
    for (let run = 0; run < 6; run++) {
      const key = `barge-${run}`;
      const p = await call(key);
      const end = outcome(key, 'long');
      await plane.play(key, 'long', agentSpeech(), { interruptible: true });
      // The callee speaks 1.5 s of a recording (each run another one) starting some way into the say.
      const s = speech(recs[[0, 3, 4][run % 3]!]!, { leadMs: 900 + run * 130, speechMs: 1500 });
      const sentAt = await p.talk(s.pcm);
      await end.done;
      const onset = sentAt[s.onsetFrame]!;
      const last = p.got.at(-1)!;
      latencies.push(last - onset);
      expect(end.o.interrupted).not.toBeNull();
      // What was sent of it: the frames the peer received, at 20 ms each.
      expect(end.o.interrupted).toBe(p.got.length * 20);
      await plane.close(key);
      p.close();
    }
    console.log(`barge-in stop latency (ms from the peer's speech onset to our last packet): ${latencies.map((l) => l.toFixed(0)).join(' ')}; p50 ${pct(latencies, 0.5).toFixed(0)}, p99 ${pct(latencies, 0.99).toFixed(0)}`);
    // Our speech stopped while the callee was still talking (their 1.5 s), not at the say's end. How fast
    // (the 250 ms target, p99) is a figure printed here and measured by the benchmark, never a timed
    // assertion: a test run beside others on a loaded machine would fail on time alone.
    expect(Math.max(...latencies)).toBeLessThan(1500);
  }, 60_000);

  it('a short backchannel pauses the say and it resumes where it paused: finished whole, not interrupted', async () => {
    const p = await call('mhm');
    const agent = recs[1]!.pcm;
    const frames = Math.ceil(agent.length / FRAME_SAMPLES);
    const end = outcome('mhm', 'say');
    await plane.play('mhm', 'say', agent, { interruptible: true });
    await p.talk(speech(recs[0]!, { leadMs: 1000, speechMs: 200 }).pcm);
    await end.done;
    expect(end.o).toEqual({ finished: frames * 20, interrupted: null });
    await until('every frame at the peer', async () => p.got.length >= frames, 2_000);
    expect(p.got).toHaveLength(frames);
    // It did pause: a gap in the paced packets, then the rest.
    const gaps = p.got.slice(1).map((at, i) => at - p.got[i]!);
    expect(Math.max(...gaps)).toBeGreaterThan(100);
    await plane.close('mhm');
    p.close();
  }, 20_000);

  it('a say that may not be talked over (the disclosure) is spoken whole over the callee', async () => {
    const p = await call('disclosure');
    const agent = recs[1]!.pcm;
    const frames = Math.ceil(agent.length / FRAME_SAMPLES);
    const end = outcome('disclosure', 'd');
    await plane.play('disclosure', 'd', agent);
    await p.talk(speech(recs[0]!, { leadMs: 600, speechMs: 1500 }).pcm);
    await end.done;
    expect(end.o).toEqual({ finished: frames * 20, interrupted: null });
    // Never paused while the callee talked (1.5 s): no gap near that long. The pacing itself (20 ms)
    // is not timed here: on a loaded machine a packet now and then leaves up to a few frames late.
    for (let i = 1; i < p.got.length; i++) expect(p.got[i]! - p.got[i - 1]!).toBeLessThan(400);
    await plane.close('disclosure');
    p.close();
  }, 20_000);

  it('our own speech echoed back by the far end does not stop it', async () => {
    const p = await call('echo', { echo: true });
    const agent = recs[1]!.pcm;
    const frames = Math.ceil(agent.length / FRAME_SAMPLES);
    const end = outcome('echo', 'e');
    // The peer sends nothing of its own until it hears us: start the stream's latch with a little silence.
    void p.talk(new Int16Array(8 * 200));
    await plane.play('echo', 'e', agent, { interruptible: true });
    await end.done;
    expect(end.o).toEqual({ finished: frames * 20, interrupted: null });
    await plane.close('echo');
    p.close();
  }, 20_000);

  it('the rest of an interrupted utterance, played after, is dropped, and the queued say after it too', async () => {
    const p = await call('rest');
    const first = outcome('rest', 'one');
    const second = outcome('rest', 'two');
    await plane.play('rest', 'one', recs[1]!.pcm, { interruptible: true, more: true });
    await plane.play('rest', 'two', recs[2]!.pcm, { interruptible: true });
    await p.talk(speech(recs[0]!, { leadMs: 800, speechMs: 1200 }).pcm);
    await Promise.all([first.done, second.done]);
    expect(first.o.interrupted).toBeGreaterThan(0);
    expect(second.o).toEqual({ finished: null, interrupted: 0 });
    // The line's next part of 'one' comes after the drop: not spoken.
    await plane.play('rest', 'one', recs[3]!.pcm, { interruptible: true });
    const before = p.got.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(p.got.length).toBe(before);
    await plane.close('rest');
    p.close();
  }, 20_000);
});
