import { describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { callSuite } from '../helpers/call-suite.ts';
import { finished } from '../helpers/sipp.ts';
import { until } from '../helpers/wait.ts';
import { librivox, type Recording } from '../helpers/vad-audio.ts';
import { rtpCallee } from '../helpers/rtp-callee.ts';

// Barge-in on a real call: SIPp answers (gateway/sipp/answer-media-at-wait-bye.xml)
// with SDP whose audio is this test's UDP socket (in a thread of its own,
// test/helpers/rtp-callee.ts), which plays the callee: it receives what the
// gateway sends (each packet timed on arrival) and
// talks real speech (LibriVox, PCMU, paced at 20 ms) while the agent speaks
// a long say. Measured on the wire: from the send of the callee's first
// frame of speech to the arrival of the agent's last packet.

vi.setConfig({ testTimeout: 90_000 });

const suite = callSuite();

const LONG = 'I am calling about the order you placed last week. It has been packed and will leave our warehouse tomorrow morning, ' +
  'and the courier will bring it to your door on Tuesday between nine and noon. If that time does not suit you, ' +
  'you can choose another day on our website or tell me now and I will change it for you.';

/** The recording from 100 ms before its speech, `ms` of speech (all of it when omitted). */
function cut(r: Recording, ms?: number): { pcm: Int16Array; start: number } {
  const from = Math.max(0, r.start - 800);
  return { pcm: r.pcm.slice(from, ms === undefined ? r.pcm.length : r.start + ms * 8), start: r.start - from };
}

async function events(t: TestApp, sessionId: string): Promise<any[]> {
  return (await (await t.request('GET', `/v1/sessions/${sessionId}/events?cursor=0`, { key: suite.key })).json()).events;
}

/** A call answered by SIPp whose media is `c`; the agent's say `text` starts on the line. */
async function callWithSay(c: Awaited<ReturnType<typeof rtpCallee>>, body: Record<string, unknown>) {
  // The call lasts until the callee's phrase is read (PocketSphinx, at low priority: over 30 s on a loaded machine): SIPp's guard is longer.
  const sipp = await suite.sipp('answer-media-at-wait-bye', ['-key', 'peer_rtp', String(c.port), '-timeout', '90s', '-timeout_error']);
  const t = await suite.app(sipp.address, { recognize: [{ name: 'pocketsphinx' as const }], mediaTimeoutSeconds: 90 });
  const plane = t.services.gateway!.media;
  const call = await suite.place(t, { remote_lang: 'en', agent_lang: 'en' });
  await until('answered', async () => (await (await t.request('GET', `/v1/calls/${call.id}`, { key: suite.key })).json()).status === 'answered', { timeoutMs: 15_000, intervalMs: 200 });
  const res = await t.request('POST', `/v1/sessions/${call.session_id}/say`, { key: suite.key, body: { text: LONG, lang: 'en', ...body } });
  const said = await res.json();
  expect(res.status, JSON.stringify(said)).toBe(202);
  const ends: Record<string, number> = {};
  plane.on('finished', (k, u, ms) => { if (k === call.id) ends[u] = ms; });
  plane.on('interrupted', (k, u, ms) => { if (k === call.id) ends[`${u}!`] = ms; });
  await new Promise<void>((ok) => plane.on('started', (k, u) => { if (k === call.id && u === said.utterance_id) ok(); }));
  return { t, sipp, call, utterance: said.utterance_id as string, ends };
}

/** The say was spoken to its end, never interrupted: say.started then say.finished on the session; the call hung up. */
async function spokenWhole(c: Awaited<ReturnType<typeof rtpCallee>>, { t, sipp, call, utterance, ends }: Awaited<ReturnType<typeof callWithSay>>) {
  await until('finished', async () => utterance in ends || `${utterance}!` in ends, { timeoutMs: 20_000, intervalMs: 50 });
  expect(ends[`${utterance}!`]).toBeUndefined();
  const ev = await until('say.finished', async () => {
    const all = await events(t, call.session_id);
    return all.some((e) => e.type === 'say.finished') ? all : null;
  }, { timeoutMs: 10_000, intervalMs: 250 });
  expect(ev.filter((e) => e.meta?.utterance_id === utterance).map((e) => e.type)).toEqual(['say.started', 'say.finished']);
  await t.request('POST', `/v1/calls/${call.id}/hangup`, { key: suite.key });
  expect((await finished(sipp)).code).toBe(0);
  await c.close();
}

const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)]!;

describe('barge-in on a call', () => {
  it('the callee talking over a say stops our RTP while they talk (the delay printed); say.interrupted, speech.started/stopped and what they said reach the session', async () => {
    const recs = librivox();
    const latencies: number[] = [];
    for (const [run, r] of [recs[0]!, recs[3]!, recs[4]!].entries()) {
      const c = await rtpCallee();
      const { t, sipp, call, utterance, ends } = await callWithSay(c, {});
      await new Promise((ok) => setTimeout(ok, 1200 + run * 170));
      const s = cut(r);
      c.say(s.pcm, s.start);
      await until('interrupted', async () => `${utterance}!` in ends, { timeoutMs: 5_000, intervalMs: 20 });
      await new Promise((ok) => setTimeout(ok, 300));
      const got = await c.report();
      const lat = got.got.at(-1)! - got.onsetAt!;
      latencies.push(lat);
      // Our speech stopped while the callee was still talking, not at the say's end. How fast (the 250 ms
      // target, p99) is printed below and is the benchmark's to hold, never a timed assertion here.
      expect(lat).toBeLessThan((s.pcm.length - s.start) / 8);
      const ev = await until('the session told', async () => {
        const all = await events(t, call.session_id);
        const heard = all.find((e) => e.type === 'segment.final' && e.speaker === 'Callee');
        return heard && all.some((e) => e.type === 'speech.stopped') ? all : null;
      }, { timeoutMs: 30_000, intervalMs: 250 });
      const mine = ev.filter((e) => e.meta?.utterance_id === utterance).map((e) => [e.type, e.meta.spoken_ms]);
      expect(mine).toEqual([['say.started', 0], ['say.interrupted', ends[`${utterance}!`]]]);
      expect(ends[`${utterance}!`]).toBeGreaterThan(1000);
      const types = ev.map((e) => e.type);
      expect(types.indexOf('speech.started')).toBeGreaterThan(types.indexOf('say.started'));
      expect(types.indexOf('speech.started')).toBeLessThan(types.indexOf('speech.stopped'));
      const heard = ev.find((e) => e.type === 'segment.final' && e.speaker === 'Callee');
      expect(heard.untrusted_content.text.length).toBeGreaterThan(0);
      const hung = await t.request('POST', `/v1/calls/${call.id}/hangup`, { key: suite.key });
      const done = await finished(sipp);
      expect(done.code, `${hung.status} ${await hung.text()} ${done.errors.slice(0, 800)}`).toBe(0);
      await c.close();
    }
    console.log(`barge-in on a call, stop latency on the wire (ms): ${latencies.map((l) => l.toFixed(0)).join(' ')}; p50 ${pct(latencies, 0.5).toFixed(0)}, p99 ${pct(latencies, 0.99).toFixed(0)}`);
  });

  it('a 200 ms backchannel does not interrupt: the say resumes and finishes, no say.interrupted', async () => {
    const recs = librivox();
    const c = await rtpCallee();
    const { t, sipp, call, utterance, ends } = await callWithSay(c, { text: 'It has been packed and will leave our warehouse tomorrow morning, and reach you on Tuesday.' });
    await new Promise((ok) => setTimeout(ok, 1000));
    const s = cut(recs[0]!, 200);
    c.say(s.pcm, s.start);
    await spokenWhole(c, { t, sipp, call, utterance, ends });
  });

  it('interruptible: false is spoken whole over the callee', async () => {
    const recs = librivox();
    const c = await rtpCallee();
    const { t, sipp, call, utterance, ends } = await callWithSay(c, { text: 'It has been packed and will leave our warehouse tomorrow morning, and reach you on Tuesday.', interruptible: false });
    await new Promise((ok) => setTimeout(ok, 800));
    const s = cut(recs[0]!, 2000);
    c.say(s.pcm, s.start);
    await spokenWhole(c, { t, sipp, call, utterance, ends });
  });
});
