import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeepgramLiveStream } from '../../src/engines/deepgram/live.ts';
import { DeepgramRecognizer } from '../../src/engines/deepgram/recognizer.ts';
import { EngineError } from '../../src/engines/errors.ts';
import { concatPcm } from '../../src/engines/speech/streaming.ts';
import { startDeepgramLive, type DeepgramLiveFake } from '../helpers/deepgram-live.ts';
import { collect, sentence, silence, speak, type Seen } from '../helpers/stream-audio.ts';
import { heardWords } from '../helpers/ws-fake.ts';

// Deepgram's live stream (src/engines/deepgram/live.ts) against a local
// server speaking its documented protocol (test/helpers/deepgram-live.ts),
// fed real recorded speech at the pace of a phone line. The fake's words
// follow from the audio it received (ws-fake.ts heardWords): what is asserted
// is what the adapter makes of Deepgram's messages.

vi.setConfig({ testTimeout: 30_000 });

let dg: DeepgramLiveFake;
let speech: Int16Array;
beforeAll(async () => {
  dg = await startDeepgramLive('dg-key');
  speech = (await sentence('0880')).pcm;
});
afterAll(async () => { await dg.close(); });
beforeEach(() => {
  dg.sessions.length = 0;
  Object.assign(dg, { closeAfter: null, dropAfterMs: null, refuse: null, idleCloseMs: 10_000, maxPartMs: 3_000 });
});

const recognizer = (o: Partial<ConstructorParameters<typeof DeepgramRecognizer>[0]> = {}) => new DeepgramRecognizer({ apiKey: 'dg-key', url: dg.url, ...o });

/** The phrases' finals, each with the partials that came before it since the last final. */
function phrases(seen: Seen[]): Array<{ partials: Seen[]; final: Seen }> {
  const out: Array<{ partials: Seen[]; final: Seen }> = [];
  let partials: Seen[] = [];
  for (const h of seen) {
    if (h.kind === 'partial') partials.push(h);
    else { out.push({ partials, final: h }); partials = []; }
  }
  return out;
}

describe('Deepgram live stream', () => {
  it('asks for linear16 at the stream\'s rate in its language, with interim results, endpointing and utterance ends, with the key in Authorization', async () => {
    const r = recognizer();
    await speak(r.open({ lang: 'pt-BR', rate: 8_000, key: 'c1' }), speech.subarray(0, 8_000), { speed: 4 });
    const q = dg.sessions[0]!.query;
    expect(Object.fromEntries(q)).toMatchObject({ model: 'nova-2', language: 'pt-BR', encoding: 'linear16', sample_rate: '8000', channels: '1', interim_results: 'true', endpointing: '300', utterance_end_ms: '1000', vad_events: 'true' });
    expect(dg.sessions[0]!.authorization).toBe('Token dg-key');
    expect(dg.sessions[0]!.closeStream).toBe(true);
    expect(r.requests).toBe(1);
  });

  it('answers partials while the speaker speaks, each phrase\'s final after them, and every word of the audio once, in order', async () => {
    // Two phrases with a pause between them longer than endpointing; parts of a phrase settled every second.
    dg.maxPartMs = 1_000;
    const pcm = concatPcm([speech, silence(700), speech.subarray(0, 12_000)]);
    const seen = await speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'c2' }), pcm, { chunkMs: 20, speed: 1 });
    const ps = phrases(seen);
    expect(ps.length).toBeGreaterThanOrEqual(2);
    // The first partial came long before the end, and before the first final.
    const first = seen.find((h) => h.kind === 'partial')!;
    expect(first.afterEnd).toBe(false);
    expect(first.at).toBeLessThan(1_000);
    // Within a phrase each partial is the phrase so far: a beginning of its final, growing.
    for (const p of ps) {
      for (const [i, partial] of p.partials.entries()) {
        expect(p.final.text.startsWith(partial.text)).toBe(true);
        if (i > 0) expect(partial.text.length).toBeGreaterThanOrEqual(p.partials[i - 1]!.text.length);
      }
      expect(p.final.startMs!).toBeLessThan(p.final.endMs!);
    }
    // The first phrase was settled by its pause, before the end.
    expect(ps[0]!.final.afterEnd).toBe(false);
    // All the words, each once, in order: the audio went whole, at the rate said.
    expect(ps.map((p) => p.final.text).join(' ')).toBe(heardWords(dg.sessions[0]!.samples, 8_000, { all: true }).join(' '));
    expect(dg.sessions[0]!.samples).toEqual(pcm);
    expect(seen.at(-1)!.kind).toBe('final');
  });

  it('settles the last phrase after CloseStream (about 300 ms after the end), then ends', async () => {
    const t0 = performance.now();
    let endAt = 0;
    const stream = recognizer().open({ lang: 'en', rate: 8_000, key: 'c3' });
    const original = stream.end.bind(stream);
    stream.end = () => { endAt = performance.now() - t0; original(); };
    const seen = await speak(stream, speech, { speed: 4 });
    const last = seen.at(-1)!;
    expect(last.kind).toBe('final');
    expect(last.afterEnd).toBe(true);
    expect(last.at - endAt).toBeGreaterThanOrEqual(250);
    await vi.waitFor(() => expect(dg.sessions[0]!.closed).toBe(true));
  });

  it('says the language a multilingual model heard', async () => {
    const r = recognizer({ model: 'nova-3', langs: ['multi', 'en'] });
    const seen = await speak(r.open({ lang: 'multi', rate: 8_000, key: 'c4' }), speech, { speed: 4 });
    expect(dg.sessions[0]!.query.get('model')).toBe('nova-3');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((h) => h.lang === 'en')).toBe(true);
  });

  it('keeps a quiet connection open with KeepAlive messages', async () => {
    dg.idleCloseMs = 600;
    const stream = new DeepgramLiveStream({ url: dg.url, apiKey: 'dg-key', model: 'nova-2', language: 'en', lang: 'en', rate: 8_000, key: 'c5', keepaliveMs: 200 });
    const results = collect(stream);
    stream.write(speech.subarray(0, 8_000));
    await new Promise((r) => setTimeout(r, 1_500));
    stream.end();
    const seen = await results;
    expect(dg.sessions[0]!.keepalives).toBeGreaterThanOrEqual(3);
    expect(seen.filter((h) => h.kind === 'final').length).toBeGreaterThan(0);
  });

  it('fails with an EngineError when Deepgram closes with an error, drops the connection, or refuses it', async () => {
    dg.closeAfter = { ms: 1_500, code: 1011, reason: 'NET-0000: The service has not transmitted a Text frame to the client within the timeout window.' };
    const seen: Seen[] = [];
    const failed = await speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'c6' }), speech, { speed: 1, seen }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(EngineError);
    expect((failed as Error).message).toMatch(/1011.*NET-0000/);
    // What came before the failure was delivered first.
    expect(seen.length).toBeGreaterThan(0);

    dg.closeAfter = null;
    dg.dropAfterMs = 300;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'c7' }), speech, { speed: 1 })).rejects.toBeInstanceOf(EngineError);

    dg.dropAfterMs = null;
    dg.refuse = 429;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'c8' }), speech, { speed: 4 })).rejects.toBeInstanceOf(EngineError);
    await expect(speak(recognizer({ apiKey: 'wrong' }).open({ lang: 'en', rate: 8_000, key: 'c9' }), speech.subarray(0, 800))).rejects.toBeInstanceOf(EngineError);
  });

  it('stops at once when its signal aborts, closing the connection', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 500);
    const t0 = performance.now();
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'c10', signal: ctl.signal }), speech, { speed: 1, end: false })).rejects.toBeInstanceOf(EngineError);
    expect(performance.now() - t0).toBeLessThan(speech.length / 8);
    await vi.waitFor(() => expect(dg.sessions[0]!.closed).toBe(true));
  });

  it('refuses a language the model lacks without connecting', async () => {
    await expect(speak(recognizer().open({ lang: 'xh', rate: 8_000, key: 'c11' }), speech.subarray(0, 800))).rejects.toMatchObject({ permanent: true });
    expect(dg.sessions).toHaveLength(0);
  });
});
