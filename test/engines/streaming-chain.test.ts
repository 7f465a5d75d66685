import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeepgramRecognizer } from '../../src/engines/deepgram/recognizer.ts';
import { EngineError } from '../../src/engines/errors.ts';
import type { HeardUtterance, SpeechRecognizer } from '../../src/engines/speech/recognizer.ts';
import { RecognizerChain } from '../../src/engines/speech/recognizers.ts';
import { asStreaming, concatPcm, WholeUtteranceStream } from '../../src/engines/speech/streaming.ts';
import { VoskRecognizer } from '../../src/engines/vosk/recognizer.ts';
import { startDeepgramLive, type DeepgramLiveFake } from '../helpers/deepgram-live.ts';
import { sentence, silence, speak } from '../helpers/stream-audio.ts';
import { startVoskLive, type VoskLiveFake } from '../helpers/vosk-live.ts';
import { heardWords } from '../helpers/ws-fake.ts';

// Whole-utterance engines heard as streams (WholeUtteranceStream), and the
// recognizers' chain as one stream (speech/stream-chain.ts): the first engine
// that hears the language takes it; when its stream fails the next takes
// over with the audio no final settled yet, and the breaker counts it.

vi.setConfig({ testTimeout: 30_000 });

/** A whole-utterance engine that hears by the fakes' rule, and can be told to fail. */
class RuleRecognizer implements SpeechRecognizer {
  readonly name = 'rule';
  heard: HeardUtterance[] = [];
  failWith: EngineError | null = null;
  hears(lang: string): boolean {
    return lang === 'en';
  }
  async recognize(u: HeardUtterance): Promise<{ text: string | null }> {
    this.heard.push(u);
    await new Promise((r) => setTimeout(r, 50));
    if (this.failWith) throw this.failWith;
    return { text: heardWords(u.pcm, u.rate ?? 8_000, { all: true }).join(' ') || null };
  }
  async close(): Promise<void> {}
}

let speech: Int16Array;
let dg: DeepgramLiveFake;
let vosk: VoskLiveFake;
beforeAll(async () => {
  speech = (await sentence('0880')).pcm;
  dg = await startDeepgramLive('dg-key');
  vosk = await startVoskLive();
});
afterAll(async () => { await dg.close(); await vosk.close(); });
beforeEach(() => {
  dg.sessions.length = 0;
  vosk.sessions.length = 0;
  dg.dropAfterMs = null;
  vosk.latencyMs = 20;
});

describe('a whole-utterance engine as a stream', () => {
  it('keeps the audio until end(), reads it once, and answers one final', async () => {
    const r = new RuleRecognizer();
    const stream = asStreaming(r).open({ lang: 'en', rate: 8_000, key: 'w1' });
    expect(stream).toBeInstanceOf(WholeUtteranceStream);
    const seen = await speak(stream, speech, { chunkMs: 20, speed: 8 });
    expect(r.heard).toHaveLength(1);
    expect(r.heard[0]).toMatchObject({ key: 'w1', lang: 'en', rate: 8_000, audioMs: Math.round(speech.length / 8) });
    expect(r.heard[0]!.pcm).toEqual(speech);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'final', text: heardWords(speech, 8_000, { all: true }).join(' '), startMs: 0, endMs: Math.round(speech.length / 8), afterEnd: true });
  });

  it('leaves no listener on a signal that outlives its streams (a call\'s)', async () => {
    const call = new AbortController();
    const chain = new RecognizerChain([new RuleRecognizer()]);
    for (let i = 0; i < 12; i++) await speak(chain.open({ lang: 'en', rate: 8_000, key: `l${i}`, signal: call.signal }), speech.subarray(0, 800), { speed: 8 });
    expect(getEventListeners(call.signal, 'abort')).toHaveLength(0);
  });

  it('answers no final for no words, and fails with the engine\'s EngineError', async () => {
    const r = new RuleRecognizer();
    expect(await speak(asStreaming(r).open({ lang: 'en', rate: 8_000, key: 'w2' }), silence(500))).toEqual([]);
    r.failWith = new EngineError('rule answered 503', { status: 503 });
    await expect(speak(asStreaming(r).open({ lang: 'en', rate: 8_000, key: 'w3' }), speech.subarray(0, 4_000))).rejects.toBe(r.failWith);
  });
});

describe('the recognizers\' chain as a stream', () => {
  const deepgram = () => new DeepgramRecognizer({ apiKey: 'dg-key', url: dg.url });
  const voskR = () => new VoskRecognizer({ url: vosk.url, langs: ['en'] });

  it('goes to the first engine that hears the language', async () => {
    const chain = new RecognizerChain([new VoskRecognizer({ url: vosk.url, langs: ['de'] }), deepgram()]);
    const seen = await speak(chain.open({ lang: 'en', rate: 8_000, key: 'k1' }), speech, { speed: 4 });
    expect(vosk.sessions).toHaveLength(0);
    expect(dg.sessions).toHaveLength(1);
    expect(seen.filter((h) => h.kind === 'final').map((h) => h.text).join(' ')).toBe(heardWords(speech, 8_000, { all: true }).join(' '));
  });

  it('moves on to the next engine when the stream fails, with the audio no final settled, its times moved to the stream\'s', async () => {
    const pcm = concatPcm([speech, silence(700), speech]);
    // Deepgram drops the connection after its first phrase was settled (the pause), during the second.
    dg.dropAfterMs = Math.round(speech.length / 8 + 1_400) / 2;
    const chain = new RecognizerChain([deepgram(), voskR()]);
    const seen = await speak(chain.open({ lang: 'en', rate: 8_000, key: 'k2' }), pcm, { chunkMs: 20, speed: 2 });
    const finals = seen.filter((h) => h.kind === 'final');
    expect(dg.sessions).toHaveLength(1);
    expect(vosk.sessions).toHaveLength(1);
    // Vosk heard the end of the audio only, from where it started: what Deepgram's last final had not settled.
    const fromVosk = vosk.sessions[0]!.samples;
    expect(fromVosk.length).toBeLessThan(pcm.length);
    expect(fromVosk).toEqual(pcm.subarray(pcm.length - fromVosk.length));
    const baseMs = (pcm.length - fromVosk.length) / 8;
    const before = finals.filter((f) => f.startMs! < baseMs);
    const after = finals.filter((f) => f.startMs! >= baseMs);
    expect(before.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(baseMs).toBeLessThanOrEqual(before.at(-1)!.endMs!);
    expect(baseMs).toBeGreaterThan(before.at(-1)!.endMs! - 20);
    // What vosk heard, at its place in the stream.
    expect(after.map((f) => f.text).join(' ')).toBe(heardWords(fromVosk, 8_000, { all: true }).join(' '));
    expect(after.at(-1)!.endMs!).toBeLessThanOrEqual(Math.round(pcm.length / 8));
    // A failure counts against Deepgram's breaker (one is not enough to open it).
    expect(chain.breakers.get(chain.engines[0]!)!.state).toBe('closed');
  });

  it('ends with no more text, and never fails, when every engine fails; its breaker opens after repeated failures', async () => {
    dg.dropAfterMs = 200;
    const chain = new RecognizerChain([deepgram()], { breakerFailures: 2 });
    for (let i = 0; i < 2; i++) {
      const seen = await speak(chain.open({ lang: 'en', rate: 8_000, key: `k3-${i}` }), speech, { speed: 4 });
      expect(seen.filter((h) => h.kind === 'final')).toEqual([]);
    }
    expect(chain.breakers.get(chain.engines[0]!)!.state).toBe('open');
    // With its breaker open the engine is not even asked.
    expect(await speak(chain.open({ lang: 'en', rate: 8_000, key: 'k4' }), speech.subarray(0, 800))).toEqual([]);
    expect(dg.sessions).toHaveLength(2);
  });

  it('gives an engine the chain\'s limit plus the audio\'s length to settle after the end, then moves on', async () => {
    vosk.latencyMs = 60_000;
    const rule = new RuleRecognizer();
    const chain = new RecognizerChain([voskR(), rule], { timeoutMs: 300 });
    const audio = speech.subarray(0, 8_000);
    const t0 = performance.now();
    const seen = await speak(chain.open({ lang: 'en', rate: 8_000, key: 'k6' }), audio, { speed: 8 });
    const took = performance.now() - t0;
    expect(took).toBeGreaterThanOrEqual(300 + 1_000);
    expect(took).toBeLessThan(5_000);
    expect(rule.heard[0]!.pcm).toEqual(audio);
    expect(seen).toEqual([expect.objectContaining({ kind: 'final', text: heardWords(audio, 8_000, { all: true }).join(' ') })]);
  });

  it('fails only when its own signal aborts', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    const chain = new RecognizerChain([deepgram(), voskR()]);
    await expect(speak(chain.open({ lang: 'en', rate: 8_000, key: 'k5', signal: ctl.signal }), speech, { speed: 1 })).rejects.toBeInstanceOf(EngineError);
    expect(vosk.sessions).toHaveLength(0);
  });
});
