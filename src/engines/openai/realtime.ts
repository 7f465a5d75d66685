import { EngineError } from '../errors.ts';
import { loadResampler, StreamResampler } from '../speech/resample.ts';
import { SocketStream, wsAddress, type SocketStreamOptions } from '../speech/socket-stream.ts';
import { pcm16le } from '../speech/wav.ts';

// OpenAI's realtime transcription as a stream
// (https://platform.openai.com/docs/guides/realtime-transcription, events in
// https://platform.openai.com/docs/api-reference/realtime-client-events and
// realtime-server-events): a WebSocket to {base}/v1/realtime?intent=transcription
// with `Authorization: Bearer <key>`, then the session's configuration:
//  - `session.update` with session.type "transcription" and
//    session.audio.input {format: {type: "audio/pcm", rate: 24000},
//    transcription: {model, language}, turn_detection} (the API as
//    released), or with `beta`
//  - `transcription_session.update` with {input_audio_format: "pcm16",
//    input_audio_transcription: {model, language}, turn_detection} and the
//    `OpenAI-Beta: realtime=v1` header (the beta interface).
// The audio goes as `input_audio_buffer.append` {audio: base64 of 16-bit
// little-endian mono PCM at 24 kHz}: the line's 8 kHz (or a microphone's
// 16 kHz) is resampled as it comes (Speex, one state for the stream). With
// server_vad turn detection the server commits the buffer itself at each
// pause (`input_audio_buffer.committed` {item_id}); `input_audio_buffer.commit`
// at the end commits what is left (an empty buffer is answered by an error
// with code input_audio_buffer_commit_empty: nothing left). Each committed
// item is transcribed: `conversation.item.input_audio_transcription.delta`
// {item_id, delta} (appended: the item's partial) then `.completed`
// {item_id, transcript} (its final), or `.failed`. speech_started and
// speech_stopped carry the item's audio_start_ms and audio_end_ms. The
// stream ends once every item committed up to the end is completed; an
// `error` event fails it.

const RATE = 24_000;

export type OpenAIRealtimeOptions = SocketStreamOptions & {
  /** The server's base ending in /v1 (OpenAIClient.api). */
  api: string;
  apiKey?: string;
  model: string;
  /** ISO-639-1 code, or none (the model detects it). */
  language?: string;
  /** The beta interface (transcription_session.update, OpenAI-Beta header). */
  beta?: boolean;
  /** Server VAD's silence (ms) that ends a turn; null: no turn detection, one item committed at the end. */
  silenceMs?: number | null;
};

type RealtimeEvent = {
  type?: string;
  item_id?: string;
  delta?: unknown;
  transcript?: unknown;
  audio_start_ms?: unknown;
  audio_end_ms?: unknown;
  error?: { type?: string; code?: string; message?: string };
};

export class OpenAIRealtimeStream extends SocketStream {
  private readonly ready: Promise<void>;
  private resampler: StreamResampler | null = null;
  private readonly model: string;
  private readonly language: string | undefined;
  private readonly beta: boolean;
  private readonly silenceMs: number | null;
  /** Committed items not transcribed yet, with their text so far. */
  private readonly pending = new Map<string, string>();
  private readonly times = new Map<string, { startMs?: number; endMs?: number }>();
  /** The end's commit was sent and not yet answered. */
  private committing = false;

  constructor(o: OpenAIRealtimeOptions) {
    const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
    if (o.beta) headers['openai-beta'] = 'realtime=v1';
    super('openai realtime', `${wsAddress(o.api)}/realtime?intent=transcription`, headers, o);
    this.model = o.model;
    this.language = o.language;
    this.beta = o.beta ?? false;
    this.silenceMs = o.silenceMs === undefined ? 500 : o.silenceMs;
    this.ready = loadResampler().then(() => {
      if (o.rate !== RATE) this.resampler = new StreamResampler(o.rate, RATE);
    });
    this.ready.catch((err: unknown) => this.fail(err));
  }

  protected opening(): void {
    const transcription = { model: this.model, ...(this.language ? { language: this.language } : {}) };
    const turn = this.silenceMs === null ? null : { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: this.silenceMs };
    this.send(JSON.stringify(this.beta
      ? { type: 'transcription_session.update', session: { input_audio_format: 'pcm16', input_audio_transcription: transcription, turn_detection: turn } }
      : { type: 'session.update', session: { type: 'transcription', audio: { input: { format: { type: 'audio/pcm', rate: RATE }, transcription, turn_detection: turn } } } }));
  }

  private append(pcm: Int16Array): void {
    if (pcm.length === 0) return;
    this.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.from(pcm16le(pcm)).toString('base64') }));
  }

  protected audio(pcm: Int16Array): void {
    const copy = pcm.slice();
    void this.ready.then(() => this.append(this.resampler ? this.resampler.push(copy) : copy));
  }

  protected ending(): void {
    void this.ready.then(() => {
      if (this.resampler) this.append(this.resampler.flush());
      this.committing = true;
      this.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    });
  }

  protected message(data: string | Uint8Array): void {
    if (typeof data !== 'string') throw new EngineError('openai realtime: a binary message where JSON was expected');
    let m: RealtimeEvent;
    try {
      m = JSON.parse(data) as RealtimeEvent;
    } catch {
      throw new EngineError('openai realtime: a message that is not JSON');
    }
    const id = m.item_id ?? '';
    switch (m.type) {
      case 'error':
        // Only the end commits: an empty buffer then is server VAD having committed it all already.
        if (m.error?.code === 'input_audio_buffer_commit_empty' && this.ended) {
          this.committing = false;
          return this.maybeDone();
        }
        throw new EngineError(`openai realtime: ${m.error?.code ?? m.error?.type ?? 'error'}: ${m.error?.message ?? ''}`.trim(), {
          permanent: m.error?.type === 'invalid_request_error',
        });
      case 'input_audio_buffer.speech_started':
        if (typeof m.audio_start_ms === 'number') this.times.set(id, { startMs: m.audio_start_ms });
        return;
      case 'input_audio_buffer.speech_stopped':
        if (typeof m.audio_end_ms === 'number') this.times.set(id, { ...this.times.get(id), endMs: m.audio_end_ms });
        return;
      case 'input_audio_buffer.committed':
        // After the end, taken for the answer to the end's commit: a turn server VAD closed just before
        // it may be answered first, but its transcription comes after both answers.
        if (!this.pending.has(id)) this.pending.set(id, '');
        if (this.ended) this.committing = false;
        return;
      case 'conversation.item.input_audio_transcription.delta': {
        if (typeof m.delta !== 'string') return;
        const text = (this.pending.get(id) ?? '') + m.delta;
        this.pending.set(id, text);
        if (text.trim()) this.push({ kind: 'partial', text: text.trim() });
        return;
      }
      case 'conversation.item.input_audio_transcription.completed': {
        if (typeof m.transcript !== 'string') throw new EngineError('openai realtime: a completed transcription without transcript');
        this.pending.delete(id);
        const text = m.transcript.trim();
        if (text) this.push({ kind: 'final', text, ...this.times.get(id) });
        this.times.delete(id);
        return this.maybeDone();
      }
      case 'conversation.item.input_audio_transcription.failed':
        throw new EngineError(`openai realtime: the transcription failed: ${m.error?.message ?? m.error?.code ?? ''}`.trim());
      default:
        return;
    }
  }

  /** Everything committed up to the end is transcribed: the end. */
  private maybeDone(): void {
    if (this.ended && !this.committing && this.pending.size === 0 && !this.queue.settled) this.finish();
  }

  protected override idle(): void {
    this.resampler?.destroy();
    this.resampler = null;
  }
}
