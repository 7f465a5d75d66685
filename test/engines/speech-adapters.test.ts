import { afterEach, describe, expect, it } from 'vitest';
import { DeepgramRecognizer } from '../../src/engines/deepgram/recognizer.ts';
import { ELEVENLABS_DEFAULT_VOICE, ElevenLabsSynthesizer } from '../../src/engines/elevenlabs/synthesizer.ts';
import { OpenAIRecognizer } from '../../src/engines/openai/stt.ts';
import { OpenAISynthesizer } from '../../src/engines/openai/tts.ts';
import type { HeardUtterance } from '../../src/engines/speech/recognizer.ts';
import { SpeechError } from '../../src/engines/speech/synthesizer.ts';
import { VoskRecognizer } from '../../src/engines/vosk/recognizer.ts';
import { EngineError } from '../../src/engines/errors.ts';
import { maskKey } from '../helpers/fake-engines.ts';
import {
  startDeepgram, startElevenLabs, startOpenAISpeech, startOpenAITranscription, startVosk, type FakeSpeechServer,
} from '../helpers/fake-speech.ts';
import { until } from '../helpers/wait.ts';

// The speech providers' adapters against local servers that answer as the
// providers document their APIs (test/helpers/fake-speech.ts cites each):
// OpenAI's createTranscription and createSpeech
// (https://platform.openai.com/docs/api-reference/audio/createTranscription,
// https://platform.openai.com/docs/api-reference/audio/createSpeech),
// Deepgram's pre-recorded listen
// (https://developers.deepgram.com/reference/speech-to-text-api/listen),
// vosk-server's WebSocket protocol (https://github.com/alphacep/vosk-server,
// websocket/asr_server.py) and ElevenLabs' text-to-speech
// (https://elevenlabs.io/docs/api-reference/text-to-speech/convert). What a
// caller notices: the words come back, silence is null, speech comes back
// at 8 kHz as long as the provider's audio, a 429 says when to retry, a
// provider that never answers does not hold the call up, and no key is
// ever in an error.

const OPENAI_KEY = 'sk-test-3f9a2c7d1e5b8a4f6c0d9e2b7a1c5f8e';
const DEEPGRAM_KEY = 'dg-7c1e9a3f5b2d8e6a4c0f1b9d7e3a5c2f';
const ELEVEN_KEY = 'xi-4b8e2a6c0f9d3b7e1a5c8f2d6b0e4a9c';

const servers: FakeSpeechServer[] = [];
async function started<T extends FakeSpeechServer>(p: Promise<T>): Promise<T> {
  const s = await p;
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** `ms` of 8 kHz audio: a 300 Hz tone (someone speaking), or silence. */
function utterance(ms: number, o: { lang?: string; silent?: boolean } = {}): HeardUtterance {
  const n = ms * 8;
  const pcm = new Int16Array(n);
  if (!o.silent) for (let i = 0; i < n; i++) pcm[i] = Math.round(6_000 * Math.sin((2 * Math.PI * 300 * i) / 8_000));
  else for (let i = 0; i < n; i++) pcm[i] = (i % 3) - 1; // line noise, far below speech
  return { key: 'call-1', pcm, audioMs: ms, lang: o.lang ?? 'en', at: Date.now() };
}

function rms(pcm: Int16Array): number {
  let s = 0;
  for (const v of pcm) s += v * v;
  return Math.sqrt(s / Math.max(1, pcm.length));
}

async function engineFailure(p: Promise<unknown>): Promise<EngineError> {
  const err: unknown = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(EngineError);
  return err as EngineError;
}

/** A synthesizer's failure: a SpeechError (the interface's), with the EngineError behind it as its cause. */
async function speechFailure(p: Promise<unknown>): Promise<{ err: SpeechError; cause: EngineError }> {
  const err: unknown = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(SpeechError);
  const cause = (err as SpeechError).cause;
  expect(cause).toBeInstanceOf(EngineError);
  return { err: err as SpeechError, cause: cause as EngineError };
}

/** Everything an error shows: message, stack, and its cause's. */
function shown(err: Error): string {
  const cause = err.cause instanceof Error ? `${err.cause.message} ${err.cause.stack}` : '';
  return `${err.message} ${err.stack} ${cause}`;
}

// ---------------------------------------------------------------- OpenAI-compatible transcription

describe('OpenAI-compatible recognizer (/v1/audio/transcriptions)', () => {
  it('sends the utterance as an 8 kHz mono WAV file with model, ISO-639-1 language and json format, and gets the words back', async () => {
    const server = await started(startOpenAITranscription({ apiKey: OPENAI_KEY, says: 'Olá, tudo bem?' }));
    const r = new OpenAIRecognizer({ url: server.url, apiKey: OPENAI_KEY, model: 'whisper-1' });
    const u = utterance(1_200, { lang: 'pt-BR' });
    expect(await r.recognize(u)).toEqual({ text: 'Olá, tudo bem?' });
    expect(r.requests).toBe(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/audio/transcriptions' });
    expect(req!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const [upload] = server.uploads;
    expect(upload!.fields).toEqual({ model: 'whisper-1', language: 'pt', response_format: 'json' });
    expect(upload!.fileName).toMatch(/\.wav$/);
    expect(upload!.fileType).toBe('audio/wav');
    expect(upload!.samples).toEqual(u.pcm);
  });

  it('silence comes back as no words (null), not as empty text', async () => {
    const server = await started(startOpenAITranscription());
    const r = new OpenAIRecognizer({ url: server.url, model: 'whisper-1' });
    expect(await r.recognize(utterance(800, { silent: true }))).toEqual({ text: null });
    expect(await r.recognize({ ...utterance(0), pcm: new Int16Array(0) })).toEqual({ text: null });
    expect(r.requests).toBe(1);
  });

  it('a local server (whisper.cpp, faster-whisper) without a key: no Authorization header; the URL may end in /v1', async () => {
    const server = await started(startOpenAITranscription({ says: 'hello' }));
    const r = new OpenAIRecognizer({ url: `${server.url}/v1/`, model: 'base.en' });
    expect(await r.recognize(utterance(500))).toEqual({ text: 'hello' });
    expect(server.requests[0]!.path).toBe('/v1/audio/transcriptions');
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('hears any language unless the operator lists some; a language without a two-letter code is left to the model', async () => {
    const server = await started(startOpenAITranscription({ says: 'Magandang umaga' }));
    const any = new OpenAIRecognizer({ url: server.url, model: 'whisper-1' });
    expect(['en', 'pt-BR', 'zh-Hant', 'fil', 'yue'].every((l) => any.hears(l))).toBe(true);
    expect(any.hears('not a language')).toBe(false);
    const listed = new OpenAIRecognizer({ url: server.url, model: 'whisper-1', langs: ['en', 'es'] });
    expect([listed.hears('en-GB'), listed.hears('es'), listed.hears('de')]).toEqual([true, true, false]);
    expect(await any.recognize(utterance(500, { lang: 'fil' }))).toEqual({ text: 'Magandang umaga' });
    expect(server.uploads[0]!.fields.language).toBeUndefined();
  });

  it('a wrong key: 401, permanent, and neither the key nor OpenAI’s masked echo of it is in the error', async () => {
    const server = await started(startOpenAITranscription({ apiKey: 'sk-the-right-one-0000000000000000' }));
    const r = new OpenAIRecognizer({ url: server.url, apiKey: OPENAI_KEY, model: 'whisper-1' });
    const err = await engineFailure(r.recognize(utterance(500)));
    expect(err).toMatchObject({ status: 401, permanent: true, retryAfterMs: null });
    expect(shown(err)).not.toContain(OPENAI_KEY);
    expect(shown(err)).not.toContain(maskKey(OPENAI_KEY));
    expect(shown(err)).not.toContain(OPENAI_KEY.slice(-4));
    expect(`${r.name} ${r.url}`).not.toContain(OPENAI_KEY);
  });

  it('429 with Retry-After: not permanent, retryAfterMs from the header; 500: not permanent', async () => {
    const server = await started(startOpenAITranscription({ apiKey: OPENAI_KEY }));
    const r = new OpenAIRecognizer({ url: server.url, apiKey: OPENAI_KEY, model: 'whisper-1' });
    server.fail = { status: 429, retryAfter: '2' };
    expect(await engineFailure(r.recognize(utterance(500)))).toMatchObject({ status: 429, permanent: false, retryAfterMs: 2000 });
    server.fail = { status: 500 };
    expect(await engineFailure(r.recognize(utterance(500)))).toMatchObject({ status: 500, permanent: false });
  });

  it('an answer that is not OpenAI’s JSON, or a server not there: not permanent', async () => {
    const server = await started(startOpenAITranscription());
    const r = new OpenAIRecognizer({ url: server.url, model: 'whisper-1' });
    server.garble = true;
    expect(await engineFailure(r.recognize(utterance(500)))).toMatchObject({ status: null, permanent: false });
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await engineFailure(r.recognize(utterance(500)))).toMatchObject({ status: null, permanent: false });
  });

  it('a server that never answers: the aborted signal rejects promptly, and so does the adapter’s own timeout', async () => {
    const server = await started(startOpenAITranscription());
    server.hang = true;
    const t0 = Date.now();
    const err = await engineFailure(new OpenAIRecognizer({ url: server.url, model: 'whisper-1' }).recognize(utterance(500), AbortSignal.timeout(200)));
    expect(err.permanent).toBe(false);
    await engineFailure(new OpenAIRecognizer({ url: server.url, model: 'whisper-1', timeoutMs: 200 }).recognize(utterance(500)));
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

// ---------------------------------------------------------------- Deepgram

describe('Deepgram recognizer (pre-recorded /v1/listen)', () => {
  it('posts the WAV with its Token, nova-2, the language and smart_format, and gets the transcript back', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY, says: 'Olá, tudo bem?' }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url });
    const u = utterance(1_000, { lang: 'pt-BR' });
    expect(await r.recognize(u)).toEqual({ text: 'Olá, tudo bem?' });
    expect(r.requests).toBe(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/listen' });
    expect(Object.fromEntries(req!.query)).toEqual({ model: 'nova-2', language: 'pt-BR', smart_format: 'true' });
    expect(req!.headers.authorization).toBe(`Token ${DEEPGRAM_KEY}`);
    expect(req!.headers['content-type']).toBe('audio/wav');
    expect(server.uploads[0]).toEqual(u.pcm);
  });

  it('sends the variety nova-2 has, else its primary language; hears only what nova-2 documents', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url });
    expect(['en-GB', 'en-CA', 'pt-PT', 'nb', 'zh-TW', 'es-MX', 'es-419'].map((l) => r.languageCode(l))).toEqual(['en-GB', 'en', 'pt', 'no', 'zh-TW', 'es', 'es-419']);
    for (const lang of ['en-CA', 'nb', 'es-MX']) await r.recognize(utterance(300, { lang }));
    expect(server.requests.map((q) => q.query.get('language'))).toEqual(['en', 'no', 'es']);
    expect([r.hears('de-AT'), r.hears('ar'), r.hears('he')]).toEqual([true, false, false]);
    const err = await engineFailure(r.recognize(utterance(300, { lang: 'ar' })));
    expect(err.permanent).toBe(true);
    expect(r.requests).toBe(3);
  });

  it('silence: an empty transcript, null', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url });
    expect(await r.recognize(utterance(700, { silent: true }))).toEqual({ text: null });
  });

  it('a model the account lacks for the language: Deepgram’s 400, permanent', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url, model: 'base', langs: ['en', 'de'] });
    const err = await engineFailure(r.recognize(utterance(300, { lang: 'de' })));
    expect(err).toMatchObject({ status: 400, permanent: true });
    expect(err.message).toContain('No such model/language/tier combination');
  });

  it('a wrong key (401) and a key without permission (403): permanent, and the key is nowhere', async () => {
    const server = await started(startDeepgram({ apiKey: 'dg-another-key' }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url });
    const err = await engineFailure(r.recognize(utterance(300)));
    expect(err).toMatchObject({ status: 401, permanent: true });
    expect(err.message).toContain('INVALID_AUTH');
    expect(shown(err)).not.toContain(DEEPGRAM_KEY);
    server.fail = { status: 403 };
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ status: 403, permanent: true });
    expect(`${r.name} ${r.url}`).not.toContain(DEEPGRAM_KEY);
    expect(new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY }).url).toBe('https://api.deepgram.com');
  });

  it('429 over the concurrency limit carries Retry-After; 500 may pass', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY }));
    const r = new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url });
    server.fail = { status: 429, retryAfter: '3' };
    const err = await engineFailure(r.recognize(utterance(300)));
    expect(err).toMatchObject({ status: 429, permanent: false, retryAfterMs: 3000 });
    expect(err.message).toContain('TOO_MANY_REQUESTS');
    server.fail = { status: 500 };
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ status: 500, permanent: false });
    server.fail = null;
    server.garble = true;
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ status: null, permanent: false });
  });

  it('Deepgram never answering: the aborted signal rejects promptly', async () => {
    const server = await started(startDeepgram({ apiKey: DEEPGRAM_KEY }));
    server.hang = true;
    const t0 = Date.now();
    const err = await engineFailure(new DeepgramRecognizer({ apiKey: DEEPGRAM_KEY, url: server.url }).recognize(utterance(300), AbortSignal.timeout(200)));
    expect(err.permanent).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

// ---------------------------------------------------------------- vosk-server

describe('vosk-server recognizer (WebSocket)', () => {
  it('config first, the audio in binary chunks of at most 8000 bytes, the exact eof; the final text comes back', async () => {
    const server = await started(startVosk({ says: 'hello how are you' }));
    const r = new VoskRecognizer({ url: server.url, langs: ['en'] });
    const u = utterance(1_300);
    expect(await r.recognize(u)).toEqual({ text: 'hello how are you' });
    expect(r.requests).toBe(1);
    const [s] = server.sessions;
    expect(s!.config).toEqual({ sample_rate: 8000 });
    expect(s!.texts[0]).toContain('config');
    expect(s!.texts.at(-1)).toBe('{"eof" : 1}');
    expect(s!.eof).toBe(true);
    expect(s!.chunkSizes).toEqual([8000, 8000, 4800]);
    expect(s!.samples).toEqual(u.pcm);
  });

  it('one connection per utterance, closed when done', async () => {
    const server = await started(startVosk({ says: 'yes' }));
    const r = new VoskRecognizer({ url: server.url, langs: ['en'] });
    expect(await r.recognize(utterance(400))).toEqual({ text: 'yes' });
    expect(await r.recognize(utterance(400))).toEqual({ text: 'yes' });
    expect(server.sessions).toHaveLength(2);
    expect(r.requests).toBe(2);
    await until('both connections closed', async () => server.sessions.every((s) => s.closed), 2000);
  });

  it('a pause inside the utterance ends a phrase early: every phrase is in the text, in order', async () => {
    const server = await started(startVosk({ says: ['I would like', 'to book a table'] }));
    const r = new VoskRecognizer({ url: server.url, langs: ['en'] });
    expect(await r.recognize(utterance(2_000))).toEqual({ text: 'I would like to book a table' });
  });

  it('silence: an empty final text, null; the alternatives form (VOSK_ALTERNATIVES) reads as well', async () => {
    const quiet = await started(startVosk());
    expect(await new VoskRecognizer({ url: quiet.url, langs: ['en'] }).recognize(utterance(600, { silent: true }))).toEqual({ text: null });
    const alt = await started(startVosk({ says: 'good morning', alternatives: true }));
    expect(await new VoskRecognizer({ url: alt.url, langs: ['en'] }).recognize(utterance(600))).toEqual({ text: 'good morning' });
  });

  it('hears the languages the operator says its model has (by primary language), and refuses others without connecting', async () => {
    const server = await started(startVosk());
    const r = new VoskRecognizer({ url: server.url, langs: ['de', 'en-US'] });
    expect([r.hears('de-AT'), r.hears('en-GB'), r.hears('fr')]).toEqual([true, true, false]);
    expect(await engineFailure(r.recognize(utterance(300, { lang: 'fr' })))).toMatchObject({ permanent: true });
    expect(server.sessions).toHaveLength(0);
  });

  it('takes only ws:// and wss:// addresses, and keeps a user:password out of its url', () => {
    expect(() => new VoskRecognizer({ url: 'http://localhost:2700', langs: ['en'] })).toThrow(/WebSocket/);
    const r = new VoskRecognizer({ url: 'wss://asr:s3cret-pass@vosk.example:2700', langs: ['en'] });
    expect(r.url).not.toContain('s3cret-pass');
    expect(r.url).toBe('wss://vosk.example:2700');
  });

  it('a server that never answers: the aborted signal rejects promptly and the connection is closed', async () => {
    const server = await started(startVosk());
    server.hang = true;
    const t0 = Date.now();
    const err = await engineFailure(new VoskRecognizer({ url: server.url, langs: ['en'] }).recognize(utterance(500), AbortSignal.timeout(200)));
    expect(err.permanent).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
    await until('the connection closed', async () => server.sessions[0]?.closed, 2000);
    await engineFailure(new VoskRecognizer({ url: server.url, langs: ['en'], timeoutMs: 200 }).recognize(utterance(500)));
  });

  it('a refused upgrade, a server not there, or one answering something else than JSON: not permanent', async () => {
    const server = await started(startVosk());
    const r = new VoskRecognizer({ url: server.url, langs: ['en'] });
    server.fail = { status: 503 };
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ permanent: false });
    server.fail = null;
    server.garble = true;
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ permanent: false });
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    expect(await engineFailure(r.recognize(utterance(300)))).toMatchObject({ permanent: false });
  });
});

// ---------------------------------------------------------------- OpenAI-compatible speech

describe('OpenAI-compatible synthesizer (/v1/audio/speech)', () => {
  it('asks for wav with the model, the text and the voice, and speaks it at 8 kHz as long as the server’s audio', async () => {
    const server = await started(startOpenAISpeech({ apiKey: OPENAI_KEY, rate: 24_000, ms: 1_500 }));
    const s = new OpenAISynthesizer({ url: server.url, apiKey: OPENAI_KEY, model: 'gpt-4o-mini-tts' });
    const speech = await s.synthesize('This call is from an AI assistant.', 'en');
    expect(speech.pcm).toHaveLength(12_000);
    expect(speech.ms).toBe(1_500);
    expect(rms(speech.pcm)).toBeGreaterThan(4_000); // the 440 Hz tone survives (amplitude 8000: RMS about 5650)
    expect(s.requests).toBe(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: '/v1/audio/speech' });
    expect(req!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    expect(req!.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(req!.body.toString('utf8'))).toEqual({
      model: 'gpt-4o-mini-tts', input: 'This call is from an AI assistant.', voice: 'alloy', response_format: 'wav',
    });
  });

  it('the caller’s voice, else the operator’s; Piper-like 22.05 kHz stereo comes out 8 kHz mono', async () => {
    const server = await started(startOpenAISpeech({ voices: ['af_heart', 'am_adam'], rate: 22_050, channels: 2, ms: 1_000, streamed: false }));
    const s = new OpenAISynthesizer({ url: `${server.url}/v1`, model: 'kokoro', voice: 'af_heart' });
    const a = await s.synthesize('Hello', 'en');
    expect(a.pcm).toHaveLength(8_000);
    expect(a.ms).toBe(1_000);
    await s.synthesize('Hello', 'en', 'am_adam');
    expect(server.requests.map((r) => (JSON.parse(r.body.toString('utf8')) as { voice: string }).voice)).toEqual(['af_heart', 'am_adam']);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('speaks any language unless the operator lists some', () => {
    const any = new OpenAISynthesizer({ url: 'http://127.0.0.1:9', model: 'tts-1' });
    expect([any.speaks('pt-BR'), any.speaks('ja'), any.speaks('??')]).toEqual([true, true, false]);
    const listed = new OpenAISynthesizer({ url: 'http://127.0.0.1:9', model: 'tts-1', langs: ['en', 'es'] });
    expect([listed.speaks('en-GB'), listed.speaks('pt')]).toEqual([true, false]);
  });

  it('failures are SpeechError with the EngineError as cause: 401 permanent without the key, 429 with Retry-After, 500 may pass', async () => {
    const server = await started(startOpenAISpeech({ apiKey: 'sk-the-right-one-0000000000000000' }));
    const s = new OpenAISynthesizer({ url: server.url, apiKey: OPENAI_KEY, model: 'tts-1' });
    const denied = await speechFailure(s.synthesize('Hello', 'en'));
    expect(denied.cause).toMatchObject({ status: 401, permanent: true });
    expect(shown(denied.err)).not.toContain(OPENAI_KEY);
    expect(shown(denied.err)).not.toContain(maskKey(OPENAI_KEY));
    server.fail = { status: 429, retryAfter: '3' };
    expect((await speechFailure(s.synthesize('Hello', 'en'))).cause).toMatchObject({ status: 429, permanent: false, retryAfterMs: 3000 });
    server.fail = { status: 500 };
    expect((await speechFailure(s.synthesize('Hello', 'en'))).cause).toMatchObject({ status: 500, permanent: false });
  });

  it('a server that answers MP3 whatever it is asked: permanent; a voice it lacks: its 400, permanent', async () => {
    const mp3 = await started(startOpenAISpeech({ alwaysMp3: true }));
    expect((await speechFailure(new OpenAISynthesizer({ url: mp3.url, model: 'tts-1' }).synthesize('Hello', 'en'))).cause.permanent).toBe(true);
    const server = await started(startOpenAISpeech());
    const { cause } = await speechFailure(new OpenAISynthesizer({ url: server.url, model: 'tts-1' }).synthesize('Hello', 'en', 'af_heart'));
    expect(cause).toMatchObject({ status: 400, permanent: true });
  });

  it('a server that never answers: rejected after the timeout, promptly', async () => {
    const server = await started(startOpenAISpeech());
    server.hang = true;
    const t0 = Date.now();
    const { cause } = await speechFailure(new OpenAISynthesizer({ url: server.url, model: 'tts-1', timeoutMs: 200 }).synthesize('Hello', 'en'));
    expect(cause.permanent).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

// ---------------------------------------------------------------- ElevenLabs

describe('ElevenLabs synthesizer (/v1/text-to-speech)', () => {
  it('asks the default voice for 16 kHz PCM with xi-api-key and {text, model_id}, and speaks it at 8 kHz', async () => {
    const server = await started(startElevenLabs({ apiKey: ELEVEN_KEY, ms: 2_000 }));
    const s = new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY, url: server.url });
    const speech = await s.synthesize('Esta chamada é feita por um assistente de IA.', 'pt-BR');
    expect(speech.pcm).toHaveLength(16_000);
    expect(speech.ms).toBe(2_000);
    expect(rms(speech.pcm)).toBeGreaterThan(4_000);
    expect(s.requests).toBe(1);
    const [req] = server.requests;
    expect(req).toMatchObject({ method: 'POST', path: `/v1/text-to-speech/${ELEVENLABS_DEFAULT_VOICE}` });
    expect(Object.fromEntries(req!.query)).toEqual({ output_format: 'pcm_16000' });
    expect(req!.headers['xi-api-key']).toBe(ELEVEN_KEY);
    expect(req!.headers.authorization).toBeUndefined();
    expect(JSON.parse(req!.body.toString('utf8'))).toEqual({ text: 'Esta chamada é feita por um assistente de IA.', model_id: 'eleven_multilingual_v2' });
  });

  it('a cloned voice is spoken by its provider id; one since deleted is ElevenLabs’ 404, permanent', async () => {
    const clone = 'Zq8cL0nEdV0ic3Id1234';
    const server = await started(startElevenLabs({ apiKey: ELEVEN_KEY, voices: [ELEVENLABS_DEFAULT_VOICE, clone], ms: 500 }));
    const s = new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY, url: server.url });
    expect((await s.synthesize('Hello', 'en', clone)).ms).toBe(500);
    expect(server.requests[0]!.path).toBe(`/v1/text-to-speech/${clone}`);
    const { err, cause } = await speechFailure(s.synthesize('Hello', 'en', 'GoneV0ice00000000000'));
    expect(cause).toMatchObject({ status: 404, permanent: true });
    expect(err.message).toContain('voice_not_found');
  });

  it('speaks the 29 languages of eleven_multilingual_v2, by primary language', () => {
    const s = new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY });
    expect(['en-GB', 'pt-BR', 'zh-TW', 'fil', 'ar', 'uk', 'ta'].every((l) => s.speaks(l))).toBe(true);
    expect(['hu', 'no', 'vi', 'he', 'th'].some((l) => s.speaks(l))).toBe(false);
    expect(new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY, model: 'eleven_flash_v2_5', langs: ['en', 'hu'] }).speaks('hu')).toBe(true);
  });

  it('a wrong key: 401 invalid_api_key, permanent, key nowhere; 429 too_many_concurrent_requests with Retry-After; 500 may pass', async () => {
    const server = await started(startElevenLabs({ apiKey: 'xi-another-key' }));
    const s = new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY, url: server.url });
    const denied = await speechFailure(s.synthesize('Hello', 'en'));
    expect(denied.cause).toMatchObject({ status: 401, permanent: true });
    expect(denied.err.message).toContain('invalid_api_key');
    expect(shown(denied.err)).not.toContain(ELEVEN_KEY);
    expect(`${s.name} ${s.url}`).not.toContain(ELEVEN_KEY);
    server.fail = { status: 429, retryAfter: '1' };
    const busy = await speechFailure(s.synthesize('Hello', 'en'));
    expect(busy.cause).toMatchObject({ status: 429, permanent: false, retryAfterMs: 1000 });
    expect(busy.err.message).toContain('too_many_concurrent_requests');
    server.fail = { status: 500 };
    expect((await speechFailure(s.synthesize('Hello', 'en'))).cause).toMatchObject({ status: 500, permanent: false });
  });

  it('a language it lacks is refused without a request; ElevenLabs never answering: rejected after the timeout', async () => {
    const server = await started(startElevenLabs({ apiKey: ELEVEN_KEY }));
    const s = new ElevenLabsSynthesizer({ apiKey: ELEVEN_KEY, url: server.url, timeoutMs: 200 });
    expect((await speechFailure(s.synthesize('Hallo', 'no'))).cause.permanent).toBe(true);
    expect(server.requests).toHaveLength(0);
    server.hang = true;
    const t0 = Date.now();
    expect((await speechFailure(s.synthesize('Hello', 'en'))).cause.permanent).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
