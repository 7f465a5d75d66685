// The failure of one request to an engine, whatever its kind (translation,
// recognition, speech): what the fallback chain (fallback.ts) reads to
// retry, open a breaker or fall through to the next engine.

/** A failure of one request to an engine. */
export class EngineError extends Error {
  /** HTTP status, when the engine answered one. */
  readonly status: number | null;
  /** The engine asked to be left alone this long (429/503 with Retry-After). */
  readonly retryAfterMs: number | null;
  /** Retrying cannot help (401, 403, 400, a pair it does not have): go to the next engine at once. */
  readonly permanent: boolean;
  /**
   * The engine answered, and its answer was refused (translate/guard.ts: not a
   * translation of the text). Not a failure of the engine: its breaker is
   * not moved (a few injected phrases must not take it out for everyone),
   * nor is it asked again (it would answer the same).
   */
  readonly refused: boolean;
  constructor(message: string, o: { status?: number | null; retryAfterMs?: number | null; permanent?: boolean; refused?: boolean } = {}) {
    super(message);
    this.name = 'EngineError';
    this.status = o.status ?? null;
    this.retryAfterMs = o.retryAfterMs ?? null;
    this.permanent = o.permanent ?? false;
    this.refused = o.refused ?? false;
  }
}

/** Retry-After (seconds or an HTTP date) in milliseconds, or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const t = Date.parse(header);
  return Number.isNaN(t) ? null : Math.max(0, t - now);
}

/**
 * An HTTP answer that is not a success, as an EngineError: 429 and 503 carry
 * their Retry-After; 400, 401, 403, 404 and 456 (DeepL: quota exceeded) are
 * permanent for this request; other statuses may pass.
 */
export function httpError(engine: string, res: { status: number; headers: { get(name: string): string | null } }, body: string): EngineError {
  const permanent = [400, 401, 403, 404, 413, 456].includes(res.status);
  return new EngineError(`${engine} answered ${res.status}: ${body.slice(0, 200).replace(/\s+/g, ' ')}`, {
    status: res.status, retryAfterMs: retryAfterMs(res.headers.get('retry-after')), permanent,
  });
}

/** Any rejection as an EngineError (one that is not keeps its message). */
export function asEngineError(raw: unknown): EngineError {
  return raw instanceof EngineError ? raw : new EngineError(String((raw as Error)?.message ?? raw));
}
