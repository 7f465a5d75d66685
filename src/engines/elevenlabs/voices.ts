import { EngineError, retryAfterMs } from '../errors.ts';
import type { Config } from '../../config.ts';
import type { Speech, SpeechSynthesizer } from '../speech/synthesizer.ts';

// ElevenLabs as the cloning engine: a voice made from a recording (instant
// voice cloning) and deleted again. The cloning engine is configured exactly
// when `elevenlabs` is among TOLK_SPEECH_ENGINES and ELEVENLABS_API_KEY is
// set: the synthesizer that speaks the voices it makes is then there too.
// Its address is the synthesizer's (`elevenlabs=URL`, default
// https://api.elevenlabs.io).
//
// - Add: POST {url}/v1/voices/add, multipart/form-data with `name`, `files`
//   (the audio), `description` and `labels` (a JSON object as a string),
//   header `xi-api-key` → {"voice_id", "requires_verification"}
//   (https://elevenlabs.io/docs/api-reference/voices/add).
// - Delete: DELETE {url}/v1/voices/{voice_id}, header `xi-api-key` →
//   {"status": "ok"} (https://elevenlabs.io/docs/api-reference/voices/delete).
//
// Failures are EngineError (status, Retry-After, permanent). A 4xx other
// than 408, 409, 425 and 429 is permanent: the same request cannot succeed
// (400/422 a file it refuses, 401 a key it refuses or a quota used up, 403,
// 404, 413). The key only travels in its header, never in an error.

export type ClonedVoice = { voiceId: string; requiresVerification: boolean };

export type CloneRequest = {
  name: string;
  audio: Uint8Array;
  contentType: string;
  description?: string;
  labels?: Record<string, string>;
};

export interface CloningEngine {
  /** Its name, as the voice row records it (`voices.provider`). */
  readonly name: 'elevenlabs';
  readonly url: string;
  /** A voice made from the recording at the provider. */
  add(r: CloneRequest): Promise<ClonedVoice>;
  /** The provider's voice deleted; a voice the provider does not have (404) counts as deleted. */
  remove(voiceId: string): Promise<void>;
}

const EXTENSIONS: Record<string, string> = { 'audio/webm': 'webm', 'audio/ogg': 'ogg', 'audio/mp4': 'm4a', 'audio/wav': 'wav', 'audio/mpeg': 'mp3' };

export class ElevenLabsVoices implements CloningEngine {
  readonly name = 'elevenlabs';
  readonly url: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;

  constructor(o: { apiKey: string; url?: string; timeoutMs?: number }) {
    this.apiKey = o.apiKey;
    this.url = (o.url ?? 'https://api.elevenlabs.io').replace(/\/+$/, '');
    this.timeoutMs = o.timeoutMs ?? 60_000;
  }

  async add(r: CloneRequest): Promise<ClonedVoice> {
    const form = new FormData();
    form.append('name', r.name);
    const type = r.contentType.split(';')[0]!.trim();
    form.append('files', new Blob([r.audio], { type }), `consent.${EXTENSIONS[type] ?? 'bin'}`);
    if (r.description) form.append('description', r.description);
    if (r.labels && Object.keys(r.labels).length > 0) form.append('labels', JSON.stringify(r.labels));
    const res = await this.request('POST', '/v1/voices/add', form);
    let body: { voice_id?: unknown; requires_verification?: unknown };
    try {
      body = (await res.json()) as typeof body;
    } catch {
      throw new EngineError(`elevenlabs answered ${res.status} with a body that is not JSON`);
    }
    if (typeof body.voice_id !== 'string' || body.voice_id === '') throw new EngineError(`elevenlabs answered ${res.status} without a voice_id`);
    return { voiceId: body.voice_id, requiresVerification: body.requires_verification === true };
  }

  async remove(voiceId: string): Promise<void> {
    try {
      await this.request('DELETE', `/v1/voices/${encodeURIComponent(voiceId)}`);
    } catch (err) {
      if (err instanceof EngineError && err.status === 404) return;
      throw err;
    }
  }

  private async request(method: string, path: string, body?: FormData): Promise<Response> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(`${this.url}${path}`, { method, headers: { 'xi-api-key': this.apiKey, accept: 'application/json' }, body, signal });
    } catch (err) {
      if (signal.aborted) throw new EngineError(`elevenlabs at ${this.url}: no answer in time`);
      throw new EngineError(`elevenlabs at ${this.url} does not answer: ${(err as Error).message}`);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      const shown = (this.apiKey ? text.split(this.apiKey).join('[key]') : text).slice(0, 300).replace(/\s+/g, ' ');
      throw new EngineError(`elevenlabs answered ${res.status} to ${method} ${path.replace(/\/v1\/voices\/(?!add).*/, '/v1/voices/{voice_id}')}: ${shown}`, {
        status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), permanent: permanentStatus(res.status),
      });
    }
    return res;
  }
}

/** A status that the same request cannot get past by waiting. */
export function permanentStatus(status: number): boolean {
  return status >= 400 && status < 500 && ![408, 409, 425, 429].includes(status);
}

/** The `elevenlabs[=URL]` entry of TOLK_SPEECH_ENGINES, or undefined. */
function elevenlabsSpec(c: Pick<Config, 'speechEngines'>): string | undefined {
  return c.speechEngines.find((e) => e === 'elevenlabs' || e.startsWith('elevenlabs='));
}

/** The configured cloning engine, or null when the operator configured none (live cloning then answers 501). */
export function cloningEngineOf(c: Pick<Config, 'speechEngines' | 'speechKeys'>): CloningEngine | null {
  const spec = elevenlabsSpec(c);
  const apiKey = c.speechKeys.elevenlabs;
  if (!spec || !apiKey) return null;
  const url = spec.split(/=(.*)/s)[1];
  return new ElevenLabsVoices({ apiKey, ...(url ? { url } : {}) });
}

/** How the synthesizer is asked for a cloned voice: the cloning engine's name, a colon, the provider's voice id. */
export function clonedVoiceRef(provider: string, voiceId: string): string {
  return `${provider}:${voiceId}`;
}

/**
 * The synthesizers with the cloned voices: a voice `elevenlabs:<voice_id>`
 * (clonedVoiceRef) is spoken by the ElevenLabs synthesizer with that voice,
 * whatever engine comes first for the language; when it cannot (it does not
 * speak the language, or fails), the phrase is spoken by the engines as
 * any other, with their default voice. Any other voice goes to the engines
 * as it is.
 */
export class WithClonedVoices implements SpeechSynthesizer {
  readonly name: string;
  private readonly engines: SpeechSynthesizer;
  private readonly elevenlabs: SpeechSynthesizer | undefined;

  constructor(engines: SpeechSynthesizer, elevenlabs: SpeechSynthesizer | undefined) {
    this.engines = engines;
    this.elevenlabs = elevenlabs;
    this.name = engines.name;
  }

  speaks(lang: string): boolean {
    return this.engines.speaks(lang);
  }

  async synthesize(text: string, lang: string, voice?: string): Promise<Speech> {
    const cloned = voice?.startsWith('elevenlabs:') ? voice.slice('elevenlabs:'.length) : undefined;
    if (cloned === undefined) return this.engines.synthesize(text, lang, voice);
    if (this.elevenlabs?.speaks(lang)) {
      try {
        return await this.elevenlabs.synthesize(text, lang, cloned);
      } catch (err) {
        if (!this.engines.speaks(lang)) throw err;
      }
    }
    return this.engines.synthesize(text, lang);
  }

  close(): Promise<void> {
    return this.engines.close();
  }
}
