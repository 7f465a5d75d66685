import { randomUUID } from 'node:crypto';
import type { WebSocket } from '@fastify/websocket';
import { appendSamples, heardWords, samplesOf, startWsFake, voiced, WINDOW_MS, type WsFake } from './ws-fake.ts';

// OpenAI's realtime transcription, local, as documented
// (https://platform.openai.com/docs/guides/realtime-transcription; the events
// in https://platform.openai.com/docs/api-reference/realtime-client-events
// and realtime-server-events):
//  - GET /v1/realtime?intent=transcription upgraded to a WebSocket, with
//    `Authorization: Bearer <key>` (else 401);
//  - `session.created` first; then the client's `session.update`
//    (session.type "transcription", session.audio.input.format {type:
//    "audio/pcm", rate: 24000}, .transcription {model, language},
//    .turn_detection) answered by `session.updated`, or with the
//    `OpenAI-Beta: realtime=v1` header `transcription_session.update`
//    (input_audio_format "pcm16", input_audio_transcription, turn_detection)
//    answered by `transcription_session.updated`; anything else in them is
//    an `error` event (invalid_request_error);
//  - `input_audio_buffer.append` {audio: base64 PCM16 at 24 kHz}; with
//    turn_detection server_vad, `input_audio_buffer.speech_started`
//    {audio_start_ms, item_id} when speech starts, and after
//    silence_duration_ms of silence `input_audio_buffer.speech_stopped`
//    {audio_end_ms, item_id} then `input_audio_buffer.committed` {item_id,
//    previous_item_id};
//  - `input_audio_buffer.commit` commits what is left, or is an error with
//    code input_audio_buffer_commit_empty when there is none;
//  - each committed item is transcribed: a
//    `conversation.item.input_audio_transcription.delta` {item_id, delta}
//    per word every 40 ms, then `.completed` {item_id, transcript} about
//    300 ms after the commit (or `.failed` when told to).
// What it hears follows the rule of ws-fake.ts (heardWords), at 24 kHz.

const RATE = 24_000;

export type RealtimeSession = {
  headers: Record<string, string | string[] | undefined>;
  query: URLSearchParams;
  /** The client's events, parsed (appends without their audio). */
  events: Array<Record<string, unknown>>;
  /** All the audio appended, as samples at 24 kHz. */
  samples: Int16Array;
  /** The types of the events sent to the client, in order (errors by their code). */
  sent: string[];
  closed: boolean;
};

export type OpenAIRealtimeFake = WsFake & {
  sessions: RealtimeSession[];
  /** Answer every transcription with `.failed`. */
  failTranscriptions: boolean;
  /** Send a server_error event this long after the connection opened. */
  errorAfterMs: number | null;
  dropAfterMs: number | null;
};

export async function startOpenAIRealtime(key = 'sk-test'): Promise<OpenAIRealtimeFake> {
  const sessions: RealtimeSession[] = [];
  const fake: OpenAIRealtimeFake = { url: '', close: async () => {}, sessions, failTranscriptions: false, errorAfterMs: null, dropAfterMs: null };
  const server = await startWsFake('/v1/realtime', (req) => {
    if (req.headers.authorization !== `Bearer ${key}`) return 401;
    return new URL(req.url, 'http://fake').searchParams.get('intent') === 'transcription' ? null : 400;
  }, (socket, req) => serve(socket, req.headers, new URL(req.url, 'http://fake').searchParams));
  fake.url = server.url;
  fake.close = server.close;

  function serve(socket: WebSocket, headers: RealtimeSession['headers'], query: URLSearchParams): void {
    const session: RealtimeSession = { headers, query, events: [], samples: new Int16Array(0), sent: [], closed: false };
    sessions.push(session);
    const beta = headers['openai-beta'] === 'realtime=v1';
    const win = Math.round((WINDOW_MS * RATE) / 1000);
    let configured = false;
    let vad: { silence_duration_ms: number } | null = null;
    /** Where the uncommitted buffer starts, how far the VAD has looked, where speech started (samples), the item speaking. */
    let bufferStart = 0;
    let looked = 0;
    let speechAt: number | null = null;
    let lastVoiced = 0;
    let item = `item_${randomUUID().slice(0, 8)}`;
    let previous: string | null = null;
    let done = false;
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, f: () => void) => {
      const t = setTimeout(() => { timers.delete(t); if (!done) f(); }, ms);
      timers.add(t);
    };
    const send = (m: Record<string, unknown>) => {
      if (done) return;
      session.sent.push(m.type === 'error' ? `error:${(m.error as { code: string }).code}` : String(m.type));
      socket.send(JSON.stringify({ event_id: `event_${randomUUID().slice(0, 8)}`, ...m }));
    };
    const error = (type: string, code: string, message: string) => send({ type: 'error', error: { type, code, message, param: null } });
    socket.on('close', () => { session.closed = true; done = true; for (const t of timers) clearTimeout(t); });
    if (fake.errorAfterMs !== null) later(fake.errorAfterMs, () => error('server_error', 'server_error', 'The server had an error while processing your request.'));
    if (fake.dropAfterMs !== null) later(fake.dropAfterMs, () => { done = true; socket.terminate(); });
    send({ type: beta ? 'transcription_session.created' : 'session.created', session: { id: `sess_${randomUUID().slice(0, 8)}`, type: 'transcription' } });

    const commit = (to: number) => {
      const id = item;
      const from = bufferStart;
      send({ type: 'input_audio_buffer.committed', item_id: id, previous_item_id: previous });
      const words = heardWords(session.samples, RATE, { from: bufferStart, to, all: true });
      bufferStart = to;
      previous = id;
      item = `item_${randomUUID().slice(0, 8)}`;
      speechAt = null;
      words.forEach((w, i) => later(40 * (i + 1), () => send({ type: 'conversation.item.input_audio_transcription.delta', item_id: id, content_index: 0, delta: i === 0 ? w : ` ${w}` })));
      later(Math.max(300, 40 * (words.length + 1)), () => fake.failTranscriptions
        ? send({ type: 'conversation.item.input_audio_transcription.failed', item_id: id, content_index: 0, error: { type: 'transcription_error', code: 'audio_unintelligible', message: 'The audio could not be transcribed.' } })
        : send({ type: 'conversation.item.input_audio_transcription.completed', item_id: id, content_index: 0, transcript: words.join(' '), usage: { type: 'duration', seconds: (to - from) / RATE } }));
    };

    socket.on('message', (data: Buffer) => {
      if (done) return;
      const e = JSON.parse(data.toString('utf8')) as { type?: string; audio?: string; session?: Record<string, any> };
      session.events.push(e.type === 'input_audio_buffer.append' ? { type: e.type } : e);
      if (e.type === 'session.update' || e.type === 'transcription_session.update') {
        const s = e.session ?? {};
        const input = beta ? { format: s.input_audio_format, transcription: s.input_audio_transcription, turn_detection: s.turn_detection } : s.audio?.input ?? {};
        const formatOk = beta ? input.format === 'pcm16' : input.format?.type === 'audio/pcm' && input.format?.rate === RATE;
        if ((e.type === 'transcription_session.update') !== beta || (!beta && s.type !== 'transcription')) return error('invalid_request_error', 'invalid_value', `${e.type} does not match this session`);
        if (!formatOk || typeof input.transcription?.model !== 'string') return error('invalid_request_error', 'invalid_value', 'Invalid audio format or transcription model');
        configured = true;
        vad = input.turn_detection?.type === 'server_vad' ? { silence_duration_ms: input.turn_detection.silence_duration_ms ?? 500 } : null;
        return send({ type: beta ? 'transcription_session.updated' : 'session.updated', session: s });
      }
      if (e.type === 'input_audio_buffer.append') {
        if (!configured) return error('invalid_request_error', 'session_not_configured', 'Configure the session first');
        session.samples = appendSamples(session.samples, samplesOf(Buffer.from(e.audio ?? '', 'base64')));
        // Server VAD over each new full window.
        while (vad && session.samples.length - looked >= win) {
          looked += win;
          if (voiced(session.samples.subarray(looked - win, looked))) {
            lastVoiced = looked;
            if (speechAt === null) {
              speechAt = looked - win;
              send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round((speechAt * 1000) / RATE), item_id: item });
            }
          } else if (speechAt !== null && ((looked - lastVoiced) * 1000) / RATE >= vad.silence_duration_ms) {
            send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round((lastVoiced * 1000) / RATE), item_id: item });
            commit(looked);
          }
        }
        return;
      }
      if (e.type === 'input_audio_buffer.commit') {
        // Less than 100 ms of audio is an empty buffer to the API.
        if (session.samples.length - bufferStart < RATE / 10) return error('invalid_request_error', 'input_audio_buffer_commit_empty', 'Error committing input audio buffer: buffer too small.');
        return commit(session.samples.length);
      }
    });
  }
  return fake;
}
