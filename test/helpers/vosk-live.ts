import type { WebSocket } from '@fastify/websocket';
import { appendSamples, heardWords, lastVoicedEnd, samplesOf, startWsFake, WINDOW_MS, type WsFake } from './ws-fake.ts';

// A vosk-server, local, as its WebSocket server does it
// (https://github.com/alphacep/vosk-server, websocket/asr_server.py; its
// clients websocket/test.py and test_microphone.py):
//  - a text message containing `config` is read as {"config": {sample_rate,
//    words, max_alternatives, phrase_list}} and answered by nothing;
//  - every other message goes to the recognizer in turn (process_chunk, on
//    its thread pool): the exact text `{"eof" : 1}` is answered by the final
//    result, after which the handler returns and the connection closes
//    normally; audio is answered by {"result": [{conf, end, start, word}...],
//    "text": ...} when Kaldi's endpointing found the end of a phrase (here:
//    half a second of silence after speech), else by {"partial": ...}, the
//    phrase so far; any other text is fed to the recognizer as audio, which
//    raises, and the connection closes with 1011.
// Each answer comes `latencyMs` after its message. The sample rate is
// VOSK_SAMPLE_RATE's default, 8000, until the config says another. What it
// hears follows the rule of ws-fake.ts (heardWords).

const EOF = '{"eof" : 1}';
/** Kaldi's endpoint: this much silence after speech ends a phrase. */
const ENDPOINT_MS = 500;

export type VoskLiveSession = {
  config: Record<string, unknown> | null;
  samples: Int16Array;
  /** The size of each binary message. */
  chunks: number[];
  eof: boolean;
  closed: boolean;
};

export type VoskLiveFake = WsFake & {
  sessions: VoskLiveSession[];
  /** Drop every connection (no close frame) after this many audio messages. */
  dropAfterChunks: number | null;
  latencyMs: number;
};

export async function startVoskLive(): Promise<VoskLiveFake> {
  const sessions: VoskLiveSession[] = [];
  const fake: VoskLiveFake = { url: '', close: async () => {}, sessions, dropAfterChunks: null, latencyMs: 20 };
  const server = await startWsFake('/', () => null, (socket) => serve(socket));
  fake.url = server.url.replace(/^http/, 'ws');
  fake.close = server.close;

  function serve(socket: WebSocket): void {
    const session: VoskLiveSession = { config: null, samples: new Int16Array(0), chunks: [], eof: false, closed: false };
    sessions.push(session);
    let rate = 8_000;
    /** Where the phrase going on started (samples). */
    let phraseStart = 0;
    let done = false;
    // The recognizer reads one message at a time, in order.
    let turn = Promise.resolve();
    socket.on('close', () => { session.closed = true; done = true; });

    const words = (from: number, to: number, all = false) => {
      const win = Math.round((WINDOW_MS * rate) / 1000);
      return heardWords(session.samples, rate, { from, to, all }).map((w) => {
        const at = Number(w.slice(1)) * win;
        return { conf: 1, end: (at + win) / rate, start: at / rate, word: w };
      });
    };
    const answer = (m: Record<string, unknown>) => { if (!done) socket.send(JSON.stringify(m, null, 1)); };

    const process = (data: Buffer, isBinary: boolean) => {
      if (done) return;
      if (!isBinary) {
        const text = data.toString('utf8');
        if (text === EOF) {
          session.eof = true;
          const ws = words(phraseStart, session.samples.length, true);
          answer({ ...(ws.length ? { result: ws } : {}), text: ws.map((w) => w.word).join(' ') });
          done = true;
          socket.close(1000);
          return;
        }
        // KaldiRecognizer.AcceptWaveform(str) raises: the handler dies.
        done = true;
        socket.close(1011, 'internal error');
        return;
      }
      session.samples = appendSamples(session.samples, samplesOf(data));
      session.chunks.push(data.length);
      if (fake.dropAfterChunks !== null && session.chunks.length >= fake.dropAfterChunks) {
        done = true;
        socket.terminate();
        return;
      }
      const win = Math.round((WINDOW_MS * rate) / 1000);
      const full = Math.floor(session.samples.length / win) * win;
      const spoke = lastVoicedEnd(session.samples, rate, full);
      if (spoke > phraseStart && ((full - spoke) * 1000) / rate >= ENDPOINT_MS) {
        const ws = words(phraseStart, spoke);
        phraseStart = full;
        answer({ result: ws, text: ws.map((w) => w.word).join(' ') });
        return;
      }
      answer({ partial: words(phraseStart, full).map((w) => w.word).join(' ') });
    };

    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary && data.toString('utf8').includes('config')) {
        const config = (JSON.parse(data.toString('utf8')) as { config: Record<string, unknown> }).config;
        session.config = config;
        if (config.sample_rate !== undefined) rate = Number(config.sample_rate);
        return;
      }
      turn = turn.then(() => new Promise<void>((r) => setTimeout(() => { process(data, isBinary); r(); }, fake.latencyMs)));
    });
  }
  return fake;
}
