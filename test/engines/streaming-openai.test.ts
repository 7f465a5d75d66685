import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EngineError } from '../../src/engines/errors.ts';
import { OpenAIRecognizer } from '../../src/engines/openai/stt.ts';
import { loadResampler, resample } from '../../src/engines/speech/resample.ts';
import { concatPcm } from '../../src/engines/speech/streaming.ts';
import { startOpenAIRealtime, type OpenAIRealtimeFake } from '../helpers/openai-realtime.ts';
import { sentence, silence, speak } from '../helpers/stream-audio.ts';
import { heardWords, lastVoicedEnd } from '../helpers/ws-fake.ts';

// OpenAI's realtime transcription heard as a stream (src/engines/openai/realtime.ts)
// against a local server speaking its documented events
// (test/helpers/openai-realtime.ts), fed real recorded speech at a phone
// line's 8 kHz, which the adapter brings to the API's 24 kHz as it comes.

vi.setConfig({ testTimeout: 30_000 });

let oa: OpenAIRealtimeFake;
let speech: Int16Array;
beforeAll(async () => {
  oa = await startOpenAIRealtime('sk-test');
  speech = (await sentence('0880')).pcm;
  await loadResampler();
});
afterAll(async () => { await oa.close(); });
beforeEach(() => {
  oa.sessions.length = 0;
  Object.assign(oa, { failTranscriptions: false, errorAfterMs: null, dropAfterMs: null });
});

const recognizer = (o: Partial<ConstructorParameters<typeof OpenAIRecognizer>[0]> = {}) =>
  new OpenAIRecognizer({ url: oa.url, apiKey: 'sk-test', model: 'gpt-4o-transcribe', realtime: true, ...o });

describe('OpenAI realtime transcription stream', () => {
  it('configures a transcription session (24 kHz PCM, the model, the language, server VAD), with the key in Authorization', async () => {
    await speak(recognizer().open({ lang: 'en-GB', rate: 8_000, key: 'o1' }), speech, { speed: 4 });
    const s = oa.sessions[0]!;
    expect(s.query.get('intent')).toBe('transcription');
    expect(s.headers.authorization).toBe('Bearer sk-test');
    expect(s.events[0]).toEqual({ type: 'session.update', session: { type: 'transcription', audio: { input: {
      format: { type: 'audio/pcm', rate: 24_000 }, transcription: { model: 'gpt-4o-transcribe', language: 'en' },
      turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 },
    } } } });
    expect(s.events.at(-1)).toEqual({ type: 'input_audio_buffer.commit' });
    // The line's audio at three times its rate, whole: as long, and voiced in the same places.
    expect(Math.abs(s.samples.length - speech.length * 3)).toBeLessThan(100);
    expect(heardWords(s.samples, 24_000, { all: true })).toEqual(heardWords(resample(speech, 8_000, 24_000), 24_000, { all: true }));
  });

  it('answers each turn\'s deltas as growing partials, then its final with its times; a turn ended by a pause before the end', async () => {
    const pcm = concatPcm([speech, silence(900), speech.subarray(0, 12_000)]);
    const seen = await speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'o2' }), pcm, { speed: 2 });
    const finals = seen.filter((h) => h.kind === 'final');
    expect(finals.length).toBeGreaterThanOrEqual(2);
    expect(finals[0]!.afterEnd).toBe(false);
    expect(seen.find((h) => h.kind === 'partial')!.afterEnd).toBe(false);
    let phrase: string[] = [];
    for (const h of seen) {
      if (h.kind === 'partial') {
        if (phrase.length) expect(h.text.length).toBeGreaterThan(phrase.at(-1)!.length);
        phrase.push(h.text);
      } else {
        for (const p of phrase) expect(h.text.startsWith(p)).toBe(true);
        phrase = [];
      }
    }
    expect(finals[0]!.startMs!).toBeLessThan(finals[0]!.endMs!);
    expect(finals.map((f) => f.text).join(' ')).toBe(heardWords(oa.sessions[0]!.samples, 24_000, { all: true }).join(' '));
    expect(seen.at(-1)!.kind).toBe('final');
  });

  it('ends when nothing is left to commit (the API\'s commit_empty error is no failure), and speaks the beta interface when told', async () => {
    // The audio ends just as server VAD's silence does: it committed the turn, and nothing is left.
    const spoken = speech.subarray(0, lastVoicedEnd(speech, 8_000));
    const seen = await speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'o3' }), concatPcm([spoken, silence(500)]), { speed: 4 });
    expect(oa.sessions[0]!.sent).toContain('error:input_audio_buffer_commit_empty');
    expect(seen.filter((h) => h.kind === 'final')).toHaveLength(1);

    const beta = await speak(recognizer({ realtime: 'beta' }).open({ lang: 'en', rate: 8_000, key: 'o4' }), speech, { speed: 4 });
    expect(oa.sessions[1]!.headers['openai-beta']).toBe('realtime=v1');
    expect(oa.sessions[1]!.events[0]!.type).toBe('transcription_session.update');
    expect(beta.filter((h) => h.kind === 'final').map((h) => h.text).join(' ')).toBe(heardWords(oa.sessions[1]!.samples, 24_000, { all: true }).join(' '));
  });

  it('fails with an EngineError on an error event, a failed transcription, a dropped connection or a refused key', async () => {
    oa.errorAfterMs = 300;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'o5' }), speech, { speed: 2 })).rejects.toThrow(/server_error/);
    oa.errorAfterMs = null;
    oa.failTranscriptions = true;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'o6' }), speech, { speed: 4 })).rejects.toThrow(/transcription failed/);
    oa.failTranscriptions = false;
    oa.dropAfterMs = 300;
    await expect(speak(recognizer().open({ lang: 'en', rate: 8_000, key: 'o7' }), speech, { speed: 2 })).rejects.toBeInstanceOf(EngineError);
    oa.dropAfterMs = null;
    await expect(speak(recognizer({ apiKey: 'sk-wrong' }).open({ lang: 'en', rate: 8_000, key: 'o8' }), speech.subarray(0, 800))).rejects.toBeInstanceOf(EngineError);
  });

  it('reads a stream whole at its end where the server has no realtime transcription', async () => {
    const r = recognizer({ realtime: false });
    const stream = r.open({ lang: 'en', rate: 8_000, key: 'o9' });
    expect(stream.constructor.name).toBe('WholeUtteranceStream');
    expect(oa.sessions).toHaveLength(0);
  });
});
