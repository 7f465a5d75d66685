import { EngineError } from '../errors.ts';
import { loadResampler, toLineRate } from '../speech/resample.ts';
import { ProviderLimits, speechFailure as failure } from '../speech/provider.ts';
import type { Speech, SpeechSynthesizer } from '../speech/synthesizer.ts';
import { decodeWav } from '../speech/wav.ts';
import { OpenAIClient } from './client.ts';

// Any OpenAI-compatible speech server as a synthesizer (TOLK_SPEECH_ENGINES
// `openai=URL`, model TOLK_OPENAI_TTS_MODEL): OpenAI itself, Kokoro-FastAPI,
// Piper's and speaches' servers. POST {base}/v1/audio/speech with JSON
// {model, input, voice, response_format: "wav"}
// (https://platform.openai.com/docs/api-reference/audio/createSpeech) → the
// audio as a WAV file: OpenAI's is 24 kHz 16-bit mono with placeholder sizes
// in its header (it streams; wav.ts reads it to the end), Piper's 22.05 kHz.
// The header says the rate and channels; the samples are mixed to mono and
// resampled to the line's 8 kHz (resample.ts: Speex, on this thread: a few
// milliseconds for a sentence).
//
// The API has no language field: the model reads the text as what it is, so
// it speaks any language unless the operator lists some (`langs`). `voice`
// is the server's voice name (`alloy`, Kokoro's `af_heart`), `alloy` unless
// the operator or the caller names another.
//
// Failures are SpeechError, as the interface promises, each with the
// EngineError behind it as its `cause` (HTTP status, Retry-After, permanent):
// a caller that only knows SpeechError still works, and one that retries or
// falls through reads the cause. The key only travels in the Authorization
// header; it is never in an error or a name.

const LINE_RATE = 8_000;

export type OpenAISynthesizerOptions = {
  url: string;
  apiKey?: string;
  model: string;
  /** The server's voice when the caller names none (default `alloy`). */
  voice?: string;
  /** The languages it speaks; any language when absent. */
  langs?: readonly string[];
  /** Gives up on a synthesis after this long (default 10 s). */
  timeoutMs?: number;
};

export class OpenAISynthesizer implements SpeechSynthesizer {
  readonly name = 'openai';
  readonly url: string;
  requests = 0;
  private readonly client: OpenAIClient;
  private readonly model: string;
  private readonly voice: string;
  private readonly limits: ProviderLimits;

  constructor(o: OpenAISynthesizerOptions) {
    this.client = new OpenAIClient(o.url, o.apiKey);
    this.url = this.client.url;
    this.model = o.model;
    this.voice = o.voice ?? 'alloy';
    this.limits = new ProviderLimits(o);
  }

  speaks(lang: string): boolean {
    return this.limits.takes(lang);
  }

  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    if (!this.speaks(lang)) throw failure(new EngineError(`openai does not speak ${lang}`, { permanent: true }));
    if (!text.trim()) throw failure(new EngineError('openai: nothing to say', { permanent: true }));
    await loadResampler();
    const signal = this.limits.signal();
    this.requests++;
    let sent;
    try {
      sent = await this.client.send('/audio/speech', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.model, input: text, voice: voice || this.voice, response_format: 'wav' }),
        signal,
      }, 'openai speech', 'bytes');
    } catch (err) {
      throw failure(err as EngineError);
    }
    if (!sent.res.ok) throw failure(this.client.failure(sent.res, sent.body));
    const bytes = sent.bytes!;
    let wav;
    try {
      wav = decodeWav(bytes);
    } catch (err) {
      // A server that answers another format for response_format wav will not change its mind.
      throw failure(new EngineError(`openai speech: an answer that is not 16-bit PCM WAV (${(err as Error).message})`, { permanent: true }));
    }
    if (wav.samples.length === 0) throw failure(new EngineError('openai speech: no audio'));
    const pcm = wav.rate === LINE_RATE ? wav.samples : toLineRate(wav.samples, wav.rate);
    return { pcm, ms: Math.round(pcm.length / (LINE_RATE / 1000)) };
  }

  async close(): Promise<void> {}
}
