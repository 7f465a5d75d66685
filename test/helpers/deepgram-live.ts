import { randomUUID } from 'node:crypto';
import type { WebSocket } from '@fastify/websocket';
import { appendSamples, heardWords, lastVoicedEnd, samplesOf, startWsFake, voiced, WINDOW_MS, type WsFake } from './ws-fake.ts';

// Deepgram's live transcription, local, as documented:
//  - https://developers.deepgram.com/docs/live-streaming-audio and
//    https://developers.deepgram.com/reference/speech-to-text-api/listen-streaming:
//    GET /v1/listen upgraded to a WebSocket, `Authorization: Token <key>`
//    (else the handshake is refused with 401), the options in the query
//    (encoding=linear16 needs sample_rate; else 400); binary messages of raw
//    audio; `Results` messages {type, channel_index, duration, start,
//    is_final, speech_final, channel: {alternatives: [{transcript,
//    confidence, words}]}};
//  - https://developers.deepgram.com/docs/understand-endpointing-interim-results:
//    interim results (is_final=false) as the audio comes, a settled part
//    (is_final=true), speech_final=true besides when `endpointing` ms of
//    silence followed speech;
//  - https://developers.deepgram.com/docs/utterance-end: {type: "UtteranceEnd",
//    channel, last_word_end} after utterance_end_ms without a word;
//  - https://developers.deepgram.com/docs/start-of-speech-detection:
//    {type: "SpeechStarted", channel, timestamp} with vad_events=true;
//  - https://developers.deepgram.com/docs/audio-keep-alive: {"type":
//    "KeepAlive"} answered by nothing; no audio nor message for 10 s closes
//    with NET-0001 (code 1011);
//  - https://developers.deepgram.com/docs/close-stream: {"type":
//    "CloseStream"}: what is left is settled, then a Metadata message, then
//    a normal close.
// Timing: an interim result every 250 ms of audio received (each answered
// `latencyMs` after the audio that completed it), a part settled at the
// latest every 3 s of audio, and on CloseStream the last final about 300 ms
// later. What it hears follows the rule of ws-fake.ts (heardWords).

export type DeepgramLiveSession = {
  query: URLSearchParams;
  authorization: string | undefined;
  /** The audio received, as samples. */
  samples: Int16Array;
  keepalives: number;
  closeStream: boolean;
  /** Every message sent to the client, in order, and when each was sent (epoch ms). */
  sent: Array<Record<string, unknown>>;
  sentAt: number[];
  closed: boolean;
};

export type DeepgramLiveFake = WsFake & {
  sessions: DeepgramLiveSession[];
  /** Close every connection this long after it opened, with this code and reason (a Deepgram error). */
  closeAfter: { ms: number; code: number; reason: string } | null;
  /** Drop every connection (no close frame) this long after it opened. */
  dropAfterMs: number | null;
  /** Refuse the handshake with this status. */
  refuse: number | null;
  /** No audio nor message for this long closes with NET-0001 (Deepgram: 10 s). */
  idleCloseMs: number;
  /** The delay of every answer (Deepgram's processing). */
  latencyMs: number;
  /** A part is settled (is_final without speech_final) at the latest after this much audio without an endpoint (default 3 s). */
  maxPartMs: number;
  /** Words to say instead of `wN` (the Nth window's word is vocabulary[N % length]): text a translator can read. */
  vocabulary: string[] | null;
};

export async function startDeepgramLive(key = 'dg-key'): Promise<DeepgramLiveFake> {
  const sessions: DeepgramLiveSession[] = [];
  const fake: DeepgramLiveFake = {
    url: '', close: async () => {}, sessions, closeAfter: null, dropAfterMs: null, refuse: null, idleCloseMs: 10_000, latencyMs: 60, maxPartMs: 3_000, vocabulary: null,
  };
  const server = await startWsFake('/v1/listen', (req) => {
    if (fake.refuse) return fake.refuse;
    if (req.headers.authorization !== `Token ${key}`) return 401;
    const q = new URL(req.url, 'http://fake').searchParams;
    if (q.get('encoding') === 'linear16' && !Number(q.get('sample_rate'))) return 400;
    return null;
  }, (socket, req) => serve(socket, new URL(req.url, 'http://fake').searchParams, req.headers.authorization));
  fake.url = server.url;
  fake.close = server.close;

  function serve(socket: WebSocket, query: URLSearchParams, authorization: string | undefined): void {
    const session: DeepgramLiveSession = { query, authorization, samples: new Int16Array(0), keepalives: 0, closeStream: false, sent: [], sentAt: [], closed: false };
    sessions.push(session);
    const rate = Number(query.get('sample_rate'));
    const win = Math.round((WINDOW_MS * rate) / 1000);
    const endpointing = query.get('endpointing') === 'false' ? Infinity : Number(query.get('endpointing') ?? 10);
    const utteranceEnd = query.get('utterance_end_ms') ? Number(query.get('utterance_end_ms')) : null;
    const interim = query.get('interim_results') === 'true';
    const vadEvents = query.get('vad_events') === 'true';
    /** Samples settled (is_final sent for them), and answered (by an interim). */
    let settled = 0;
    let answered = 0;
    let inSpeech = false;
    let utteranceEndSent = true;
    let done = false;
    const timers = new Set<NodeJS.Timeout>();
    const later = (ms: number, f: () => void) => {
      const t = setTimeout(() => { timers.delete(t); if (!done) f(); }, ms);
      timers.add(t);
    };
    const send = (m: Record<string, unknown>) => later(fake.latencyMs, () => {
      session.sent.push(m);
      session.sentAt.push(Date.now());
      socket.send(JSON.stringify(m));
    });
    const end = (code: number, reason = '') => later(fake.latencyMs + 5, () => { done = true; socket.close(code, reason); });
    const results = (to: number, isFinal: boolean, speechFinal: boolean, all = false) => {
      const vocabulary = fake.vocabulary;
      const words = heardWords(session.samples, rate, { from: settled, to, all }).map((w) => (vocabulary ? vocabulary[Number(w.slice(1)) % vocabulary.length]! : w));
      // A multilingual model (nova-3, language=multi) says which language it heard: the recordings are English.
      const languages = query.get('language') === 'multi' ? { languages: ['en'] } : {};
      send({
        type: 'Results', channel_index: [0, 1], start: settled / rate, duration: (to - settled) / rate, is_final: isFinal, speech_final: speechFinal,
        channel: { alternatives: [{ ...languages, transcript: words.join(' '), confidence: words.length ? 0.9 : 0, words: words.map((w) => ({ word: w, confidence: 0.9 })) }] },
        metadata: { request_id: requestId, model_info: { name: query.get('model') } },
      });
      if (isFinal) settled = to;
    };
    const requestId = randomUUID();
    let idle: NodeJS.Timeout | null = null;
    const touch = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => {
        if (done) return;
        done = true;
        socket.close(1011, 'Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001');
      }, fake.idleCloseMs);
    };
    touch();
    if (fake.closeAfter) { const c = fake.closeAfter; later(c.ms, () => { done = true; socket.close(c.code, c.reason); }); }
    if (fake.dropAfterMs !== null) later(fake.dropAfterMs, () => { done = true; socket.terminate(); });
    socket.on('close', () => {
      session.closed = true;
      done = true;
      if (idle) clearTimeout(idle);
      for (const t of timers) clearTimeout(t);
    });

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (done) return;
      touch();
      if (!isBinary) {
        const m = JSON.parse(data.toString('utf8')) as { type?: string };
        if (m.type === 'KeepAlive') session.keepalives++;
        if (m.type === 'CloseStream' || m.type === 'Finalize') {
          session.closeStream = m.type === 'CloseStream';
          const all = session.samples.length;
          // The rest settled about 300 ms after the end of the audio.
          later(300 - fake.latencyMs, () => {
            if (all > settled) results(all, true, true, true);
            if (m.type === 'CloseStream') {
              send({ type: 'Metadata', request_id: requestId, created: new Date().toISOString(), duration: all / rate, channels: 1 });
              end(1000);
            }
          });
        }
        return;
      }
      if (data.length % 2 !== 0) { done = true; socket.close(1008, 'DATA-0000: The payload cannot be decoded as audio.'); return; }
      session.samples = appendSamples(session.samples, samplesOf(data));
      // Each new full window of audio: an interim, a settled part, an endpoint, an utterance end.
      while (session.samples.length - answered >= win) {
        answered += win;
        const speech = voiced(session.samples.subarray(answered - win, answered));
        if (speech && !inSpeech) {
          inSpeech = true;
          utteranceEndSent = false;
          if (vadEvents) send({ type: 'SpeechStarted', channel: [0], timestamp: (answered - win) / rate });
        }
        const spoke = lastVoicedEnd(session.samples, rate, answered);
        const silentMs = ((answered - spoke) * 1000) / rate;
        if (inSpeech && spoke > settled && silentMs >= endpointing) {
          inSpeech = false;
          results(answered, true, true);
        } else if (((answered - settled) * 1000) / rate >= fake.maxPartMs) {
          results(answered, true, false);
        } else if (interim) {
          results(answered, false, false);
        }
        if (utteranceEnd !== null && !utteranceEndSent && !speech && silentMs >= utteranceEnd) {
          utteranceEndSent = true;
          inSpeech = false;
          send({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: spoke / rate });
        }
      }
    });
  }
  return fake;
}
