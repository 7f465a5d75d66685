import { afterAll, describe, expect, it, vi } from 'vitest';
import { ElevenLabsSynthesizer } from '../../src/engines/elevenlabs/synthesizer.ts';
import { PicoSynthesizer } from '../../src/engines/pico/synthesizer.ts';
import { FirstThatSpeaks, SpeechError } from '../../src/engines/speech/synthesizer.ts';
import { startElevenLabs, type FakeSpeechServer } from '../helpers/fake-speech.ts';

// The speech engines of TOLK_SPEECH_ENGINES follow translation's failure
// rules: a provider that fails (500, 429, a hang) falls through to the next
// engine that speaks the language, and its breaker stops asking it.

vi.setConfig({ testTimeout: 30_000 });

let fake: FakeSpeechServer;
const pico = new PicoSynthesizer();
afterAll(async () => {
  await fake?.close();
  await pico.close();
});

describe('speech engines in order', () => {
  it('a failing provider falls through to the embedded engine; after three failures it is not asked', async () => {
    fake = await startElevenLabs({ apiKey: 'el-key' });
    // A generous limit: the failures here are answers (500), and a loaded machine must not turn the healthy first one into a timeout.
    const chain = new FirstThatSpeaks([new ElevenLabsSynthesizer({ apiKey: 'el-key', url: fake.url, timeoutMs: 10_000 }), pico]);
    // Healthy: the provider speaks.
    const first = await chain.synthesize('Hello there.', 'en');
    expect(first.ms).toBeGreaterThan(300);
    expect(fake.requests).toHaveLength(1);
    fake.fail = { status: 500 };
    for (let i = 0; i < 5; i++) {
      const s = await chain.synthesize(`Phrase number ${i}.`, 'en');
      // Spoken anyway, by Pico.
      expect(s.pcm.length).toBeGreaterThan(2000);
    }
    // Three failures opened its breaker: the two phrases after went straight to Pico.
    expect(fake.requests).toHaveLength(4);
  });

  it('nothing that speaks the language answers: a SpeechError, the line stays silent for it', async () => {
    const down = await startElevenLabs({ apiKey: 'el-key' });
    down.fail = { status: 503, retryAfter: '30' };
    const chain = new FirstThatSpeaks([new ElevenLabsSynthesizer({ apiKey: 'el-key', url: down.url })]);
    await expect(chain.synthesize('Olá.', 'pt')).rejects.toBeInstanceOf(SpeechError);
    // The 503 asked for 30 s: not asked again meanwhile.
    await expect(chain.synthesize('Olá de novo.', 'pt')).rejects.toThrow(/failing/);
    expect(down.requests).toHaveLength(1);
    await down.close();
  });
});
