import websocket, { type WebSocket } from '@fastify/websocket';
import Fastify, { type FastifyRequest } from 'fastify';

// What the streaming recognizers' fakes (deepgram-live.ts, vosk-live.ts,
// openai-realtime.ts) share: a WebSocket server on 127.0.0.1 (Fastify with
// @fastify/websocket, the service's own), one path, a check of the
// handshake that refuses it with an HTTP status as the providers do, and
// the rule by which the fakes "hear" the audio they are sent.
//
// The rule: the audio is cut into 250 ms windows from its first sample; a
// window whose loudness (RMS) is above VOICED is speech, and is heard as
// the word `w<n>`, n its window's place in the stream. So what a fake
// answers follows from the audio it was given (all of it, in order, at the
// rate it was told): a test knows what to expect only by applying the same
// rule to what it sent, and an adapter that lost, doubled or reordered
// audio, or told the wrong rate, gets other words.

/** Samples above this RMS are speech (recorded speech is well above it, the silence written between phrases well below). */
export const VOICED = 300;
export const WINDOW_MS = 250;

/** The rule: the words of the windows of `pcm` (at `rate`) whose first sample is `from`.., to `to` (exclusive), of full windows only unless `all`. */
export function heardWords(pcm: Int16Array, rate: number, o: { from?: number; to?: number; all?: boolean } = {}): string[] {
  const win = Math.round((WINDOW_MS * rate) / 1000);
  const from = Math.ceil((o.from ?? 0) / win) * win;
  const to = o.to ?? pcm.length;
  const words: string[] = [];
  for (let at = from; at < to; at += win) {
    const end = Math.min(at + win, to);
    if (end - at < win && !o.all) break;
    if (voiced(pcm.subarray(at, end))) words.push(`w${at / win}`);
  }
  return words;
}

export function voiced(pcm: Int16Array): boolean {
  if (pcm.length === 0) return false;
  let sum = 0;
  for (const s of pcm) sum += s * s;
  return Math.sqrt(sum / pcm.length) > VOICED;
}

/** Where the speech of `pcm` ends (after its last voiced window), in samples; 0 for none. */
export function lastVoicedEnd(pcm: Int16Array, rate: number, to = pcm.length): number {
  const win = Math.round((WINDOW_MS * rate) / 1000);
  let end = 0;
  for (let at = 0; at + win <= to; at += win) if (voiced(pcm.subarray(at, at + win))) end = at + win;
  return end;
}

/** Little-endian 16-bit PCM bytes as samples. */
export function samplesOf(bytes: Buffer): Int16Array {
  const out = new Int16Array(Math.floor(bytes.length / 2));
  for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2);
  return out;
}

export function appendSamples(a: Int16Array, b: Int16Array): Int16Array {
  const out = new Int16Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export type WsFake = { url: string; close(): Promise<void> };

/**
 * A WebSocket server answering `path`: `refuse` sees the handshake first and
 * returns an HTTP status to refuse it with (null: accepted), then `serve`
 * has the connection.
 */
export async function startWsFake(path: string, refuse: (req: FastifyRequest) => number | null, serve: (socket: WebSocket, req: FastifyRequest) => void): Promise<WsFake> {
  const app = Fastify();
  await app.register(websocket);
  app.get(path, {
    websocket: true,
    preValidation: async (req, reply) => {
      const status = refuse(req);
      if (status !== null) await reply.code(status).send({ status });
    },
  }, (socket, req) => serve(socket, req));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    url,
    close: async () => {
      for (const c of app.websocketServer.clients) c.terminate();
      await app.close();
    },
  };
}
