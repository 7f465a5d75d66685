import { EngineError } from '../errors.ts';
import { SocketStream, wsAddress, type SocketStreamOptions } from '../speech/socket-stream.ts';
import { pcm16le } from '../speech/wav.ts';

// Deepgram's live transcription as a stream
// (https://developers.deepgram.com/docs/live-streaming-audio,
// https://developers.deepgram.com/reference/speech-to-text-api/listen-streaming):
// a WebSocket to wss://api.deepgram.com/v1/listen with the options in the
// query (model, language, encoding=linear16, sample_rate, channels=1,
// interim_results=true, endpointing (ms of silence that end a phrase),
// utterance_end_ms, vad_events=true, smart_format) and
// `Authorization: Token <key>`; the audio as binary messages of raw 16-bit
// little-endian PCM. Deepgram answers JSON messages:
//  - `Results`: channel.alternatives[0].transcript for the audio from `start`
//    for `duration` seconds; is_final=false an interim guess of the part not
//    yet settled, is_final=true that part settled (the next interim starts
//    after it), speech_final=true besides when endpointing found the end of
//    the phrase. A phrase is the settled parts since the last speech_final:
//    a partial is those plus the current interim, a final all of them.
//    alternatives[0].languages names the language spoken (multilingual models).
//  - `UtteranceEnd` (https://developers.deepgram.com/docs/utterance-end): no
//    word for utterance_end_ms; settles a phrase whose speech_final never
//    came (noise kept endpointing from firing).
//  - `SpeechStarted` (vad_events), `Metadata`: nothing to hear in them.
// With no audio for 10 s Deepgram closes the connection (NET-0001): a
// `{"type": "KeepAlive"}` text message every few seconds without audio keeps
// it (https://developers.deepgram.com/docs/audio-keep-alive). The end is
// `{"type": "CloseStream"}` (https://developers.deepgram.com/docs/close-stream):
// Deepgram settles what it has, sends its Metadata and closes; that close is
// the stream's end. Errors come as a close frame with a code and a reason
// (1008 DATA-0000: audio it cannot read; 1011 NET-0000/0001), or a refused
// handshake (400 options it lacks, 401 a bad key, 429): the stream fails.

/** Without audio for this long, a KeepAlive (Deepgram gives up after 10 s). */
const KEEPALIVE_MS = 4_000;

export type DeepgramLiveOptions = SocketStreamOptions & {
  /** https://api.deepgram.com or the operator's proxy. */
  url: string;
  apiKey: string;
  model: string;
  /** Deepgram's spelling of the language (DeepgramRecognizer.languageCode). */
  language: string;
  /** Milliseconds of silence that end a phrase (default 300). */
  endpointingMs?: number;
  /** Milliseconds without a word that end an utterance (default 1000; Deepgram's least is 1000). */
  utteranceEndMs?: number;
  /** Without audio for this long, a KeepAlive (default 4 s). */
  keepaliveMs?: number;
};

type Alternative = { transcript?: unknown; languages?: unknown };
type DeepgramMessage = {
  type?: string;
  is_final?: boolean;
  speech_final?: boolean;
  start?: number;
  duration?: number;
  channel?: { alternatives?: Alternative[] };
};

export class DeepgramLiveStream extends SocketStream {
  /** The settled parts of the phrase going on, with where it started (s) and where its last part ended (s). */
  private parts: string[] = [];
  private phraseStart: number | null = null;
  private phraseEnd = 0;
  private lang: string | undefined;
  private keepalive: NodeJS.Timeout | null = null;
  private lastSent = Date.now();
  private readonly keepaliveMs: number;

  constructor(o: DeepgramLiveOptions) {
    const query = new URLSearchParams({
      model: o.model, language: o.language, encoding: 'linear16', sample_rate: String(o.rate), channels: '1',
      interim_results: 'true', endpointing: String(o.endpointingMs ?? 300), utterance_end_ms: String(o.utteranceEndMs ?? 1000),
      vad_events: 'true', smart_format: 'true',
    });
    super('deepgram', `${wsAddress(o.url.replace(/\/+$/, ''))}/v1/listen?${query}`, { authorization: `Token ${o.apiKey}` }, o);
    this.keepaliveMs = o.keepaliveMs ?? KEEPALIVE_MS;
  }

  protected opening(): void {
    this.keepalive = setInterval(() => {
      if (Date.now() - this.lastSent < this.keepaliveMs) return;
      this.lastSent = Date.now();
      this.send(JSON.stringify({ type: 'KeepAlive' }));
    }, Math.min(1_000, this.keepaliveMs / 2));
    this.keepalive.unref();
  }

  protected audio(pcm: Int16Array): void {
    this.lastSent = Date.now();
    this.send(pcm16le(pcm));
  }

  protected ending(): void {
    this.send(JSON.stringify({ type: 'CloseStream' }));
  }

  protected message(data: string | Uint8Array): void {
    if (typeof data !== 'string') throw new EngineError('deepgram: a binary message where JSON was expected');
    let m: DeepgramMessage;
    try {
      m = JSON.parse(data) as DeepgramMessage;
    } catch {
      throw new EngineError('deepgram: a message that is not JSON');
    }
    if (m.type === 'UtteranceEnd') return this.settle();
    if (m.type !== 'Results') return;
    const alt = m.channel?.alternatives?.[0];
    if (typeof alt?.transcript !== 'string') throw new EngineError('deepgram: Results without channel.alternatives[0].transcript');
    const text = alt.transcript.trim();
    const langs = alt.languages;
    if (Array.isArray(langs) && typeof langs[0] === 'string') this.lang = langs[0];
    const start = typeof m.start === 'number' ? m.start : this.phraseEnd;
    const end = start + (typeof m.duration === 'number' ? m.duration : 0);
    if (text && this.phraseStart === null) this.phraseStart = start;
    if (!m.is_final) {
      if (text) this.emit('partial', [...this.parts, text].join(' '), end);
      return;
    }
    if (text) {
      this.parts.push(text);
      this.phraseEnd = end;
    }
    if (m.speech_final) this.settle();
    else if (text) this.emit('partial', this.parts.join(' '), end);
  }

  /** The phrase going on is settled: its final, and the next starts empty. */
  private settle(): void {
    if (this.parts.length > 0) this.emit('final', this.parts.join(' '), this.phraseEnd);
    this.parts = [];
    this.phraseStart = null;
  }

  private emit(kind: 'partial' | 'final', text: string, end: number): void {
    this.push({
      kind, text, ...(this.lang ? { lang: this.lang } : {}),
      startMs: Math.round((this.phraseStart ?? 0) * 1000), endMs: Math.round(end * 1000),
    });
  }

  protected override closed(code: number, reason: string): void {
    // After CloseStream Deepgram closes normally once it has said everything: the end.
    if (this.ended && code === 1000) {
      this.settle();
      return this.finish();
    }
    super.closed(code, reason);
  }

  protected override idle(): void {
    if (this.keepalive) clearInterval(this.keepalive);
    this.keepalive = null;
  }
}
