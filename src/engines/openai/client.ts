import { EngineError, httpError } from '../errors.ts';

// One OpenAI-compatible server (OpenAI itself, or any server speaking its
// API: whisper.cpp, speaches, Kokoro-FastAPI, LocalAI, vLLM...), as its
// translation (translate.ts), recognition (stt.ts) and speech (tts.ts) ask
// it: its address as the operator wrote it (with or without `/v1`, a
// trailing slash or not), the key in the Authorization header, and a server
// that does not answer as an EngineError. The key never appears in an error
// or a name: error bodies are redacted.

/**
 * An OpenAI-compatible server's address as the operator wrote it: `url` for
 * logs, `api` the base the paths hang from, ending in /v1.
 */
export function openaiBase(raw: string): { url: string; api: string } {
  const url = raw.replace(/\/+$/, '');
  return { url, api: /\/v1$/.test(url) ? url : `${url}/v1` };
}

export class OpenAIClient {
  /** Where it answers (logs; never with a key in it). */
  readonly url: string;
  /** The base the paths hang from, ending in /v1. */
  readonly api: string;
  private readonly apiKey: string | undefined;

  constructor(url: string, apiKey?: string) {
    ({ url: this.url, api: this.api } = openaiBase(url));
    this.apiKey = apiKey || undefined;
  }

  /** The Authorization header, where there is a key. */
  headers(): Record<string, string> {
    return this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
  }

  /**
   * `path` (`/audio/speech`) asked with init, and the answer read whole: a
   * success `as` bytes when asked (`bytes`), else as text (`body`). A server
   * that does not answer, or not before the signal aborts, is an EngineError
   * named by `what`.
   */
  async send(path: string, init: RequestInit & { signal: AbortSignal }, what: string, as: 'text' | 'bytes' = 'text'): Promise<{ res: Response; body: string; bytes: Uint8Array | null }> {
    try {
      const res = await fetch(`${this.api}${path}`, { ...init, headers: { ...this.headers(), ...(init.headers as Record<string, string> | undefined) } });
      if (as === 'bytes' && res.ok) return { res, body: '', bytes: new Uint8Array(await res.arrayBuffer()) };
      return { res, body: await res.text(), bytes: null };
    } catch (err) {
      if (init.signal.aborted) throw new EngineError(`${what}: no answer in time`);
      throw new EngineError(`openai at ${this.url} does not answer: ${(err as Error).message}`);
    }
  }

  /** A failed answer as an EngineError (status, Retry-After, permanent), its body without the key. */
  failure(res: Response, body: string): EngineError {
    return httpError('openai', res, this.redact(body));
  }

  /** The key, and a masked echo of it (OpenAI's 401 shows its first and last characters), out of an error body. */
  redact(body: string): string {
    const plain = this.apiKey ? body.split(this.apiKey).join('[key]') : body;
    return plain.replace(/\S*\*{3,}\S*/g, '[key]');
  }
}
