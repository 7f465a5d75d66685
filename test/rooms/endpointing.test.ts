import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { readSse, type Sse } from '../helpers/sse.ts';
import { startDeepgramLive, type DeepgramLiveFake } from '../helpers/deepgram-live.ts';
import { heardWords, lastVoicedEnd } from '../helpers/ws-fake.ts';
import { PUBLIC_LIMITS } from '../../src/public-limits.ts';
import { DeepgramRecognizer } from '../../src/engines/deepgram/recognizer.ts';
import { RecognizerChain } from '../../src/engines/speech/recognizers.ts';

// A streaming engine's endpointing settles a phrase before our own voice
// activity would (src/engines/speech/heard-phrase.ts): Deepgram's live API
// (the local server of test/helpers/deepgram-live.ts, speaking its documented
// protocol) says speech_final after its endpointing's silence, the room's socket ends
// a phrase after 700 ms. The person pauses 500 ms: the others' pages hold the
// phrase while the socket still counts the pause as part of it, and what the
// person says next is a phrase of its own, with a segment id of its own,
// nothing said twice.

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const pcmOf = (name: string) => readFileSync(`${DATA}/${name}.wav`).subarray(44);
const samples = (b: Buffer) => new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
/** A sentence up to the end of its last voiced 250 ms window (the recording's own trailing silence cut). */
const WHOLE = pcmOf('sense_and_sensibility_01_austen_64kb-0870');
const ONE = WHOLE.subarray(0, lastVoicedEnd(samples(WHOLE), 16_000) * 2);
const TWO = pcmOf('sense_and_sensibility_01_austen_64kb-0880');
/** 500 ms of silence at 16 kHz: past Deepgram's endpointing, short of the socket's (700 ms). */
const PAUSE = Buffer.alloc(16_000);

let t: TestApp;
let dg: DeepgramLiveFake;
beforeAll(async () => {
  dg = await startDeepgramLive('dg-key');
  dg.latencyMs = 20;
  // Deepgram's own default endpointing (10 ms: its first silent window here), so that a pause of 500 ms is past it whatever
  // the windows' alignment, and short of the socket's 700 ms.
  t = await startTestApp({
    recognizer: new RecognizerChain([new DeepgramRecognizer({ apiKey: 'dg-key', url: dg.url, endpointingMs: 10 })]),
    config: { publicLimits: { ...PUBLIC_LIMITS, joinsPerClientMinute: 1000 } },
  });
});
afterAll(async () => {
  t?.app.server.closeAllConnections();
  await t?.close();
  await dg?.close();
});

describe('a streaming engine\'s endpointing', () => {
  it('publishes a phrase the engine settled while the speaker only paused; what follows is a phrase of its own', async () => {
    const key = (await t.key({ rpm: 100_000 })).secret;
    const res = await t.request('POST', '/v1/rooms', { key, headers: { 'idempotency-key': crypto.randomUUID() }, body: { langs: ['en'], visibility: 'public' } });
    const roomId = (await res.json()).id as string;
    const join = async (name: string) => (await (await fetch(`${t.url}/r/${roomId}/participants`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, speak: 'en', hear: 'en' }),
    })).json()) as { id: string; secret: string };
    const ana = await join('Ana');
    const bea = await join('Bea');
    const events: Sse[] = [];
    const ctl = new AbortController();
    void fetch(`${t.url}/r/${roomId}/stream?participant=${bea.id}&secret=${bea.secret}`, { signal: ctl.signal })
      .then((r) => readSse(r.body!, (e) => events.push(e))).catch(() => {});
    const phrases = () => events.filter((e) => e.event === 'phrase' && e.data.speaker === 'Ana').map((e) => e.data);

    const ws = new WebSocket(`${t.url.replace(/^http/, 'ws')}/r/${roomId}/audio?participant=${ana.id}&secret=${ana.secret}`);
    const messages: any[] = [];
    ws.addEventListener('message', (e) => messages.push(JSON.parse(String(e.data))));
    await until('ready', async () => messages.some((m) => m.type === 'ready'), 5000);
    const send = (pcm: Buffer) => { for (let i = 0; i < pcm.length; i += 3200) ws.send(pcm.subarray(i, i + 3200)); };

    // A sentence and a 500 ms pause, and nothing more for now.
    send(ONE);
    send(PAUSE);
    const first = await until('the first phrase on Bea\'s page', async () => phrases()[0] ?? null, { timeoutMs: 15_000, intervalMs: 20 });
    // What Deepgram said it heard (its rule: a word per voiced 250 ms window of the audio sent it, from the phrase's preroll),
    // while the socket's phrase was still under way (500 ms of silence: it ends one at 700).
    const settled = dg.sessions[0]!.sent.filter((m) => m.type === 'Results' && m.is_final) as Array<{ speech_final: boolean; channel: { alternatives: Array<{ transcript: string }> } }>;
    const upToEnd = settled.slice(0, settled.findIndex((m) => m.speech_final) + 1).map((m) => m.channel.alternatives[0]!.transcript).filter(Boolean);
    expect(first.original).toBe(upToEnd.join(' '));
    const said = first.original.split(' ') as string[];
    // Every voiced window of the sentence (its own count, give or take the preroll's).
    expect(Math.abs(said.length - heardWords(samples(ONE), 16_000).length)).toBeLessThanOrEqual(1);
    expect(first.segment_id).toMatch(/^seg_/);
    expect(messages.filter((m) => m.type === 'final')).toEqual([expect.objectContaining({ text: first.original, segment_id: first.segment_id })]);

    // The speaker goes on, then is silent for good: the rest is a phrase of its own, said once.
    send(TWO);
    send(Buffer.alloc(32_000));
    await until('the second phrase', async () => phrases().length >= 2, { timeoutMs: 15_000, intervalMs: 20 });
    await new Promise((r) => setTimeout(r, 1500));
    const all = phrases();
    expect(all).toHaveLength(2);
    expect(all[1]!.segment_id).not.toBe(first.segment_id);
    expect(all[1]!.original.split(' ').length).toBeGreaterThan(2);
    // One stream for both (the socket's phrase went on through the pause), the second phrase what it settled after the first.
    expect(dg.sessions).toHaveLength(1);
    expect(all[1]!.original.split(' ').filter((w: string) => said.includes(w))).toEqual([]);
    ws.close();
    ctl.abort();
  });
});
