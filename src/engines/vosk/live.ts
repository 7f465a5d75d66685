import { EngineError } from '../errors.ts';
import { SocketStream, type SocketStreamOptions } from '../speech/socket-stream.ts';
import { concatPcm } from '../speech/streaming.ts';
import { pcm16le } from '../speech/wav.ts';

// A vosk-server heard as a stream, over the same WebSocket protocol as the
// whole-utterance recognizer (recognizer.ts; https://github.com/alphacep/vosk-server,
// websocket/asr_server.py, and its client websocket/test_microphone.py,
// which sends the audio as it is recorded): {"config": {"sample_rate": N}}
// first (the server's recognizer takes any rate), then the audio as binary
// messages as it comes, each answered by one JSON message:
// {"partial": "..."} (the phrase so far: a partial, when it changed and is
// not empty) or {"result": [{word, start, end, conf}...], "text": "..."}
// (Vosk found the end of a phrase: a final, with its words' times). The end
// is the exact text `{"eof" : 1}`: the server answers the last result and
// closes; that close is the stream's end. A close before it, or a message
// that is not JSON, fails the stream. The server answers every audio message
// (and decodes it on a thread of its pool): the line's 20 ms frames go in
// messages of at least 100 ms.

/** The end of the audio, exactly as asr_server.py compares it. */
const EOF = '{"eof" : 1}';
/** The least audio per message. */
const MESSAGE_MS = 100;

export type VoskLiveOptions = SocketStreamOptions & { address: string; url: string };

type Word = { start?: unknown; end?: unknown };
type VoskMessage = { partial?: unknown; text?: unknown; result?: Word[]; alternatives?: Array<{ text?: unknown; result?: Word[] }> };

export class VoskLiveStream extends SocketStream {
  private lastPartial = '';
  private sawEof = false;
  private gathered: Int16Array[] = [];
  private gatheredSamples = 0;

  constructor(o: VoskLiveOptions) {
    super(`vosk at ${o.url}`, o.address, {}, o);
  }

  protected opening(): void {
    this.send(JSON.stringify({ config: { sample_rate: this.o.rate } }));
  }

  protected audio(pcm: Int16Array): void {
    this.gathered.push(pcm.slice());
    this.gatheredSamples += pcm.length;
    if (this.gatheredSamples * 1000 >= MESSAGE_MS * this.o.rate) this.flush();
  }

  private flush(): void {
    if (this.gatheredSamples === 0) return;
    this.send(pcm16le(concatPcm(this.gathered)));
    this.gathered = [];
    this.gatheredSamples = 0;
  }

  protected ending(): void {
    this.flush();
    this.send(EOF);
  }

  protected message(data: string | Uint8Array): void {
    if (typeof data !== 'string') throw new EngineError('vosk: a binary message where JSON was expected');
    let m: VoskMessage;
    try {
      m = JSON.parse(data) as VoskMessage;
    } catch {
      throw new EngineError('vosk: a message that is not JSON');
    }
    if (typeof m.partial === 'string') {
      const text = m.partial.trim();
      if (text && text !== this.lastPartial) this.push({ kind: 'partial', text });
      this.lastPartial = text;
      return;
    }
    // A result (with VOSK_ALTERNATIVES set, the best of its alternatives).
    const best = m.alternatives?.[0];
    const raw = typeof m.text === 'string' ? m.text : best?.text;
    if (typeof raw !== 'string') throw new EngineError('vosk: a message with neither partial nor text');
    const text = raw.trim();
    this.lastPartial = '';
    if (this.ended) this.sawEof = true;
    if (!text) return;
    const words = m.result ?? best?.result ?? [];
    const first = words[0]?.start;
    const last = words[words.length - 1]?.end;
    this.push({
      kind: 'final', text,
      ...(typeof first === 'number' ? { startMs: Math.round(first * 1000) } : {}),
      ...(typeof last === 'number' ? { endMs: Math.round(last * 1000) } : {}),
    });
  }

  protected override closed(code: number, reason: string): void {
    // The server closes once it answered the eof: the end.
    if (this.ended && (this.sawEof || code === 1000)) return this.finish();
    super.closed(code, reason);
  }
}
