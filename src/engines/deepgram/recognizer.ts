import { EngineError, httpError } from '../errors.ts';
import { baseLang } from '../translate/engine.ts';
import { ProviderLimits } from '../speech/provider.ts';
import type { HeardUtterance, SpeechRecognizer } from '../speech/recognizer.ts';
import { failedStream, type RecognitionStream, type StreamOptions, type StreamingRecognizer } from '../speech/streaming.ts';
import { encodeWav } from '../speech/wav.ts';
import { DeepgramLiveStream } from './live.ts';

// Deepgram's pre-recorded API as a recognizer (TOLK_RECOGNIZE `deepgram`, key
// DEEPGRAM_API_KEY): one request per utterance
// (https://developers.deepgram.com/reference/speech-to-text-api/listen):
// POST {url}/v1/listen?model=nova-2&language=<code>&smart_format=true with
// `Authorization: Token <key>` and `Content-Type: audio/wav`, the body the
// utterance as an 8 kHz 16-bit mono WAV file → {metadata, results: {channels:
// [{alternatives: [{transcript, confidence, words}]}]}}. An empty transcript
// is silence or noise: null. Errors come as {err_code, err_msg, request_id}
// (https://developers.deepgram.com/docs/errors): 400 a model/language
// combination it lacks or audio it cannot read, 401 a bad key, 403 a key
// without the permission, 429 over the account's concurrency, 5xx its own
// trouble. The key only travels in the Authorization header; `url` (an
// operator's proxy, tests) replaces https://api.deepgram.com.
//
// open() hears while the speaker speaks, over Deepgram's live WebSocket
// (live.ts): partials as Deepgram guesses, a final per phrase.

/**
 * The language codes nova-2 takes (https://developers.deepgram.com/docs/models-languages-overview;
 * the 36 languages of https://developers.deepgram.com/changelog/2024/5/14):
 * a tag listed here is sent as it is (`pt-BR`, `en-GB`, `es-419`), any
 * other tag by its primary language when that is listed (`pt-PT` → `pt`).
 */
export const NOVA2_LANGUAGES: readonly string[] = [
  'bg', 'ca', 'cs', 'da', 'da-DK', 'de', 'de-CH', 'el',
  'en', 'en-AU', 'en-GB', 'en-IN', 'en-NZ', 'en-US',
  'es', 'es-419', 'et', 'fi', 'fr', 'fr-CA', 'hi', 'hu', 'id', 'it', 'ja',
  'ko', 'ko-KR', 'lt', 'lv', 'ms', 'nl', 'nl-BE', 'no', 'pl', 'pt', 'pt-BR',
  'ro', 'ru', 'sk', 'sv', 'sv-SE', 'th', 'th-TH', 'tr', 'uk', 'vi',
  'zh', 'zh-CN', 'zh-Hans', 'zh-Hant', 'zh-TW',
];

/** Tags Deepgram knows under another primary language: Norwegian Bokmål and Nynorsk are `no`. */
const ALIASES: Record<string, string> = { nb: 'no', nn: 'no' };

export type DeepgramRecognizerOptions = {
  apiKey: string;
  /** Default https://api.deepgram.com. */
  url?: string;
  /** Default `nova-2`. */
  model?: string;
  /** The codes the model takes, when it is not nova-2 (same form as NOVA2_LANGUAGES). */
  langs?: readonly string[];
  /** Gives up on an utterance after this long (default 10 s), besides the caller's signal. */
  timeoutMs?: number;
  /** A stream's endpointing: milliseconds of silence that end a phrase (default 300; Deepgram's own default is 10). */
  endpointingMs?: number;
};

export class DeepgramRecognizer implements SpeechRecognizer, StreamingRecognizer {
  readonly name = 'deepgram';
  readonly url: string;
  requests = 0;
  private readonly apiKey: string;
  private readonly model: string;
  /** Lower-case code → Deepgram's spelling of it. */
  private readonly codes: ReadonlyMap<string, string>;
  /** Its time limit (its languages are the model's codes, kept as Deepgram spells them). */
  private readonly limits: ProviderLimits;
  private readonly endpointingMs: number | undefined;

  constructor(o: DeepgramRecognizerOptions) {
    this.apiKey = o.apiKey;
    this.url = (o.url ?? 'https://api.deepgram.com').replace(/\/+$/, '');
    this.model = o.model ?? 'nova-2';
    this.codes = new Map((o.langs ?? NOVA2_LANGUAGES).map((c) => [c.toLowerCase(), c]));
    this.limits = new ProviderLimits({ timeoutMs: o.timeoutMs });
    this.endpointingMs = o.endpointingMs;
  }

  /** Deepgram's `language` for a service tag, or undefined when the model lacks it. */
  languageCode(lang: string): string | undefined {
    const tag = lang.trim().toLowerCase();
    const base = baseLang(tag);
    return this.codes.get(tag) ?? this.codes.get(base) ?? this.codes.get(ALIASES[base] ?? '');
  }

  streamsAsSpoken(lang: string): boolean {
    return this.hears(lang);
  }

  hears(lang: string): boolean {
    return this.languageCode(lang) !== undefined;
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }> {
    const language = this.languageCode(u.lang);
    if (!language) throw new EngineError(`deepgram ${this.model} does not hear ${u.lang}`, { permanent: true });
    if (u.pcm.length === 0) return { text: null };
    const query = new URLSearchParams({ model: this.model, language, smart_format: 'true' });
    const abort = this.limits.signal(signal);
    this.requests++;
    let res: Response;
    let body: string;
    try {
      res = await fetch(`${this.url}/v1/listen?${query}`, {
        method: 'POST',
        headers: { authorization: `Token ${this.apiKey}`, 'content-type': 'audio/wav' },
        body: encodeWav(u.pcm),
        signal: abort,
      });
      body = await res.text();
    } catch (err) {
      if (abort.aborted) throw new EngineError('deepgram: no answer in time');
      throw new EngineError(`deepgram at ${this.url} does not answer: ${(err as Error).message}`);
    }
    if (!res.ok) throw httpError(this.name, res, this.apiKey ? body.split(this.apiKey).join('[key]') : body);
    let transcript: unknown;
    try {
      transcript = (JSON.parse(body) as DeepgramResponse).results?.channels?.[0]?.alternatives?.[0]?.transcript;
    } catch {
      transcript = undefined;
    }
    if (typeof transcript !== 'string') throw new EngineError('deepgram: an answer without results.channels[0].alternatives[0].transcript');
    return { text: transcript.trim() || null };
  }

  /** A live stream for one speaker (live.ts). */
  open(o: StreamOptions): RecognitionStream {
    const language = this.languageCode(o.lang);
    if (!language) return failedStream(new EngineError(`deepgram ${this.model} does not hear ${o.lang}`, { permanent: true }));
    this.requests++;
    return new DeepgramLiveStream({
      ...o, url: this.url, apiKey: this.apiKey, model: this.model, language, endTimeoutMs: this.limits.timeoutMs,
      ...(this.endpointingMs !== undefined ? { endpointingMs: this.endpointingMs } : {}),
    });
  }

  async close(): Promise<void> {}
}

type DeepgramResponse = {
  results?: { channels?: Array<{ alternatives?: Array<{ transcript?: unknown }> }> };
};
