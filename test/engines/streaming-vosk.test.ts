import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngineError } from '../../src/engines/errors.ts';
import { concatPcm } from '../../src/engines/speech/streaming.ts';
import { VoskRecognizer } from '../../src/engines/vosk/recognizer.ts';
import { sentence, silence, speak } from '../helpers/stream-audio.ts';
import { startVoskLive, type VoskLiveFake } from '../helpers/vosk-live.ts';
import { heardWords } from '../helpers/ws-fake.ts';

// A vosk-server heard as a stream (src/engines/vosk/live.ts) against a local
// server answering as websocket/asr_server.py does (test/helpers/vosk-live.ts),
// fed real recorded speech at the pace of a phone line; the fake's words
// follow from the audio it received (ws-fake.ts heardWords).

vi.setConfig({ testTimeout: 30_000 });

let vosk: VoskLiveFake;
let speech: Int16Array;
beforeAll(async () => {
  vosk = await startVoskLive();
  speech = (await sentence('0880')).pcm;
});
afterAll(async () => { await vosk.close(); });
beforeEach(() => {
  vosk.sessions.length = 0;
  vosk.dropAfterChunks = null;
  vosk.latencyMs = 20;
});

const recognizer = (timeoutMs?: number) => new VoskRecognizer({ url: vosk.url, langs: ['en'], ...(timeoutMs ? { timeoutMs } : {}) });

describe('vosk-server stream', () => {
  it('configures the stream\'s rate first, answers the phrase so far while the speaker speaks, a final per phrase, and every word once', async () => {
    const pcm = concatPcm([speech, silence(800), speech.subarray(0, 12_000)]);
    const seen = await speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'v1' }), pcm, { chunkMs: 20, speed: 2 });
    const s = vosk.sessions[0]!;
    expect(s.config).toEqual({ sample_rate: 8_000 });
    expect(s.eof).toBe(true);
    expect(s.samples).toEqual(pcm);
    // The line's 20 ms frames went in messages of 100 ms.
    expect(s.chunks.slice(0, -1).every((n) => n === 1_600)).toBe(true);
    const finals = seen.filter((h) => h.kind === 'final');
    expect(finals.length).toBeGreaterThanOrEqual(2);
    // The first phrase was settled by its pause while the audio still came, after partials.
    expect(finals[0]!.afterEnd).toBe(false);
    const firstPartial = seen.findIndex((h) => h.kind === 'partial');
    expect(firstPartial).toBeGreaterThanOrEqual(0);
    expect(firstPartial).toBeLessThan(seen.indexOf(finals[0]!));
    // Partials are the phrase so far: beginnings of the phrase's final; no partial repeats the one before.
    let phrase: string[] = [];
    for (const h of seen) {
      if (h.kind === 'partial') phrase.push(h.text);
      else {
        for (const p of phrase) expect(h.text.startsWith(p)).toBe(true);
        expect(new Set(phrase).size).toBe(phrase.length);
        phrase = [];
      }
    }
    // Each final's times are its words'.
    for (const f of finals) expect(f.startMs!).toBeLessThan(f.endMs!);
    expect(finals[1]!.startMs!).toBeGreaterThanOrEqual(finals[0]!.endMs!);
    expect(finals.map((f) => f.text).join(' ')).toBe(heardWords(pcm, 8_000, { all: true }).join(' '));
    await vi.waitFor(() => expect(s.closed).toBe(true));
  });

  it('tells the server a microphone\'s 16 kHz', async () => {
    const { pcm } = await sentence('0880', 16_000);
    const seen = await speak(recognizer().open({ lang: 'en', rate: 16_000, key: 'v2' }), pcm, { rate: 16_000, chunkMs: 100, speed: 4 });
    expect(vosk.sessions[0]!.config).toEqual({ sample_rate: 16_000 });
    expect(seen.filter((h) => h.kind === 'final').map((f) => f.text).join(' ')).toBe(heardWords(pcm, 16_000, { all: true }).join(' '));
  });

  it('fails with an EngineError when the server drops the connection, or does not settle in time', async () => {
    vosk.dropAfterChunks = 5;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'v3' }), speech, { chunkMs: 100, speed: 2 })).rejects.toBeInstanceOf(EngineError);
    vosk.dropAfterChunks = null;
    vosk.latencyMs = 60_000;
    const t0 = performance.now();
    await expect(speak(recognizer(500).open({ lang: 'en', rate: 8_000, key: 'v4' }), speech.subarray(0, 4_000), { chunkMs: 100, speed: 4 })).rejects.toThrow(/no final result within 500 ms/);
    expect(performance.now() - t0).toBeLessThan(3_000);
  });

  it('fails when the server takes the connection and never answers the handshake', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const r = new VoskRecognizer({ url: `ws://127.0.0.1:${port}`, langs: ['en'], timeoutMs: 300 });
      const t0 = performance.now();
      await expect(speak(r.open({ lang: 'en', rate: 8_000, key: 'v7' }), speech.subarray(0, 800), { end: false })).rejects.toThrow(/does not answer within 300 ms/);
      expect(performance.now() - t0).toBeLessThan(2_000);
    } finally {
      silent.close();
      silent.unref();
    }
  });

  it('stops when its signal aborts, and refuses a language its model lacks', async () => {
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 300);
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'v5', signal: ctl.signal }), speech, { speed: 1 })).rejects.toBeInstanceOf(EngineError);
    await vi.waitFor(() => expect(vosk.sessions[0]!.closed).toBe(true));
    await expect(speak(recognizer().open({ lang: 'fr', rate: 8_000, key: 'v6' }), speech.subarray(0, 800))).rejects.toMatchObject({ permanent: true });
    expect(vosk.sessions).toHaveLength(1);
  });
});
