import { EngineError } from '../errors.ts';
import { HeardQueue, stopOn, type Heard, type RecognitionStream, type StreamOptions } from './streaming.ts';

// What the streaming recognizers reached over a WebSocket (deepgram/live.ts,
// vosk/live.ts, openai/realtime.ts) do alike, with Node's own WebSocket
// client (it takes headers: the providers' keys travel in Authorization):
// what is sent before the connection is open waits for it, after the
// engine's own first message (its configuration); a connection refused,
// dropped, or closed before the engine settled what it heard fails the
// stream with an EngineError that may pass (Node's client does not tell the
// HTTP status of a refused handshake); the signal's abort, a connection not
// open within `endTimeoutMs`, or no end within `endTimeoutMs` of end(), fails
// it too, as does a connection that does not take what is sent (over a
// minute of a line's audio waiting in its send buffer: the provider or the
// network has stalled). The engine's part says what its messages mean, how
// audio and the end are sent, and when it is done.

/** Bytes waiting to be sent beyond which the connection is taken for stalled (about a minute of 8 kHz 16-bit audio). */
const MAX_BUFFERED = 1_000_000;

export type SocketStreamOptions = StreamOptions & {
  /** How long the connection may take to open, and the engine to settle what it heard after end() (default 10 s). */
  endTimeoutMs?: number;
};

export abstract class SocketStream implements RecognitionStream {
  protected readonly queue = new HeardQueue();
  protected ended = false;
  private readonly ws: WebSocket;
  private opened = false;
  private readonly waiting: Array<string | Uint8Array> = [];
  private endTimer: NodeJS.Timeout | null = null;
  private openTimer: NodeJS.Timeout | null;
  private readonly onAbort = () => this.fail(new EngineError(`${this.what}: stopped`));

  /** The engine in errors (never with a key in it). */
  protected readonly what: string;
  protected readonly o: SocketStreamOptions;

  constructor(what: string, url: string, headers: Record<string, string>, o: SocketStreamOptions) {
    this.what = what;
    this.o = o;
    this.ws = new WebSocket(url, { headers });
    this.ws.binaryType = 'arraybuffer';
    // A connection that does not open within the time limit (a host that drops the packets) fails too.
    const limit = o.endTimeoutMs ?? 10_000;
    this.openTimer = setTimeout(() => this.fail(new EngineError(`${what} does not answer within ${limit} ms`)), limit);
    this.ws.addEventListener('open', () => {
      if (this.openTimer) clearTimeout(this.openTimer);
      this.openTimer = null;
      if (this.queue.settled) return this.ws.close();
      this.opened = true;
      try {
        this.opening();
        for (const m of this.waiting.splice(0)) this.ws.send(m);
      } catch (err) {
        this.fail(err);
      }
    });
    this.ws.addEventListener('message', (ev: MessageEvent) => {
      if (this.queue.settled) return;
      try {
        this.message(typeof ev.data === 'string' ? ev.data : new Uint8Array(ev.data as ArrayBuffer));
      } catch (err) {
        this.fail(err);
      }
    });
    // An error is followed by a close: the close decides.
    this.ws.addEventListener('error', () => {});
    this.ws.addEventListener('close', (ev: CloseEvent) => {
      if (this.queue.settled) return;
      if (!this.opened) return this.fail(new EngineError(`${what} does not answer, or refused the connection`));
      this.closed(ev.code, ev.reason);
    });
    stopOn(o.signal, this.queue, this.onAbort);
  }

  /** Sent first, once the connection is open (the configuration). */
  protected abstract opening(): void;
  /** One message of the engine's. Throwing fails the stream. */
  protected abstract message(data: string | Uint8Array): void;
  /** Audio to send, in the engine's form. */
  protected abstract audio(pcm: Int16Array): void;
  /** The end of the audio, in the engine's form. */
  protected abstract ending(): void;

  /** The connection closed while the stream was not settled: a failure unless the engine's part says it was its end. */
  protected closed(code: number, reason: string): void {
    this.fail(new EngineError(`${this.what} closed the connection before its final result (code ${code}${reason ? `: ${reason}` : ''})`));
  }

  /** A message to the engine (waits for the connection to open). */
  protected send(m: string | Uint8Array): void {
    if (this.queue.settled) return;
    if (!this.opened) {
      this.waiting.push(m);
      return;
    }
    if (this.ws.bufferedAmount > MAX_BUFFERED) return this.fail(new EngineError(`${this.what} does not take the audio sent (${this.ws.bufferedAmount} bytes waiting)`));
    this.ws.send(m);
  }

  protected push(h: Heard): void {
    this.queue.push(h);
  }

  write(pcm: Int16Array): void {
    if (this.ended || this.queue.settled || pcm.length === 0) return;
    try {
      this.audio(pcm);
    } catch (err) {
      this.fail(err);
    }
  }

  end(): void {
    if (this.ended || this.queue.settled) return;
    this.ended = true;
    const limit = this.o.endTimeoutMs ?? 10_000;
    this.endTimer = setTimeout(() => this.fail(new EngineError(`${this.what}: no final result within ${limit} ms of the end`)), limit);
    try {
      this.ending();
    } catch (err) {
      this.fail(err);
    }
  }

  /** The engine settled everything: the results end and the connection closes. */
  protected finish(): void {
    this.queue.finish();
    this.cleanup();
  }

  protected fail(err: unknown): void {
    this.queue.fail(err);
    this.cleanup();
  }

  private cleanup(): void {
    if (this.endTimer) clearTimeout(this.endTimer);
    if (this.openTimer) clearTimeout(this.openTimer);
    this.endTimer = null;
    this.openTimer = null;
    this.idle();
    // A connection still opening is abandoned (its handshake aborted).
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(1000);
  }

  /** Timers of the engine's part to clear when the stream settles. */
  protected idle(): void {}

  [Symbol.asyncIterator](): AsyncIterator<Heard> {
    return this.queue[Symbol.asyncIterator]();
  }
}

/** An http(s) address as its ws(s) one. */
export function wsAddress(url: string): string {
  return url.replace(/^http(s?):/i, 'ws$1:');
}
