import { EngineError, httpError } from '../errors.ts';
import { loadResampler, toLineRate } from '../speech/resample.ts';
import { ProviderLimits, speechFailure as failure } from '../speech/provider.ts';
import { SpeechError, type Speech, type SpeechSynthesizer } from '../speech/synthesizer.ts';

// ElevenLabs as a synthesizer (TOLK_SPEECH_ENGINES `elevenlabs`, key
// ELEVENLABS_API_KEY), and what speaks cloned voices. POST
// {url}/v1/text-to-speech/{voice_id}?output_format=pcm_16000 with the
// `xi-api-key` header and JSON {text, model_id}
// (https://elevenlabs.io/docs/api-reference/text-to-speech/convert) → raw
// 16 kHz 16-bit little-endian mono PCM, no header, resampled to the line's
// 8 kHz (resample.ts). (The API also offers pcm_8000; Speex's filter is a
// known quantity, so the resampling stays ours, as for the other engines.)
// No `language_code`: only the Turbo/Flash v2.5 models take one, and
// eleven_multilingual_v2 refuses a request that has it; the model reads the
// language from the text.
//
// The `voice` of synthesize() is the provider's voice id: that is how a
// voice cloned at ElevenLabs is spoken. Without one, `defaultVoice`: George
// (JBFqnCBsd6RMkjVDRZzb), one of the default ("premade") voices every
// account has, and the one ElevenLabs' own API examples speak with.
//
// Errors (the docs' "Error messages" page, elevenlabs/elevenlabs-docs
// fern/docs/pages/developer-guides/error-messages.mdx) are
// {"detail": {"status", "message"}}, or FastAPI's {"detail": [{loc, msg,
// type}]} for a request it cannot validate (422): 400/401 invalid_api_key,
// quota_exceeded, max_character_limit_exceeded; 404 voice_not_found (a
// clone since deleted); 403 only_for_creator+; 429 too_many_concurrent_requests
// or system_busy. Failures are SpeechError (the interface's), each with the
// EngineError behind it as its `cause` (status, Retry-After, permanent). The
// key only travels in its header, never in an error or a name.

/**
 * The languages of eleven_multilingual_v2, by primary language
 * (https://elevenlabs.io/docs/models: "en, ja, zh, de, hi, fr, ko, pt, it,
 * es, id, nl, tr, fil, pl, sv, bg, ro, ar, cs, el, fi, hr, ms, sk, da, ta,
 * uk, ru"). Filipino is also asked for as Tagalog (`tl`), its basis.
 */
export const MULTILINGUAL_V2_LANGUAGES: readonly string[] = [
  'en', 'ja', 'zh', 'de', 'hi', 'fr', 'ko', 'pt', 'it', 'es', 'id', 'nl', 'tr', 'fil', 'tl',
  'pl', 'sv', 'bg', 'ro', 'ar', 'cs', 'el', 'fi', 'hr', 'ms', 'sk', 'da', 'ta', 'uk', 'ru',
];

/** George, a default voice of every account. */
export const ELEVENLABS_DEFAULT_VOICE = 'JBFqnCBsd6RMkjVDRZzb';

const RATE = 16_000;
const LINE_RATE = 8_000;

export type ElevenLabsSynthesizerOptions = {
  apiKey: string;
  /** Default https://api.elevenlabs.io. */
  url?: string;
  /** Default eleven_multilingual_v2. */
  model?: string;
  /** The voice id spoken when the caller names none (default George). */
  defaultVoice?: string;
  /** The languages the model speaks, when it is not eleven_multilingual_v2. */
  langs?: readonly string[];
  /** Gives up on a synthesis after this long (default 10 s). */
  timeoutMs?: number;
};

export class ElevenLabsSynthesizer implements SpeechSynthesizer {
  readonly name = 'elevenlabs';
  readonly url: string;
  requests = 0;
  private readonly apiKey: string;
  private readonly model: string;
  private readonly defaultVoice: string;
  private readonly limits: ProviderLimits;

  constructor(o: ElevenLabsSynthesizerOptions) {
    this.apiKey = o.apiKey;
    this.url = (o.url ?? 'https://api.elevenlabs.io').replace(/\/+$/, '');
    this.model = o.model ?? 'eleven_multilingual_v2';
    this.defaultVoice = o.defaultVoice ?? ELEVENLABS_DEFAULT_VOICE;
    this.limits = new ProviderLimits({ langs: o.langs ?? MULTILINGUAL_V2_LANGUAGES, timeoutMs: o.timeoutMs });
  }

  speaks(lang: string): boolean {
    return this.limits.takes(lang);
  }

  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    if (!this.speaks(lang)) throw failure(new EngineError(`elevenlabs ${this.model} does not speak ${lang}`, { permanent: true }));
    if (!text.trim()) throw failure(new EngineError('elevenlabs: nothing to say', { permanent: true }));
    await loadResampler();
    const voiceId = voice || this.defaultVoice;
    const signal = this.limits.signal();
    this.requests++;
    let bytes: Uint8Array;
    try {
      const res = await fetch(`${this.url}/v1/text-to-speech/${encodeURIComponent(voiceId)}?output_format=pcm_${RATE}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': this.apiKey },
        body: JSON.stringify({ text, model_id: this.model }),
        signal,
      });
      if (!res.ok) {
        const body = await res.text();
        throw failure(httpError(this.name, res, this.apiKey ? body.split(this.apiKey).join('[key]') : body));
      }
      bytes = new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      if (err instanceof SpeechError) throw err;
      if (signal.aborted) throw failure(new EngineError('elevenlabs: no answer in time'));
      throw failure(new EngineError(`elevenlabs at ${this.url} does not answer: ${(err as Error).message}`));
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const samples = new Int16Array(Math.floor(bytes.length / 2));
    for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
    if (samples.length === 0) throw failure(new EngineError('elevenlabs: no audio'));
    const pcm = toLineRate(samples, RATE);
    return { pcm, ms: Math.round(pcm.length / (LINE_RATE / 1000)) };
  }

  async close(): Promise<void> {}
}
