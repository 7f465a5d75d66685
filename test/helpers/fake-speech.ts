import { createHash, randomUUID } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { maskKey } from './fake-engines.ts';

// Local servers (127.0.0.1, a random port) that answer as the speech
// providers document their APIs, for the speech adapters' tests
// (test/engines/speech-adapters.test.ts): the same paths, methods,
// authentication, fields, success bodies, error statuses and error bodies,
// checked the way the provider checks them. Each records what it received,
// and can be told to fail (a status, in the provider's error shape, with a
// Retry-After), to answer something that is not its format (a proxy's error
// page), or to hang (take the request and never answer).
//
// The recognizers' fakes "hear" the audio they are sent: they read the WAV
// file (or the raw PCM) themselves, independently of src/engines/speech/wav.ts,
// refuse one that is not 8 kHz 16-bit mono PCM, answer silence with no
// words and anything louder with the text they were given. The
// synthesizers' fakes answer a 440 Hz tone of a known length, in the
// provider's format.
//
// The documents they follow:
//  - OpenAI: https://platform.openai.com/docs/api-reference/audio/createTranscription
//    (multipart/form-data: file, model, language in ISO-639-1,
//    response_format json → {text}; the file is identified by its name and
//    type) and https://platform.openai.com/docs/api-reference/audio/createSpeech
//    (JSON {model, input ≤ 4096 characters, voice, response_format mp3 by
//    default or wav}); errors {"error": {message, type, param, code}}, the
//    401 echoing the key masked. OpenAI's streamed WAV carries 0xFFFFFFFF
//    in its RIFF and data sizes (speaches-ai/speaches#493, remsky/Kokoro-FastAPI#94).
//  - Deepgram: https://developers.deepgram.com/reference/speech-to-text-api/listen
//    (POST /v1/listen, `Authorization: Token <key>`, the audio as the body
//    with its Content-Type, model/language/smart_format in the query →
//    {metadata, results: {channels: [{alternatives: [{transcript,
//    confidence, words}]}]}}) and https://developers.deepgram.com/docs/errors
//    ({err_code, err_msg, request_id}).
//  - vosk-server: https://github.com/alphacep/vosk-server, websocket/asr_server.py
//    (a text message with `config`, unanswered; binary audio, each answered
//    by a partial or a result; the exact string `{"eof" : 1}` answered by the
//    final result, then the connection closes; any other text is fed to the
//    recognizer as audio, which fails, and the connection closes with 1011).
//  - ElevenLabs: https://elevenlabs.io/docs/api-reference/text-to-speech/convert
//    (POST /v1/text-to-speech/{voice_id}?output_format=..., `xi-api-key`,
//    JSON {text, model_id}; pcm_16000 is headerless 16-bit mono PCM; a
//    language_code is refused by models other than Turbo/Flash v2.5) and the
//    docs' "Error messages" page ({"detail": {status, message}}:
//    invalid_api_key, voice_not_found (404), max_character_limit_exceeded,
//    too_many_concurrent_requests (429); FastAPI's 422 {"detail": [...]}).

export type Recorded = { method: string; path: string; query: URLSearchParams; headers: IncomingHttpHeaders; body: Buffer };

export type Failure = { status: number; retryAfter?: string };

export type FakeSpeechServer = {
  /** The base address, http://127.0.0.1:PORT (ws://… for vosk). */
  url: string;
  /** Every request received, in order. */
  requests: Recorded[];
  /** Answer every request with this error (in the provider's error shape) while set. */
  fail: Failure | null;
  /** Answer 200 with something that is not the provider's format while set. */
  garble: boolean;
  /** Never answer while set: the request stays open until the client gives up. */
  hang: boolean;
  close(): Promise<void>;
};

type Handler = (req: Recorded, res: ServerResponse) => void | Promise<void>;
type ErrorBody = (status: number) => unknown;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function sendAudio(res: ServerResponse, type: string, bytes: Uint8Array): void {
  res.writeHead(200, { 'content-type': type });
  res.end(bytes);
}

function fakeServer(handle: Handler, errorBody: ErrorBody) {
  const fake: FakeSpeechServer = {
    url: '',
    requests: [],
    fail: null,
    garble: false,
    hang: false,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url ?? '/', 'http://fake');
      const rec: Recorded = { method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.concat(chunks) };
      fake.requests.push(rec);
      if (fake.hang) return;
      if (fake.fail) {
        send(res, fake.fail.status, errorBody(fake.fail.status), fake.fail.retryAfter ? { 'retry-after': fake.fail.retryAfter } : {});
        return;
      }
      if (fake.garble) {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><body>502 Bad Gateway</body></html>');
        return;
      }
      Promise.resolve(handle(rec, res)).catch((err: unknown) => send(res, 500, { error: String(err) }));
    });
  });
  return { fake, server };
}

async function listen(s: { fake: FakeSpeechServer; server: ReturnType<typeof createServer> }, scheme = 'http'): Promise<FakeSpeechServer> {
  await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
  s.fake.url = `${scheme}://127.0.0.1:${(s.server.address() as AddressInfo).port}`;
  return s.fake;
}

// ---------------------------------------------------------------- audio

/** Audio that is not silence: its loudest sample (silence and line noise stay under this). */
const SPEECH_PEAK = 300;

export function isSilent(samples: Int16Array): boolean {
  return samples.every((s) => Math.abs(s) < SPEECH_PEAK);
}

/** `ms` of a 440 Hz tone at `rate` Hz (amplitude 8000): what the synthesizers' fakes "say". */
export function tone(ms: number, rate: number, amplitude = 8_000): Int16Array {
  const n = Math.round((ms * rate) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 440 * i) / rate));
  return out;
}

/** Samples as little-endian bytes, interleaving `channels` copies of each. */
function le16(samples: Int16Array, channels = 1): Buffer {
  const out = Buffer.alloc(samples.length * 2 * channels);
  for (let i = 0; i < samples.length; i++) for (let c = 0; c < channels; c++) out.writeInt16LE(samples[i]!, (i * channels + c) * 2);
  return out;
}

/** A WAV file as a speech server writes one; `streamed`: OpenAI's placeholder sizes (0xFFFFFFFF). */
export function wavFile(samples: Int16Array, rate: number, o: { channels?: number; streamed?: boolean } = {}): Buffer {
  const channels = o.channels ?? 1;
  const data = le16(samples, channels);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(o.streamed ? 0xffffffff : 36 + data.length, 4);
  h.write('WAVEfmt ', 8, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2 * channels, 28);
  h.writeUInt16LE(2 * channels, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(o.streamed ? 0xffffffff : data.length, 40);
  return Buffer.concat([h, data]);
}

/** The samples of an uploaded file that must be a plain 8 kHz 16-bit mono PCM WAV (44-byte header), or why it is not one. */
export function lineWav(file: Buffer): Int16Array | string {
  if (file.length < 44 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 16) !== 'WAVEfmt ') return 'not a WAV file';
  if (file.readUInt32LE(4) !== file.length - 8) return 'RIFF size does not match the file';
  const format = file.readUInt16LE(20);
  const channels = file.readUInt16LE(22);
  const rate = file.readUInt32LE(24);
  const bits = file.readUInt16LE(34);
  if (format !== 1 || channels !== 1 || rate !== 8_000 || bits !== 16) return `format ${format}, ${channels} channels, ${rate} Hz, ${bits} bits`;
  if (file.readUInt32LE(28) !== 16_000 || file.readUInt16LE(32) !== 2) return 'byte rate or block align wrong';
  if (file.toString('ascii', 36, 40) !== 'data' || file.readUInt32LE(40) !== file.length - 44) return 'data chunk size does not match';
  const out = new Int16Array((file.length - 44) / 2);
  for (let i = 0; i < out.length; i++) out[i] = file.readInt16LE(44 + i * 2);
  return out;
}

// ---------------------------------------------------------------- OpenAI-compatible

function openaiError(message: string, type: string, code: string | null, param: string | null = null) {
  return { error: { message, type, param, code } };
}

const openaiErrors: ErrorBody = (status) => status === 429
  ? openaiError('Rate limit reached for requests', 'requests', 'rate_limit_exceeded')
  : status === 401
    ? openaiError('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
    : openaiError('The server had an error while processing your request. Sorry about that!', 'server_error', null);

/** OpenAI's 401s; undefined when the key is right (or none is wanted). */
function openaiAuth(apiKey: string | undefined, req: Recorded) {
  if (apiKey === undefined) return undefined;
  const auth = req.headers.authorization;
  if (!auth) {
    return openaiError("You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", 'invalid_request_error', null);
  }
  const given = auth.replace(/^Bearer /, '');
  if (!auth.startsWith('Bearer ') || given !== apiKey) {
    return openaiError(`Incorrect API key provided: ${maskKey(given)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
  }
  return undefined;
}

/** The formats createTranscription takes, by file name extension. */
const TRANSCRIPTION_FORMATS = ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm'];

export type TranscriptionUpload = { fields: Record<string, string>; fileName: string; fileType: string; samples: Int16Array };

export type OpenAITranscriptionOptions = {
  /** The key the server wants (OpenAI: always; whisper.cpp: none). */
  apiKey?: string;
  /** What it hears in anything louder than silence. */
  says?: string;
};

/** An OpenAI-compatible transcription server: POST /v1/audio/transcriptions. `uploads` holds what each request carried. */
export async function startOpenAITranscription(o: OpenAITranscriptionOptions = {}): Promise<FakeSpeechServer & { uploads: TranscriptionUpload[] }> {
  const uploads: TranscriptionUpload[] = [];
  const bad = (res: ServerResponse, message: string, param: string | null = null) => send(res, 400, openaiError(message, 'invalid_request_error', null, param));
  const s = fakeServer(async (req, res) => {
    const denied = openaiAuth(o.apiKey, req);
    if (denied) return send(res, 401, denied);
    if (req.method !== 'POST' || req.path !== '/v1/audio/transcriptions') {
      return send(res, 404, openaiError(`Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null));
    }
    const type = String(req.headers['content-type'] ?? '');
    if (!type.startsWith('multipart/form-data')) {
      return bad(res, `Invalid Content-Type header (${type}), expected multipart/form-data.`);
    }
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(req.body), { headers: { 'content-type': type } }).formData();
    } catch {
      return bad(res, 'Could not parse multipart form');
    }
    const fields: Record<string, string> = {};
    for (const [k, v] of form) if (typeof v === 'string') fields[k] = v;
    const file = form.get('file');
    if (!(file instanceof File)) return bad(res, "Missing required parameter: 'file'.", 'file');
    if (!fields.model) return bad(res, 'you must provide a model parameter', 'model');
    const ext = file.name.split('.').pop()?.toLowerCase() ?? '';
    if (!TRANSCRIPTION_FORMATS.includes(ext)) {
      return bad(res, `Invalid file format. Supported formats: ${JSON.stringify(TRANSCRIPTION_FORMATS)}`, 'file');
    }
    if (fields.language !== undefined && !/^[a-z]{2}$/.test(fields.language)) {
      return bad(res, `Invalid language '${fields.language}'. Language parameter must be specified in ISO-639-1 format.`, 'language');
    }
    const format = fields.response_format ?? 'json';
    if (!['json', 'text', 'verbose_json', 'srt', 'vtt'].includes(format)) return bad(res, `Invalid response_format '${format}'`, 'response_format');
    const samples = lineWav(Buffer.from(await file.arrayBuffer()));
    if (typeof samples === 'string') return bad(res, `Audio file might be corrupted or unsupported (${samples})`, 'file');
    uploads.push({ fields, fileName: file.name, fileType: file.type, samples });
    const text = isSilent(samples) ? '' : (o.says ?? 'Hello, how are you?');
    if (format === 'text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(text);
      return;
    }
    return send(res, 200, { text, usage: { type: 'duration', seconds: Math.ceil(samples.length / 8_000) } });
  }, openaiErrors);
  return Object.assign(await listen(s), { uploads });
}

/** The voices OpenAI lists for createSpeech. */
const OPENAI_VOICES = ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse', 'marin', 'cedar'];

export type OpenAISpeechOptions = {
  apiKey?: string;
  /** The voices it has (default OpenAI's; Kokoro's would be `af_heart`, ...). */
  voices?: string[];
  /** The audio it answers: its rate (OpenAI 24000, Piper 22050), channels, length. */
  rate?: number;
  channels?: number;
  ms?: number;
  /** Whether the WAV header carries the streaming placeholders (OpenAI does; default true). */
  streamed?: boolean;
  /** A server that answers MP3 whatever response_format says. */
  alwaysMp3?: boolean;
};

/** An OpenAI-compatible speech server: POST /v1/audio/speech. */
export async function startOpenAISpeech(o: OpenAISpeechOptions = {}): Promise<FakeSpeechServer> {
  const voices = o.voices ?? OPENAI_VOICES;
  const bad = (res: ServerResponse, message: string, param: string | null = null) => send(res, 400, openaiError(message, 'invalid_request_error', null, param));
  const s = fakeServer((req, res) => {
    const denied = openaiAuth(o.apiKey, req);
    if (denied) return send(res, 401, denied);
    if (req.method !== 'POST' || req.path !== '/v1/audio/speech') {
      return send(res, 404, openaiError(`Invalid URL (${req.method} ${req.path})`, 'invalid_request_error', null));
    }
    let f: Record<string, unknown>;
    try {
      if (!String(req.headers['content-type']).startsWith('application/json')) throw new Error('not JSON');
      f = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return bad(res, 'We could not parse the JSON body of your request.');
    }
    if (typeof f.model !== 'string' || !f.model) return bad(res, 'you must provide a model parameter', 'model');
    if (typeof f.input !== 'string') return bad(res, "Missing required parameter: 'input'.", 'input');
    if (f.input.length > 4096) return bad(res, `Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string with length ${f.input.length} instead.`, 'input');
    if (typeof f.voice !== 'string') return bad(res, "Missing required parameter: 'voice'.", 'voice');
    if (!voices.includes(f.voice)) return bad(res, `Invalid value for 'voice': '${f.voice}'.`, 'voice');
    const format = f.response_format ?? 'mp3';
    if (!['mp3', 'opus', 'aac', 'flac', 'wav', 'pcm'].includes(String(format))) return bad(res, `Invalid value for 'response_format': '${String(format)}'.`, 'response_format');
    if (format !== 'wav' || o.alwaysMp3) return sendAudio(res, 'audio/mpeg', Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000fake mp3 frames', 'latin1'));
    const rate = o.rate ?? 24_000;
    return sendAudio(res, 'audio/wav', wavFile(tone(o.ms ?? 1_500, rate), rate, { channels: o.channels ?? 1, streamed: o.streamed ?? true }));
  }, openaiErrors);
  return listen(s);
}

// ---------------------------------------------------------------- Deepgram

/** The model/language combinations the fake has: nova-2's codes, and English for `base`. */
const DEEPGRAM_MODELS: Record<string, string[]> = {
  'nova-2': [
    'bg', 'ca', 'cs', 'da', 'da-DK', 'de', 'de-CH', 'el', 'en', 'en-AU', 'en-GB', 'en-IN', 'en-NZ', 'en-US',
    'es', 'es-419', 'et', 'fi', 'fr', 'fr-CA', 'hi', 'hu', 'id', 'it', 'ja', 'ko', 'ko-KR', 'lt', 'lv', 'ms',
    'nl', 'nl-BE', 'no', 'pl', 'pt', 'pt-BR', 'ro', 'ru', 'sk', 'sv', 'sv-SE', 'th', 'th-TH', 'tr', 'uk', 'vi',
    'zh', 'zh-CN', 'zh-Hans', 'zh-Hant', 'zh-TW', 'multi',
  ],
  base: ['en', 'en-US'],
};

const deepgramError = (err_code: string, err_msg: string) => ({ err_code, err_msg, request_id: randomUUID() });

/** Deepgram's pre-recorded API: POST /v1/listen with the audio as the body. `uploads` holds the audio of each request. */
export async function startDeepgram(o: { apiKey: string; says?: string }): Promise<FakeSpeechServer & { uploads: Int16Array[] }> {
  const uploads: Int16Array[] = [];
  const s = fakeServer((req, res) => {
    if (req.headers.authorization !== `Token ${o.apiKey}`) return send(res, 401, deepgramError('INVALID_AUTH', 'Invalid credentials.'));
    if (req.method !== 'POST' || req.path !== '/v1/listen') return send(res, 404, deepgramError('NOT_FOUND', 'Not Found'));
    const type = String(req.headers['content-type'] ?? '');
    if (!type.startsWith('audio/')) return send(res, 400, deepgramError('Bad Request', 'Bad Request: failed to process audio: corrupt or unsupported data'));
    const model = req.query.get('model') ?? 'base';
    const language = req.query.get('language') ?? 'en';
    if (!DEEPGRAM_MODELS[model]?.includes(language)) {
      return send(res, 400, deepgramError('Bad Request', 'Bad Request: No such model/language/tier combination found.'));
    }
    const samples = lineWav(req.body);
    if (typeof samples === 'string') return send(res, 400, deepgramError('Bad Request', 'Bad Request: failed to process audio: corrupt or unsupported data'));
    uploads.push(samples);
    const transcript = isSilent(samples) ? '' : (o.says ?? 'Hello, how are you?');
    const duration = samples.length / 8_000;
    const words = transcript.split(/\s+/).filter(Boolean).map((word, i, all) => ({
      word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''), punctuated_word: word,
      start: (i * duration) / all.length, end: ((i + 1) * duration) / all.length, confidence: 0.98,
    }));
    return send(res, 200, {
      metadata: {
        transaction_key: 'deprecated', request_id: randomUUID(), sha256: createHash('sha256').update(req.body).digest('hex'),
        created: new Date().toISOString(), duration, channels: 1, models: [randomUUID()],
        model_info: { [randomUUID()]: { name: `2-general-${model}`, version: '2024-01-09.29447', arch: model } },
      },
      results: { channels: [{ alternatives: [{ transcript, confidence: transcript ? 0.98 : 0, words }] }] },
    });
  }, (status) => status === 429
    ? deepgramError('TOO_MANY_REQUESTS', 'Too many requests. Please try again later')
    : status === 403
      ? deepgramError('INSUFFICIENT_PERMISSIONS', 'Project does not have access to the requested model.')
      : status === 401
        ? deepgramError('INVALID_AUTH', 'Invalid credentials.')
        : deepgramError('INTERNAL_SERVER_ERROR', 'The server encountered an error.'));
  return Object.assign(await listen(s), { uploads });
}

// ---------------------------------------------------------------- ElevenLabs

export const ELEVENLABS_VOICES = ['JBFqnCBsd6RMkjVDRZzb', '21m00Tcm4TlvDq8ikWAM', 'EXAVITQu4vr4xnSDxMaL'];
const ELEVENLABS_MODELS = ['eleven_multilingual_v2', 'eleven_flash_v2_5', 'eleven_turbo_v2_5', 'eleven_v3'];
const OUTPUT_FORMATS = [
  'mp3_22050_32', 'mp3_44100_32', 'mp3_44100_64', 'mp3_44100_96', 'mp3_44100_128', 'mp3_44100_192',
  'pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100', 'pcm_48000', 'ulaw_8000', 'alaw_8000',
];

const elevenError = (status: string, message: string) => ({ detail: { status, message } });

/**
 * ElevenLabs: POST /v1/text-to-speech/{voice_id}. `voices` are the ids the
 * account has (the default voices, and any clone added to it); `ms` the
 * length of every answer.
 */
export async function startElevenLabs(o: { apiKey: string; voices?: string[]; ms?: number }): Promise<FakeSpeechServer> {
  const voices = o.voices ?? ELEVENLABS_VOICES;
  const s = fakeServer((req, res) => {
    if (req.headers['xi-api-key'] !== o.apiKey) return send(res, 401, elevenError('invalid_api_key', 'Invalid API key'));
    const m = /^\/v1\/text-to-speech\/([^/]+)$/.exec(req.path);
    if (req.method !== 'POST' || !m) return send(res, 404, { detail: 'Not Found' });
    const voiceId = decodeURIComponent(m[1]!);
    const format = req.query.get('output_format') ?? 'mp3_44100_128';
    if (!OUTPUT_FORMATS.includes(format)) {
      return send(res, 422, { detail: [{ loc: ['query', 'output_format'], msg: `value is not a valid enumeration member; permitted: ${OUTPUT_FORMATS.map((f) => `'${f}'`).join(', ')}`, type: 'type_error.enum' }] });
    }
    let f: Record<string, unknown>;
    try {
      if (!String(req.headers['content-type']).startsWith('application/json')) throw new Error('not JSON');
      f = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 422, { detail: [{ loc: ['body'], msg: 'value is not a valid dict', type: 'type_error.dict' }] });
    }
    if (typeof f.text !== 'string') return send(res, 422, { detail: [{ loc: ['body', 'text'], msg: 'field required', type: 'value_error.missing' }] });
    const model = typeof f.model_id === 'string' ? f.model_id : 'eleven_multilingual_v2';
    if (!ELEVENLABS_MODELS.includes(model)) {
      return send(res, 400, elevenError('invalid_uid', `An invalid ID has been received: '${model}'. Make sure to provide a correct one.`));
    }
    if (f.language_code !== undefined && f.language_code !== null && !['eleven_flash_v2_5', 'eleven_turbo_v2_5'].includes(model)) {
      return send(res, 400, elevenError('unsupported_language', `Model '${model}' does not support the language_code parameter.`));
    }
    if (f.text.length > 10_000) {
      return send(res, 400, elevenError('max_character_limit_exceeded', `Text is too long: ${f.text.length} characters, the limit is 10000.`));
    }
    if (!voices.includes(voiceId)) return send(res, 404, elevenError('voice_not_found', `A voice with the voice_id ${voiceId} was not found.`));
    if (format.startsWith('pcm_')) {
      const rate = Number(format.slice(4));
      return sendAudio(res, 'audio/pcm', le16(tone(o.ms ?? 2_000, rate)));
    }
    return sendAudio(res, 'audio/mpeg', Buffer.from('ID3\u0004\u0000\u0000\u0000\u0000\u0000\u0000fake mp3 frames', 'latin1'));
  }, (status) => status === 429
    ? elevenError('too_many_concurrent_requests', 'Too many concurrent requests. Your current subscription is associated with a maximum of 2 concurrent requests (running in parallel).')
    : status === 401
      ? elevenError('invalid_api_key', 'Invalid API key')
      : elevenError('internal_server_error', 'An internal server error occurred.'));
  return listen(s);
}

// ---------------------------------------------------------------- vosk-server

/** What one WebSocket connection to the vosk fake carried. */
export type VoskSession = {
  /** The config message, parsed (null until one came). */
  config: Record<string, unknown> | null;
  /** Every text message, as sent. */
  texts: string[];
  /** The size of every binary message. */
  chunkSizes: number[];
  /** The audio received, as 16-bit samples. */
  samples: Int16Array;
  /** Whether the exact `{"eof" : 1}` came. */
  eof: boolean;
  /** Whether the connection has closed. */
  closed: boolean;
};

export type VoskOptions = {
  /**
   * What it hears in anything louder than silence. Several phrases: each but
   * the last comes back as a result as soon as audio for it arrived (a pause
   * ended it), the last in the final result.
   */
  says?: string | string[];
  /** The final result in the {"alternatives": [...]} form (VOSK_ALTERNATIVES set). */
  alternatives?: boolean;
};

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const VOSK_EOF = '{"eof" : 1}';

/** A server frame (unmasked). */
function wsFrame(opcode: number, payload: Buffer): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65_536) { head[0] = 0x80 | opcode; head[1] = 126; head.writeUInt16BE(n, 2); }
  if (n >= 65_536) { head[0] = 0x80 | opcode; head[1] = 127; head.writeBigUInt64BE(BigInt(n), 2); }
  return Buffer.concat([head, payload]);
}

/**
 * A vosk-server (websocket/asr_server.py) on a minimal RFC 6455 server of
 * its own: the handshake, masked client frames (fragmented or not), text,
 * binary, ping and close. `fail` refuses the upgrade with that HTTP status;
 * `garble` answers the audio with something that is not JSON; `hang` takes
 * everything and answers nothing. `sessions` records each connection.
 */
export async function startVosk(o: VoskOptions = {}): Promise<FakeSpeechServer & { sessions: VoskSession[] }> {
  const phrases = o.says === undefined ? ['hello how are you'] : Array.isArray(o.says) ? o.says : [o.says];
  const sessions: VoskSession[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((_req, res) => { res.writeHead(426, { upgrade: 'websocket' }); res.end(); });
  const fake: FakeSpeechServer & { sessions: VoskSession[] } = {
    url: '', requests: [], fail: null, garble: false, hang: false, sessions,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const u = new URL(req.url ?? '/', 'http://fake');
    fake.requests.push({ method: req.method ?? '', path: u.pathname, query: u.searchParams, headers: req.headers, body: Buffer.alloc(0) });
    const key = req.headers['sec-websocket-key'];
    if (fake.fail || typeof key !== 'string' || req.headers.upgrade?.toLowerCase() !== 'websocket') {
      const status = fake.fail?.status ?? 400;
      const retry = fake.fail?.retryAfter ? `Retry-After: ${fake.fail.retryAfter}\r\n` : '';
      socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${retry}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);

    const session: VoskSession = { config: null, texts: [], chunkSizes: [], samples: new Int16Array(0), eof: false, closed: false };
    sessions.push(session);
    socket.on('close', () => { session.closed = true; });
    const audio: Buffer[] = [];
    /** Phrases already answered as results (a pause ended them). */
    let results = 0;
    let closing = false;

    const sendText = (s: string) => { if (!closing) socket.write(wsFrame(0x1, Buffer.from(s, 'utf8'))); };
    const closeWith = (code: number, reason = '') => {
      if (closing) return;
      closing = true;
      const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
      payload.writeUInt16BE(code, 0);
      payload.write(reason, 2);
      socket.end(wsFrame(0x8, payload));
    };
    const heard = () => {
      const all = Buffer.concat(audio);
      const samples = new Int16Array(Math.floor(all.length / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = all.readInt16LE(i * 2);
      session.samples = samples;
      return samples;
    };
    const words = (text: string, from: number) => text.split(' ').filter(Boolean).map((word, i) => ({ conf: 1, start: from + i * 0.3, end: from + (i + 1) * 0.3, word }));

    const onMessage = (opcode: number, data: Buffer) => {
      if (fake.hang) return;
      if (opcode === 0x1) {
        const text = data.toString('utf8');
        session.texts.push(text);
        if (text.includes('config')) {
          session.config = (JSON.parse(text) as { config: Record<string, unknown> }).config;
          return;
        }
        if (text === VOSK_EOF) {
          session.eof = true;
          const samples = heard();
          const rest = isSilent(samples) ? '' : phrases.slice(results).join(' ');
          const final = o.alternatives
            ? { alternatives: [{ confidence: 312.5, text: rest }] }
            : rest ? { result: words(rest, session.chunkSizes.length * 0.5), text: rest } : { text: '' };
          sendText(JSON.stringify(final));
          closeWith(1000);
          return;
        }
        // Fed to KaldiRecognizer.AcceptWaveform as audio, which raises: the handler dies.
        closeWith(1011, 'internal error');
        return;
      }
      // Binary: audio.
      audio.push(data);
      session.chunkSizes.push(data.length);
      if (fake.garble) return sendText('<html>502 Bad Gateway</html>');
      const voiced = !isSilent(heard());
      if (voiced && results < phrases.length - 1) {
        const phrase = phrases[results++]!;
        return sendText(JSON.stringify({ result: words(phrase, (session.chunkSizes.length - 1) * 0.5), text: phrase }));
      }
      sendText(JSON.stringify({ partial: voiced ? phrases[results] : '' }));
    };

    let buf: Buffer = head.length ? Buffer.from(head) : Buffer.alloc(0);
    let fragments: Buffer[] = [];
    let fragmentOpcode = 0;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (buf.length < 2) return;
        const fin = (buf[0]! & 0x80) !== 0;
        const opcode = buf[0]! & 0x0f;
        const masked = (buf[1]! & 0x80) !== 0;
        let len = buf[1]! & 0x7f;
        let at = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); at = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); at = 10; }
        if (buf.length < at + (masked ? 4 : 0) + len) return;
        const mask = masked ? buf.subarray(at, at + 4) : null;
        at += masked ? 4 : 0;
        const payload = Buffer.from(buf.subarray(at, at + len));
        buf = buf.subarray(at + len);
        // RFC 6455 5.1: a client masks every frame; a server closes on one that is not.
        if (!mask) return closeWith(1002, 'unmasked frame');
        for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
        if (opcode === 0x8) { closeWith(payload.length >= 2 ? payload.readUInt16BE(0) : 1000); return; }
        if (opcode === 0x9) { socket.write(wsFrame(0xa, payload)); continue; }
        if (opcode === 0xa) continue;
        if (opcode === 0x0) {
          fragments.push(payload);
          if (fin) { onMessage(fragmentOpcode, Buffer.concat(fragments)); fragments = []; }
          continue;
        }
        if (fin) onMessage(opcode, payload);
        else { fragmentOpcode = opcode; fragments = [payload]; }
      }
    });
    socket.on('error', () => {});
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
