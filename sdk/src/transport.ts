// One request to the API, with what clients get wrong done once:
//
// - Idempotency-Key: every create (api.md section 8 lists them) carries one, generated
//   here unless the caller passes its own, and the same key is sent on each retry, so a
//   retried create makes one object.
// - api.md's retry rule: 429 and 5xx are retried with exponential backoff and jitter,
//   honouring Retry-After; other 4xx are not, except 409 idempotency_in_progress. Two
//   choices where api.md is silent: 501 not_available_yet is not retried (it is an
//   answer about the key's mode, not a passing state), and a Retry-After longer than a
//   minute (a test key's spent day) is thrown at once rather than waited out.
// - A request that got no answer (connection reset, timeout) is retried only when
//   repeating it cannot do a thing twice: reads, deletes, creates with their key, and
//   the operations the API makes idempotent; or when the connection was refused (the
//   request was never sent).
// - A timeout per attempt (default 60 s); the caller's AbortSignal ends it all.
// - The rate-limit headers of the last answer: `Tolk.rateLimit`, and `lastResponse` on
//   each result.

import { errorOf, TolkConnectionError, TolkError } from './errors.ts';
import { responseInfo, withResponse, type RateLimit, type ResponseInfo, type WithResponse } from './response.ts';

export type ClientOptions = {
  /** Where the API answers, without /v1 (default http://localhost:8080, what `npm start` serves). */
  baseUrl?: string;
  /** Retries of a failed request (default 2: three attempts). */
  maxRetries?: number;
  /** Milliseconds one attempt may take (default 60,000). */
  timeout?: number;
  /** The fetch to use (default the platform's). */
  fetch?: typeof fetch;
};

export type RequestOptions = {
  /** Idempotency-Key of a create (default: a new UUID for this call, kept across its retries). */
  idempotencyKey?: string;
  /** Milliseconds one attempt may take; overrides the client's. */
  timeout?: number;
  /** Retries of this request; overrides the client's. */
  maxRetries?: number;
  /** Ends the request (and its retries) when aborted. */
  signal?: AbortSignal;
};

/**
 * What repeating a request can do: `key` = a create, made once per
 * Idempotency-Key; `safe` = nothing twice (reads, deletes, idempotent
 * operations); `once` = might act twice (say, rotate a secret…).
 */
export type Repeat = 'key' | 'safe' | 'once';

export type Operation = {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  query?: object | undefined;
  body?: unknown;
  repeat: Repeat;
};

/** Longest Retry-After waited out, in seconds; a longer one is thrown to the caller. */
export const MAX_RETRY_AFTER_S = 60;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Exponential backoff with jitter: half of min(8 s, 0.5 s × 2^attempt) fixed, the other half random. */
export function backoff(attempt: number): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** attempt);
  return cap / 2 + Math.random() * (cap / 2);
}

/**
 * Whether api.md's rule retries this error, and after how long (ms); null: no.
 * `repeat` says whether a request that got no answer may be sent again.
 */
export function retryDelay(err: TolkError, attempt: number, repeat: Repeat): number | null {
  if (err instanceof TolkConnectionError) {
    const refused = err.code === 'connection_error' && refusedConnection(err.cause);
    return repeat !== 'once' || refused ? backoff(attempt) : null;
  }
  const retry = err.status === 429 || (err.status >= 500 && err.status !== 501) || (err.status === 409 && err.code === 'idempotency_in_progress');
  if (!retry) return null;
  const after = err.retryAfter;
  if (after !== null && after > MAX_RETRY_AFTER_S) return null;
  return Math.max(backoff(attempt), (after ?? 0) * 1000);
}

/** A connection the server refused: the request never left (Node's fetch says ECONNREFUSED in its cause). */
function refusedConnection(cause: unknown): boolean {
  for (let c = cause, depth = 0; c && depth < 4; c = (c as { cause?: unknown }).cause, depth++) {
    if ((c as { code?: unknown }).code === 'ECONNREFUSED') return true;
  }
  return false;
}

/** Waits ms, or rejects with the signal's reason when it is aborted first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function queryString(q: object | undefined): string {
  if (!q) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) params.append(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === '') return null;
  if (/json/i.test(res.headers.get('content-type') ?? '')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** A new Idempotency-Key (a random UUID from the platform). */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

export class Transport {
  /** The rate-limit headers of the last answer that had them. */
  rateLimit: RateLimit | null = null;
  readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly o: Required<Omit<ClientOptions, 'baseUrl' | 'fetch'>> & { fetch: typeof fetch };

  constructor(apiKey: string, o: ClientOptions = {}) {
    if (typeof apiKey !== 'string' || apiKey.trim() === '') throw new TypeError('Tolk: an API key is required (new Tolk(apiKey, { baseUrl }))');
    this.apiKey = apiKey;
    this.baseUrl = (o.baseUrl ?? 'http://localhost:8080').replace(/\/+$/, '');
    this.o = { maxRetries: o.maxRetries ?? 2, timeout: o.timeout ?? 60_000, fetch: o.fetch ?? globalThis.fetch.bind(globalThis) };
  }

  async request<T>(call: Operation, opts: RequestOptions = {}): Promise<WithResponse<T>> {
    const key = call.repeat === 'key' ? (opts.idempotencyKey ?? newIdempotencyKey()) : null;
    const maxRetries = opts.maxRetries ?? this.o.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let err: TolkError;
      try {
        const { info, body } = await this.once(call, key, opts);
        if (info.status < 300) return withResponse(body as T, info);
        err = errorOf(info, body);
      } catch (e) {
        if (!(e instanceof TolkError)) throw e;
        err = e;
      }
      const delay = attempt < maxRetries ? retryDelay(err, attempt, call.repeat) : null;
      if (delay === null) throw err;
      await sleep(delay, opts.signal);
    }
  }

  /** One attempt: the answer's details and parsed body, or a TolkConnectionError when none came. */
  private async once(call: Operation, key: string | null, opts: RequestOptions): Promise<{ info: ResponseInfo; body: unknown }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' };
    if (key !== null) headers['idempotency-key'] = key;
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const timeout = opts.timeout ?? this.o.timeout;
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(new TolkConnectionError({ code: 'timeout', status: 0, message: `${call.method} ${call.path}: no answer in ${timeout} ms`, request_id: null })), timeout);
    const onAbort = () => ctl.abort(opts.signal!.reason);
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.o.fetch(`${this.baseUrl}${call.path}${queryString(call.query)}`, {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: ctl.signal,
      });
      const body = await readBody(res);
      const info = responseInfo(res, key);
      if (info.rateLimit) this.rateLimit = info.rateLimit;
      return { info, body };
    } catch (e) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (ctl.signal.aborted && ctl.signal.reason instanceof TolkConnectionError) throw ctl.signal.reason;
      throw new TolkConnectionError({ code: 'connection_error', status: 0, message: `${call.method} ${call.path}: ${(e as Error).message ?? e}`, request_id: null, cause: e });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}
