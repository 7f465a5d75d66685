import { EngineError } from '../errors.ts';
import { ProviderLimits } from '../speech/provider.ts';
import type { HeardUtterance, SpeechRecognizer } from '../speech/recognizer.ts';
import { failedStream, type RecognitionStream, type StreamOptions, type StreamingRecognizer } from '../speech/streaming.ts';
import { pcm16le } from '../speech/wav.ts';
import { VoskLiveStream } from './live.ts';

// A vosk-server as a recognizer (TOLK_RECOGNIZE `vosk=ws://host:2700`), over
// its WebSocket protocol (https://github.com/alphacep/vosk-server,
// websocket/asr_server.py and websocket/test.py). One connection per
// utterance, with Node's own WebSocket client:
//  1. a text message {"config": {"sample_rate": 8000}} (the server reads any
//     text message containing `config` as one, and answers nothing);
//  2. the audio as binary messages of 16-bit little-endian mono PCM, 8000
//     bytes (half a second) each; the server answers each with one JSON
//     message: {"partial": "..."} while a phrase goes on, or
//     {"result": [...words], "text": "..."} when it found the end of one;
//  3. the text message `{"eof" : 1}`, spelt exactly so: the server compares
//     the message with that string, spaces included, and anything else is
//     taken for audio. It answers the final {"text": "..."} (with
//     {"alternatives": [{"text", "confidence"}]} instead when the operator
//     set VOSK_ALTERNATIVES) and closes the connection.
// What was said is every `text` of the connection in order (a pause inside
// the utterance ends a phrase early, and the final result only holds what
// came after it); none, or only empty ones, is null. A server that does not
// answer in time, or closes before its final result, is an EngineError that
// may pass.
//
// open() hears while the speaker speaks, over the same protocol (live.ts).
//
// A vosk-server runs one model, so it hears the language of that model
// only, and nothing in the protocol says which: the operator tells
// (`langs`, which the caller reads from TOLK_VOSK_LANGS, `en` by default).

/** Half a second of 8 kHz 16-bit audio per message. */
const CHUNK_BYTES = 8_000;
/** The end of the audio, exactly as asr_server.py compares it. */
const EOF = '{"eof" : 1}';

export type VoskRecognizerOptions = {
  /** ws://host:2700 */
  url: string;
  /** The language(s) of the server's model (TOLK_VOSK_LANGS). */
  langs: readonly string[];
  /** Gives up on an utterance after this long (default 10 s), besides the caller's signal. */
  timeoutMs?: number;
};

type VoskMessage = { partial?: unknown; text?: unknown; alternatives?: Array<{ text?: unknown }> };

/** The text of a result message, '' for none, or undefined for a partial one. */
function resultText(m: VoskMessage): string | undefined {
  if (typeof m.text === 'string') return m.text.trim();
  const alt = m.alternatives?.[0]?.text;
  return typeof alt === 'string' ? alt.trim() : undefined;
}

export class VoskRecognizer implements SpeechRecognizer, StreamingRecognizer {
  readonly name = 'vosk';
  /** Where it answers, without any user:password in it (logs, errors). */
  readonly url: string;
  requests = 0;
  private readonly address: string;
  private readonly limits: ProviderLimits;

  constructor(o: VoskRecognizerOptions) {
    const u = new URL(o.url);
    if (u.protocol !== 'ws:' && u.protocol !== 'wss:') throw new Error(`vosk: ${u.protocol}// is not a WebSocket address (ws:// or wss://)`);
    this.address = o.url;
    u.username = '';
    u.password = '';
    this.url = u.toString().replace(/\/$/, '');
    this.limits = new ProviderLimits(o);
  }

  streamsAsSpoken(lang: string): boolean {
    return this.hears(lang);
  }

  hears(lang: string): boolean {
    return this.limits.takes(lang);
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }> {
    if (!this.hears(u.lang)) throw new EngineError(`vosk at ${this.url} does not hear ${u.lang}`, { permanent: true });
    if (u.pcm.length === 0) return { text: null };
    const abort = this.limits.signal(signal);
    if (abort.aborted) throw new EngineError('vosk: no answer in time');
    this.requests++;
    const audio = pcm16le(u.pcm);
    const chunks = Math.ceil(audio.length / CHUNK_BYTES);

    return new Promise((resolve, reject) => {
      const ws = new WebSocket(this.address);
      const texts: string[] = [];
      let answers = 0;
      let opened = false;
      let settled = false;

      const finish = (err: EngineError | null) => {
        if (settled) return;
        settled = true;
        abort.removeEventListener('abort', onAbort);
        ws.close();
        if (err) reject(err);
        else resolve({ text: texts.filter(Boolean).join(' ') || null });
      };
      const onAbort = () => finish(new EngineError('vosk: no answer in time'));
      abort.addEventListener('abort', onAbort, { once: true });

      ws.addEventListener('open', () => {
        opened = true;
        ws.send(JSON.stringify({ config: { sample_rate: 8_000 } }));
        for (let at = 0; at < audio.length; at += CHUNK_BYTES) ws.send(audio.subarray(at, at + CHUNK_BYTES));
        ws.send(EOF);
      });
      ws.addEventListener('message', (ev: MessageEvent) => {
        if (typeof ev.data !== 'string') return finish(new EngineError('vosk: a binary message where JSON was expected'));
        let m: VoskMessage;
        try {
          m = JSON.parse(ev.data) as VoskMessage;
        } catch {
          return finish(new EngineError('vosk: a message that is not JSON'));
        }
        answers++;
        const text = resultText(m);
        if (text !== undefined) texts.push(text);
        // One answer per audio message, then the final one for the eof.
        if (answers === chunks + 1) finish(null);
      });
      // An error is followed by a close: the close decides.
      ws.addEventListener('error', () => {});
      ws.addEventListener('close', (ev: CloseEvent) => {
        if (!opened) return finish(new EngineError(`vosk at ${this.url} does not answer`));
        finish(new EngineError(`vosk closed the connection before its final result (code ${ev.code}${ev.reason ? `: ${ev.reason}` : ''})`));
      });
    });
  }

  /** A stream for one speaker (live.ts). */
  open(o: StreamOptions): RecognitionStream {
    if (!this.hears(o.lang)) return failedStream(new EngineError(`vosk at ${this.url} does not hear ${o.lang}`, { permanent: true }));
    this.requests++;
    return new VoskLiveStream({ ...o, address: this.address, url: this.url, endTimeoutMs: this.limits.timeoutMs });
  }

  async close(): Promise<void> {}
}
