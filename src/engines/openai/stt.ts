import { EngineError } from '../errors.ts';
import { ProviderLimits } from '../speech/provider.ts';
import type { HeardUtterance, SpeechRecognizer } from '../speech/recognizer.ts';
import { WholeUtteranceStream, type RecognitionStream, type StreamOptions, type StreamingRecognizer } from '../speech/streaming.ts';
import { encodeWav } from '../speech/wav.ts';
import { baseLang } from '../translate/engine.ts';
import { OpenAIClient } from './client.ts';
import { OpenAIRealtimeStream } from './realtime.ts';

// Any OpenAI-compatible transcription server as a recognizer (TOLK_RECOGNIZE
// `openai=URL`, model TOLK_OPENAI_STT_MODEL): OpenAI itself, whisper.cpp's
// server, faster-whisper servers (speaches), LocalAI. Per utterance, POST
// {base}/v1/audio/transcriptions as multipart/form-data
// (https://platform.openai.com/docs/api-reference/audio/createTranscription):
// `file` (the utterance as an 8 kHz 16-bit mono WAV file, named *.wav with
// type audio/wav: the API identifies the format by them), `model`,
// `language` (ISO-639-1: the primary language of the call's remote_lang;
// left out for a language without a two-letter code, for the model to
// detect) and `response_format` json → {"text": ...}. With a key,
// `Authorization: Bearer <key>`; the key never appears in errors or names.
// The URL is the server's address with or without its `/v1`.
//
// Whisper-class models are multilingual: it hears any language unless the
// operator lists some (`langs`). Silence or noise comes back as empty (or
// whitespace) text: no words, null.
//
// open() hears while the speaker speaks over OpenAI's realtime transcription
// (realtime.ts) where the server has it: OpenAI itself by default, any
// other server when the operator says so (`realtime`); elsewhere a stream
// is read whole at its end (speech/streaming.ts WholeUtteranceStream).

export type OpenAIRecognizerOptions = {
  url: string;
  apiKey?: string;
  model: string;
  /** The languages it hears; any language when absent. */
  langs?: readonly string[];
  /** Gives up on an utterance after this long (default 10 s), besides the caller's signal. */
  timeoutMs?: number;
  /** Whether the server has realtime transcription (`beta`: its beta interface); default: only api.openai.com. */
  realtime?: boolean | 'beta';
};

export class OpenAIRecognizer implements SpeechRecognizer, StreamingRecognizer {
  readonly name = 'openai';
  /** Where it answers (logs; never with a key in it). */
  readonly url: string;
  requests = 0;
  private readonly client: OpenAIClient;
  private readonly model: string;
  private readonly limits: ProviderLimits;
  private readonly realtime: boolean | 'beta';
  private readonly apiKey: string | undefined;

  constructor(o: OpenAIRecognizerOptions) {
    this.client = new OpenAIClient(o.url, o.apiKey);
    this.url = this.client.url;
    this.apiKey = o.apiKey || undefined;
    this.realtime = o.realtime ?? new URL(this.client.api).hostname === 'api.openai.com';
    this.model = o.model;
    this.limits = new ProviderLimits(o);
  }

  hears(lang: string): boolean {
    return this.limits.takes(lang);
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }> {
    if (u.pcm.length === 0) return { text: null };
    const form = new FormData();
    form.append('file', new Blob([encodeWav(u.pcm)], { type: 'audio/wav' }), 'utterance.wav');
    form.append('model', this.model);
    const lang = baseLang(u.lang);
    if (/^[a-z]{2}$/.test(lang)) form.append('language', lang);
    form.append('response_format', 'json');

    const abort = this.limits.signal(signal);
    this.requests++;
    // fetch sets the multipart Content-Type with its boundary itself.
    const { res, body } = await this.client.send('/audio/transcriptions', { method: 'POST', body: form, signal: abort }, 'openai transcription');
    if (!res.ok) throw this.client.failure(res, body);
    let text: unknown;
    try {
      text = (JSON.parse(body) as { text?: unknown }).text;
    } catch {
      text = undefined;
    }
    if (typeof text !== 'string') throw new EngineError('openai transcription: an answer without text');
    const said = text.trim();
    return { text: said || null };
  }

  streamsAsSpoken(lang: string): boolean {
    return Boolean(this.realtime) && this.hears(lang);
  }

  /** A stream for one speaker: realtime transcription where the server has it, else read whole at its end. */
  open(o: StreamOptions): RecognitionStream {
    if (!this.realtime) return new WholeUtteranceStream(this, o);
    const lang = baseLang(o.lang);
    this.requests++;
    return new OpenAIRealtimeStream({
      ...o, api: this.client.api, model: this.model, endTimeoutMs: this.limits.timeoutMs, beta: this.realtime === 'beta',
      ...(this.apiKey ? { apiKey: this.apiKey } : {}), ...(/^[a-z]{2}$/.test(lang) ? { language: lang } : {}),
    });
  }

  async close(): Promise<void> {}
}
