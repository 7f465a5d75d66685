import { addressOf, joinPages } from './pages.ts';
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { openRoomStream } from './sse.ts';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { PUBLIC_LIMITS } from '../src/public-limits.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, type Boss } from '../src/jobs-registry.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { ApertiumEngine } from '../src/engines/apertium/translate.ts';
import { startApy, type ApyProcess } from '../src/engines/apertium/apy.ts';
import { TranslationChain } from '../src/engines/translate/chain.ts';
import type { TranslationEngine } from '../src/engines/translate/engine.ts';
import { startTranslation, type Translation } from '../src/engines/translate/index.ts';
import { startRecognizers } from '../src/engines/speech/index.ts';
import { PocketsphinxRecognizer, pocketsphinxInstalled } from '../src/engines/pocketsphinx/recognizer.ts';
import type { RecognizerChain } from '../src/engines/speech/recognizers.ts';
import type { HeardUtterance } from '../src/engines/speech/recognizer.ts';
import { AudioSocket } from '../src/rooms/audio.ts';
import { Hearing } from '../gateway/media/hearing.ts';
import { simulatedTranslator } from '../src/sim/translator.ts';
import { until } from '../test/helpers/wait.ts';
import { procCpu } from './proc.ts';
import { envNumber, round, sleep, stats, type LatencyStats } from './stats.ts';

// The `room_audio` target of npm run bench (bench/run.ts): people speaking
// into a room through its audio socket (src/rooms/audio.ts, GET /r/{id}/audio,
// what the room page's microphone opens), read by the embedded recognizer
// (PocketSphinx, TOLK_RECOGNIZE=pocketsphinx: English only, so everyone speaks
// en) and translated by Apertium (this file starts its own apertium-apy, as
// bench/translate.ts does: en→es, en→pt/fr/it through Spanish) for pages
// hearing es, pt, fr and it (a quarter each). The server is this process (the
// production app from buildApp, workers off, its recognizers those of
// TOLK_RECOGNIZE); the people run in a child (this file with --client).
//
// BENCH_ROOM_AUDIO_PEOPLE (default 200) people join one public room
// (POST /r/{id}/participants, as bench/translate.ts's pages do), open their
// page's stream (GET /r/{id}/stream, Server-Sent Events, each on a raw socket
// that notes the moment the chunk holding a phrase arrives) and then their
// microphone (the audio socket; each waits for its `ready`). All of them stay
// open for the whole run. Then BENCH_ROOM_AUDIO_PHRASES (default 20) phrases
// are spoken in turn, one at a time, by person 0, 1, 2, ..., each a real
// recorded sentence of Debian's pocketsphinx-testdata (librivox, 16 kHz mono,
// 3 to 7 s), cycling through the 5: its PCM in 100 ms messages (3,200 bytes,
// what the page's worklet sends) as fast as the socket takes them, then
// {"type":"end"} (push-to-talk released). BENCH_ROOM_AUDIO_REALTIME=1 sends
// the messages 100 ms apart instead, as a microphone makes them (the server
// then reads the phrase so far about every second for the speaker's partial
// results). A phrase's clock starts when its end was sent.
//
// Why 20 phrases: on a 2-core machine PocketSphinx reads these sentences in
// about 2-3.5 s each (one decoder: the recognizer leaves a core to the rest),
// and each phrase is read twice (the baseline, then the server), so a phrase
// takes 6-8 s; 20 phrases (each sentence 4 times) keep the whole target near
// 3 minutes with the setup. BENCH_ROOM_AUDIO_PHRASES=200 lets every person speak
// once (about 25 minutes).
//
// Per phrase: the time from its end until the speaker's page has its `final`
// (recognized and published; the server's own recognize_ms is in it), and
// until each of the pages holds the caption in its language (per phrase, the
// last page's time; and every page's). Every page must hold it translated
// (not `untranslated`, in its language, the same words as the other pages of
// that language and as the translator alone made from the same text): a
// caption missing or untranslated on any page is a failure, and so is a
// phrase recognized as nothing.
//
// The baselines, in the same run, before each phrase: the recognizer alone
// (a PocketsphinxRecognizer of its own, one decoder, in this process, on the
// very PCM the server will read: the recording cut by the same voice activity
// detection, from its preroll to its last voiced frame) and the translator
// alone (a fresh TranslationChain([new ApertiumEngine({ url })]).translate(text,
// 'en', ['es', 'pt', 'fr', 'it']) on the text it recognized, as
// bench/translate.ts's baseline does).
// Target: p99 of the last page's caption <= recognizer p99 + translator p99 + 150 ms.
//
// Also: CPU per second of audio sent, over the phrases (from the first message
// to the last page holding the caption): this process (the server; the
// people are in the child and the baselines run outside those windows), the
// server's decoders (pocketsphinx_batch, from /proc) and APY (its HTTP
// process and pipelines), beside the recognizer alone's decoder over the same
// seconds (it reads each phrase once; the server's also reads partial results); memory per open audio socket: what opening them all
// adds to this process's heap (+ external) and RSS, after a full GC, over their
// number (the sockets idle, as push-to-talk pages between phrases).
//
// Where a phrase's time goes (ms after its end was sent; always measured):
// the server's end of the phrase (AudioSocket's finish: the end message
// read, after the audio before it), the recognizer asked for it (later while
// a partial result is being read in the one decoder) and its answer, the
// `final` at the speaker (published: the phrase's transaction committed),
// the feed's read of the new phrase, the claim of its translations, each
// engine request (en→es; es→pt/fr/it), each store, the writes of the phrase
// to the pages (first to last res.write), the first and last page holding it.

export const ROOM_AUDIO_TARGETS = { p99_over_baselines_ms: 150 } as const;

const LANGS = ['es', 'pt', 'fr', 'it'] as const;
const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const RATE = 16_000;
/** 100 ms of 16 kHz 16-bit mono: what the room page sends a message. */
const MESSAGE_BYTES = 3200;

type Recording = { name: string; said: string; pcm: Buffer; seconds: number; cut: Int16Array; cutMs: number };

/** Debian's recorded sentences: the PCM after the 44-byte header, what was said, and the cut the server's voice activity detection makes of it. */
function recordings(): Recording[] {
  const lines = fs.readFileSync(`${DATA}/transcription`, 'utf8').trim().split('\n');
  const said = new Map(lines.map((l) => /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim())).filter((m) => m !== null).map((m) => [m[2]!, m[1]!]));
  const names = fs.readFileSync(`${DATA}/fileids`, 'utf8').trim().split('\n').map((s) => s.trim().replace(/^.*\//, '')).filter(Boolean);
  return names.map((name) => {
    const pcm = fs.readFileSync(`${DATA}/${name}.wav`).subarray(44);
    // The server's cut (src/rooms/audio.ts: Hearing({ voiceRms: 300, maxMs: 30_000 }), 20 ms frames of 320 samples, then the end message's flush).
    const h = new Hearing({ voiceRms: 300, maxMs: 30_000 });
    let u = null;
    for (let at = 0; at + 640 <= pcm.length; at += 640) {
      const f = new Int16Array(320);
      for (let i = 0; i < 320; i++) f[i] = pcm.readInt16LE(at + i * 2);
      if (h.push(f)) throw new Error(`${name}: the voice activity detection cuts it in two`);
    }
    u = h.flush();
    if (!u) throw new Error(`${name}: no phrase in it`);
    return { name, said: said.get(name) ?? '', pcm, seconds: pcm.length / 2 / RATE, cut: u.pcm, cutMs: u.audioMs };
  });
}

type ParentMsg =
  | { type: 'setup'; base: string; roomId: string; n: number; concurrency: number }
  | { type: 'open' }
  | { type: 'mics' }
  | { type: 'speak'; k: number; speaker: number; file: string; realtime: boolean; timeoutMs: number }
  | { type: 'close' };
type ClientMsg =
  | { type: 'joined'; ms: number; failures: number; sample: string }
  | { type: 'opened'; failures: number; sample: string }
  | { type: 'mics'; ms: number; failures: number; sample: string }
  | {
    type: 'spoken'; k: number; participant: string | null; first_sent: number; end_sent: number; final_at: number | null;
    final: { seq: number | null; text: string | null; audio_ms: number; recognize_ms?: number; reason?: string } | null;
    partials: number; at: number[]; texts: Record<string, string>; wrong: number; untranslated: number; sample: string;
  }
  | { type: 'closed' };

/** The child: the people. Joins them, opens their streams and microphones, speaks, and notes when each page holds each phrase. */
async function client(): Promise<void> {
  const setup = await new Promise<Extract<ParentMsg, { type: 'setup' }>>((resolve) => process.once('message', resolve));
  const { base, roomId, n, concurrency } = setup;
  const { hostname, port } = new URL(base);
  let failures = 0;
  let sample = '';
  const fail = (why: string) => {
    failures++;
    sample ||= why;
  };

  // --- Joins (bench/pages.ts): everyone speaks en; person i hears LANGS[i % 4].
  const { creds, ms: joinMs } = await joinPages({ base, roomId, n, concurrency, langs: LANGS, fail });
  process.send!({ type: 'joined', ms: joinMs, failures, sample } satisfies ClientMsg);

  // --- Streams (as bench/translate.ts's).
  const sockets: net.Socket[] = [];
  type Got = { at: number[]; raw: Array<[page: number, data: string]> };
  const got = new Map<number, Got>();
  let settledPages = 0;
  let onProgress: () => void = () => {};
  let closing = false;

  const open = (i: number) => {
    const p = creds[i];
    if (!p) { fail(`page ${i} never joined`); settledPages++; return; }
    let done = false;
    const settle = (why: string | null) => {
      if (done) return;
      done = true;
      settledPages++;
      if (why) { fail(`page ${i}: ${why}`); socket.destroy(); }
      onProgress();
    };
    const socket = openRoomStream({ host: hostname, port: Number(port), localAddress: addressOf(i), roomId, participant: p }, {
      onEvent: ({ name, id, data }, now) => {
        if (name === 'phrase') {
          const seq = Number(id);
          let g = got.get(seq);
          if (!g) got.set(seq, (g = { at: [], raw: [] }));
          g.at.push(now);
          g.raw.push([i, data]);
          onProgress();
        } else if (name === 'participants') {
          settle(null);
        } else if (name === 'ended' || name === 'gone') {
          fail(`page ${i}: ${name} ${data}`);
        }
      },
      onFail: (why) => settle(why),
      onClose: () => {
        if (!closing) { if (done) fail(`page ${i}: stream closed`); else settle('closed before its participants event'); }
      },
    });
    sockets.push(socket);
  };

  // --- Microphones: the audio socket as the page opens it (Node's WebSocket client).
  type Mic = { ws: WebSocket; messages: Array<{ type: string; at: number; [k: string]: unknown }>; onMessage: () => void; closed: string | null };
  const mics: Mic[] = [];
  const wsBase = base.replace(/^http/, 'ws');
  const openMic = (i: number) =>
    new Promise<void>((resolve) => {
      const p = creds[i];
      if (!p) { fail(`microphone ${i}: never joined`); return resolve(); }
      const ws = new WebSocket(`${wsBase}/r/${roomId}/audio?participant=${p.id}&secret=${p.secret}`);
      ws.binaryType = 'arraybuffer';
      const mic: Mic = { ws, messages: [], onMessage: () => {}, closed: null };
      mics[i] = mic;
      let ready = false;
      ws.addEventListener('message', (e) => {
        const m = { ...(JSON.parse(String(e.data)) as { type: string }), at: Date.now() };
        if (m.type === 'ready' && !ready) { ready = true; resolve(); return; }
        mic.messages.push(m);
        mic.onMessage();
      });
      ws.addEventListener('close', (e) => {
        mic.closed = `${e.code} ${e.reason}`;
        if (!ready) { fail(`microphone ${i}: closed before ready (${mic.closed})`); resolve(); } else if (!closing) fail(`microphone ${i}: closed (${mic.closed})`);
        mic.onMessage();
      });
      ws.addEventListener('error', () => {});
    });

  const pcmOf = new Map<string, Buffer>();
  const speak = async (m: Extract<ParentMsg, { type: 'speak' }>) => {
    const mic = mics[m.speaker];
    let pcm = pcmOf.get(m.file);
    if (!pcm) pcmOf.set(m.file, (pcm = fs.readFileSync(m.file).subarray(44)));
    const reply = (r: Omit<Extract<ClientMsg, { type: 'spoken' }>, 'type' | 'k' | 'participant'>) =>
      process.send!({ type: 'spoken', k: m.k, participant: creds[m.speaker]?.id ?? null, ...r } satisfies ClientMsg);
    if (!mic || mic.closed) {
      return reply({ first_sent: 0, end_sent: 0, final_at: null, final: null, partials: 0, at: [], texts: {}, wrong: 0, untranslated: 0, sample: `microphone ${m.speaker} is not open` });
    }
    mic.messages.length = 0;
    const firstSent = Date.now();
    for (let i = 0; i < pcm.length; i += MESSAGE_BYTES) {
      mic.ws.send(pcm.subarray(i, i + MESSAGE_BYTES));
      if (m.realtime) await sleep(100);
    }
    mic.ws.send(JSON.stringify({ type: 'end' }));
    const endSent = Date.now();
    // The final (recognized and published), then every page holding its seq.
    const final = await new Promise<Mic['messages'][number] | null>((resolve) => {
      const timer = setTimeout(() => { mic.onMessage = () => {}; resolve(null); }, m.timeoutMs);
      mic.onMessage = () => {
        const f = mic.messages.find((x) => x.type === 'final' || x.type === 'error');
        if (f || mic.closed) { clearTimeout(timer); mic.onMessage = () => {}; resolve(f ?? null); }
      };
      mic.onMessage();
    });
    const partials = mic.messages.filter((x) => x.type === 'partial').length;
    const f = final && final.type === 'final' ? (final as unknown as NonNullable<Extract<ClientMsg, { type: 'spoken' }>['final']>) : null;
    const sent = { first_sent: firstSent, end_sent: endSent, final_at: final?.at ?? null, final: f, partials };
    if (!f || f.seq === null) {
      return reply({ ...sent, at: [], texts: {}, wrong: 0, untranslated: 0, sample: final ? `speaker ${m.speaker}: ${JSON.stringify(final)}` : `speaker ${m.speaker}: no final in ${m.timeoutMs} ms` });
    }
    const seq = f.seq;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { onProgress = () => {}; resolve(); }, m.timeoutMs);
      onProgress = () => { if ((got.get(seq)?.at.length ?? 0) >= n) { clearTimeout(timer); onProgress = () => {}; resolve(); } };
      onProgress();
    });
    const g = got.get(seq) ?? { at: [], raw: [] };
    got.delete(seq);
    // Every page must hold the phrase in its own language, translated, in the same words as the other pages of that language.
    const texts: Record<string, string> = {};
    let wrong = 0;
    let untranslated = 0;
    let why = '';
    for (const [i, data] of g.raw) {
      const hear = LANGS[i % LANGS.length]!;
      const ph = JSON.parse(data) as { lang: string; text: string | null; untranslated: boolean; original: string };
      if (ph.lang !== hear) { wrong++; why ||= `page ${i} hears ${hear}, got ${ph.lang}`; }
      else if (ph.untranslated) { untranslated++; why ||= `page ${i}: untranslated ${JSON.stringify(ph.text)}`; }
      else if (ph.original !== f.text) { wrong++; why ||= `page ${i}: the original ${JSON.stringify(ph.original)}, the speaker's final ${JSON.stringify(f.text)}`; }
      else {
        const seen = texts[hear];
        if (seen === undefined) texts[hear] = ph.text ?? '';
        else if (seen !== ph.text) { wrong++; why ||= `page ${i}: ${JSON.stringify(ph.text)} where another ${hear} page got ${JSON.stringify(seen)}`; }
      }
    }
    reply({ ...sent, at: g.at, texts, wrong, untranslated, sample: why });
  };

  let queue: Promise<unknown> = Promise.resolve();
  process.on('message', (m: ParentMsg) => {
    if (m.type === 'open') {
      for (let i = 0; i < n; i++) open(i);
      onProgress = () => {
        if (settledPages < n) return;
        onProgress = () => {};
        process.send!({ type: 'opened', failures, sample } satisfies ClientMsg);
      };
      onProgress();
    } else if (m.type === 'mics') {
      const t0 = Date.now();
      const before = failures;
      // 16 at a time, as the joins.
      let next = 0;
      void Promise.all(Array.from({ length: concurrency }, async () => {
        for (let i = next++; i < n; i = next++) await openMic(i);
      })).then(() => process.send!({ type: 'mics', ms: Date.now() - t0, failures: failures - before, sample } satisfies ClientMsg));
    } else if (m.type === 'speak') {
      queue = queue.then(() => speak(m)).catch((err: unknown) => { fail(String(err)); });
    } else if (m.type === 'close') {
      closing = true;
      for (const mic of mics) mic?.ws.close();
      for (const s of sockets) s.destroy();
      process.send!({ type: 'closed' } satisfies ClientMsg);
    }
  });
}

function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

/** One engine request as the chain made it (ms since the epoch). */
type Call = { from: string; to: string[]; start: number; end: number };
const clock = () => performance.timeOrigin + performance.now();

/** Times every translate() of an engine (one call: one request per target language, in parallel). */
function timeEngine(e: TranslationEngine, calls: Call[]): void {
  const translate = e.translate.bind(e);
  (e as { translate: TranslationEngine['translate'] }).translate = async (text, from, to, signal) => {
    const start = clock();
    try {
      return await translate(text, from, to, signal);
    } finally {
      calls.push({ from, to: [...to], start, end: clock() });
    }
  };
}

type Step = { kind: 'read' | 'claim' | 'store'; start: number; end: number };
type Heard = { participant: string; partial: boolean; start: number; end: number; audioMs: number };

/**
 * The server's steps, timed in this process: the phrase's end (AudioSocket's finish), each read of the
 * recognizer (final or partial), the feed's read, the claim and stores of translations, and the res.writes of phrases.
 */
function instrument(pool: Pool, recognizer: RecognizerChain) {
  const steps: Step[] = [];
  const writes: number[] = [];
  const finished: Array<{ participant: string; at: number }> = [];
  const heard: Heard[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const cfg = args[0] as { text?: string } | string | undefined;
    const text = typeof cfg === 'string' ? cfg : cfg?.text ?? '';
    const kind: Step['kind'] | null = text.includes('FROM room_segments') ? 'read'
      : text.includes('INSERT INTO room_translations') ? 'claim'
        : text.includes('UPDATE room_translations t SET status') ? 'store' : null;
    const start = clock();
    const out = query(...args);
    if (kind && out instanceof Promise) out.then(() => steps.push({ kind, start, end: clock() }), () => {});
    return out;
  };
  const proto = http.ServerResponse.prototype as unknown as { write: (...args: unknown[]) => boolean };
  const write = proto.write;
  proto.write = function (this: unknown, ...args: unknown[]) {
    if (typeof args[0] === 'string' && args[0].includes('event: phrase')) writes.push(clock());
    return write.apply(this, args);
  };
  const sock = AudioSocket.prototype as unknown as { finish: (pcm: Int16Array, audioMs: number) => void };
  const finish = sock.finish;
  sock.finish = function (this: { p: { id: string } }, pcm: Int16Array, audioMs: number) {
    finished.push({ participant: this.p.id, at: clock() });
    return finish.call(this, pcm, audioMs);
  };
  const engines = recognizer.engines.map((e) => {
    const recognize = e.recognize.bind(e);
    (e as { recognize: typeof e.recognize }).recognize = async (u: HeardUtterance, signal?: AbortSignal) => {
      const start = clock();
      try {
        return await recognize(u, signal);
      } finally {
        heard.push({ participant: u.key.replace(/:partial$/, ''), partial: u.key.endsWith(':partial'), start, end: clock(), audioMs: u.audioMs });
      }
    };
    return [e, recognize] as const;
  });
  return {
    /** What happened since `from` (and clears it). */
    take(from: number) {
      const out = {
        steps: steps.filter((x) => x.start >= from).sort((a, b) => a.start - b.start),
        writes: writes.filter((x) => x >= from),
        finished: finished.filter((x) => x.at >= from),
        heard: heard.filter((x) => x.end >= from).sort((a, b) => a.start - b.start),
      };
      steps.length = 0;
      writes.length = 0;
      finished.length = 0;
      heard.length = 0;
      return out;
    },
    restore() {
      (pool as unknown as { query: unknown }).query = query;
      proto.write = write;
      sock.finish = finish;
      for (const [e, recognize] of engines) (e as { recognize: unknown }).recognize = recognize;
    },
  };
}

/** Every process under `pid` (the children of each of its threads, recursively). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    let kids: number[] = [];
    try {
      kids = fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      continue;
    }
    for (const k of kids) out.push(k, ...descendants(k));
  }
  return out;
}
const children = () => new Set(descendants(process.pid));

/** CPU seconds of the processes under `roots` (and the roots), read now; null off Linux. */
function treeCpu(roots: readonly number[]): number | null {
  return procCpu([...roots, ...roots.flatMap((r) => descendants(r))]);
}

/** Where one phrase's time went, in ms after its end was sent (null: not seen). */
export type AudioPhraseDiag = {
  /** Sending the phrase's audio (first message to the end message). */
  send_ms: number;
  /** The server's end of the phrase (the end message read). */
  ended_ms: number | null;
  /** The recognizer asked for the final read, and its answer. */
  recognize_at_ms: number | null;
  recognized_ms: number | null;
  /** Partial reads during the phrase, and how long the one before the final held the decoder after the phrase ended. */
  partial_reads: number;
  partial_after_end_ms: number | null;
  /** The speaker's page has its `final` (published). */
  final_ms: number | null;
  /** The server's recognize time, as the final says. */
  server_recognize_ms: number | null;
  read_at_ms: number | null;
  claimed_ms: number | null;
  engine1_at_ms: number | null;
  engine1_ms: number | null;
  stored1_ms: number | null;
  engine2_at_ms: number | null;
  engine2_ms: number | null;
  stored2_ms: number | null;
  first_write_ms: number | null;
  last_write_ms: number | null;
  first_page_ms: number | null;
  last_page_ms: number | null;
};

export type AudioPhrase = {
  seq: number | null;
  speaker: number;
  file: string;
  audio_s: number;
  text: string | null;
  received: number;
  /** Baselines: the recognizer alone on the same PCM, the translator alone on its text. */
  recognizer_ms: number;
  translator_ms: number;
  last_ms: number | null;
  p50_ms: number | null;
  diag: AudioPhraseDiag;
};

export type RoomAudioResult = {
  people: number;
  langs: string[];
  phrases: number;
  realtime: boolean;
  failures: number;
  /** End of the phrase → the `final` at the speaker. */
  final: LatencyStats;
  /** The server's own recognize time (final.recognize_ms). */
  server_recognize: LatencyStats;
  /** End of the phrase → the last page holding the caption, per phrase. */
  last: LatencyStats;
  /** End of the phrase → each page holding it, every page of every phrase. */
  per_page: LatencyStats;
  recognizer: LatencyStats;
  translator: LatencyStats;
  target_ms: number;
  audio_seconds: number;
  cpu_ms_per_audio_s: { server: number | null; decoders: number | null; apy: number | null; baseline_decoder: number | null };
  memory_per_socket: { heap_bytes: number; rss_bytes: number };
  steps_p50: Record<string, number | null>;
  per_phrase: AudioPhrase[];
  sample: Record<string, string>;
  setup: { join_ms: number; streams_ms: number; mics_ms: number };
  met: { p99: boolean };
};

export async function runRoomAudioBench(databaseUrl: string, log: (m: string) => void): Promise<RoomAudioResult> {
  const n = Math.max(LANGS.length, Math.round(envNumber('BENCH_ROOM_AUDIO_PEOPLE', 200)));
  const phrases = Math.max(1, Math.round(envNumber('BENCH_ROOM_AUDIO_PHRASES', 20)));
  const gapMs = envNumber('BENCH_ROOM_AUDIO_GAP_MS', 300);
  const realtime = process.env.BENCH_ROOM_AUDIO_REALTIME === '1';
  if (!pocketsphinxInstalled()) throw new Error('room_audio: pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us pocketsphinx-testdata)');
  const recs = recordings();
  for (const r of recs) for (const l of LANGS) if (simulatedTranslator.known(r.said, 'en', l) !== null) throw new Error(`"${r.said}" is a phrasebook line`);

  // Everyone joins from this machine: the anonymous limits on joins and phrases are lifted, as in
  // bench/translate.ts; the audio limit per person is the service's (each speaks a few seconds a minute).
  const publicLimits = {
    ...PUBLIC_LIMITS, anonymousPerMinute: 1e9, joinsPerClientMinute: 1e9, joinsPerRoomMinute: 1e9, participantsPerRoom: n + 10, streamsPerParticipant: 10,
    phrasesPerParticipantMinute: 1e9, phrasesPerRoomMinute: 1e9,
  };
  let apy: ApyProcess | null = null;
  let translation: Translation | null = null;
  let recognizer: RecognizerChain | null = null;
  let alone: PocketsphinxRecognizer | null = null;
  let pool: Pool | null = null;
  let boss: Boss | null = null;
  let app: FastifyInstance | null = null;
  let diag: ReturnType<typeof instrument> | null = null;
  const child = fork(fileURLToPath(import.meta.url), ['--client'], { stdio: 'inherit' });
  const messages: ClientMsg[] = [];
  let wake: () => void = () => {};
  child.on('message', (m: ClientMsg) => { messages.push(m); wake(); });
  const next = <T extends ClientMsg['type']>(type: T, pred: (m: Extract<ClientMsg, { type: T }>) => boolean = () => true, timeoutMs = 180_000) =>
    new Promise<Extract<ClientMsg, { type: T }>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`room_audio client: no '${type}' in ${timeoutMs / 1000} s`)), timeoutMs);
      const onExit = () => { clearTimeout(timer); reject(new Error(`room_audio client exited while waiting for '${type}'`)); };
      child.once('exit', onExit);
      const check = () => {
        const i = messages.findIndex((x) => x.type === type && pred(x as Extract<ClientMsg, { type: T }>));
        if (i >= 0) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(messages.splice(i, 1)[0] as Extract<ClientMsg, { type: T }>);
        } else wake = check;
      };
      check();
    });
  try {
    const kids0 = children();
    apy = await startApy();
    const apyRoots = [...children()].filter((p) => !kids0.has(p) && p !== child.pid);
    log(`room_audio: apertium-apy on ${apy.url}`);
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0' }, {
      databaseUrl, workers: false, publicLimits, translate: [{ name: 'apertium', url: apy.url }], recognize: [{ name: 'pocketsphinx' }],
    });
    translation = await startTranslation(config, { warn: (_o, m) => log(`room_audio: ${m}`), info: () => {} });
    const engine = translation.engines[0]!;
    if (!translation.loaded.has(engine)) throw new Error(`apertium at ${apy.url} did not list its pairs`);
    for (const lang of LANGS) {
      if (!translation.chain.covers('en', lang)) throw new Error(`apertium-apy has no way from en to ${lang}: install apertium-eng-spa, apertium-es-pt, apertium-fr-es, apertium-spa-ita`);
    }
    const serverCalls: Call[] = [];
    timeEngine(engine, serverCalls);
    recognizer = startRecognizers(config, { warn: (_o, m) => log(`room_audio recognizer: ${m}`), info: () => {} });

    // --- The baselines: a recognizer of its own (one decoder, as the server's on 2 cores), a fresh engine on the same APY.
    const kids1 = children();
    alone = new PocketsphinxRecognizer({ processes: 1 });
    const recognizeAlone = async (r: Recording) => {
      const t0 = clock();
      const out = await alone!.recognize({ key: 'baseline', pcm: r.cut, rate: RATE, audioMs: r.cutMs, lang: 'en', at: Date.now() });
      return { ms: clock() - t0, text: out.text };
    };
    const apyAlone = new ApertiumEngine({ url: apy.url });
    await apyAlone.load(AbortSignal.timeout(10_000));
    const aloneCalls: Call[] = [];
    timeEngine(apyAlone, aloneCalls);
    const chainAlone = new TranslationChain([apyAlone]);
    const translateAlone = async (text: string) => {
      aloneCalls.length = 0;
      const t0 = clock();
      const out = await chainAlone.translate(text, 'en', LANGS);
      const ms = clock() - t0;
      const bad = LANGS.filter((x) => !out[x]);
      if (bad.length) throw new Error(`APY did not translate "${text}" into ${bad.join(', ')}`);
      return { ms, texts: Object.fromEntries(LANGS.map((x) => [x, out[x]!.text])) as Record<string, string> };
    };
    // Each sentence read once by the baseline (its decoder up, files in the page cache), APY's pairs started.
    const recognized = new Map<string, string>();
    for (const r of recs) {
      const w = await recognizeAlone(r);
      if (!w.text) throw new Error(`the recognizer alone heard nothing in ${r.name}`);
      recognized.set(r.name, w.text);
    }
    await translateAlone(recognized.get(recs[0]!.name)!);
    const baselineRoots = [...children()].filter((p) => !kids1.has(p) && p !== child.pid);

    pool = createPool(databaseUrl, 20);
    boss = await startBoss(databaseUrl, { workers: false, onError: () => {} });
    app = await buildApp({ config, pool, boss, databaseUrl, translation, recognizer });
    const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const hub = app.roomHub;
    const org = await createOrg(pool, { name: 'Room audio bench' });
    const key = await createKey(pool, { org: org.id, mode: 'test', rpm: 1_000_000 });
    const created = await fetch(`${baseUrl}/v1/rooms`, {
      method: 'POST', headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ langs: ['en', ...LANGS], visibility: 'public', title: 'Room audio bench' }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/rooms answered ${created.status}: ${await created.text()}`);
    const roomId = ((await created.json()) as { id: string }).id;

    // --- Setup: everyone joins, their streams open, then their microphones.
    child.send({ type: 'setup', base: baseUrl, roomId, n, concurrency: 16 } satisfies ParentMsg);
    const joined = await next('joined');
    if (joined.failures > 0) throw new Error(`${joined.failures} of ${n} joins failed, e.g. ${joined.sample}`);
    log(`room_audio: ${n} people joined in ${joined.ms} ms`);
    let t0 = Date.now();
    child.send({ type: 'open' } satisfies ParentMsg);
    const opened = await next('opened');
    if (opened.failures > 0) throw new Error(`${opened.failures} pages failed to open, e.g. ${opened.sample}`);
    await until(`${n} pages connected`, async () => hub.size >= n, { timeoutMs: 60_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` });
    const streamsMs = Date.now() - t0;
    log(`room_audio: ${n} streams open in ${streamsMs} ms`);
    await sleep(500);
    gc();
    const memBefore = process.memoryUsage();
    t0 = Date.now();
    child.send({ type: 'mics' } satisfies ParentMsg);
    const mics = await next('mics');
    if (mics.failures > 0) throw new Error(`${mics.failures} microphones failed to open, e.g. ${mics.sample}`);
    await sleep(500);
    gc();
    const memAfter = process.memoryUsage();
    const memory = {
      heap_bytes: Math.round((memAfter.heapUsed + memAfter.external - memBefore.heapUsed - memBefore.external) / n),
      rss_bytes: Math.round((memAfter.rss - memBefore.rss) / n),
    };
    log(`room_audio: ${n} microphones open in ${mics.ms} ms; per socket heap ${memory.heap_bytes} B, rss ${memory.rss_bytes} B`);

    diag = instrument(pool, recognizer);
    const speak = async (k: number, speaker: number, r: Recording) => {
      child.send({ type: 'speak', k, speaker, file: `${DATA}/${r.name}.wav`, realtime, timeoutMs: 60_000 } satisfies ParentMsg);
      return next('spoken', (m) => m.k === k, 130_000);
    };

    // --- A warm-up phrase through the whole path (the server's decoder starts), not counted; it is the last person's.
    const kids2 = children();
    {
      const w = await speak(-1, n - 1, recs[0]!);
      if (!w.final || w.final.seq === null) throw new Error(`warm-up phrase: ${w.sample}`);
      log(`room_audio: warm-up phrase "${w.final.text}", final ${w.final_at! - w.end_sent} ms, last page ${w.at.length ? Math.max(...w.at) - w.end_sent : 'n/a'} ms after its end`);
      diag.take(0);
      serverCalls.length = 0;
    }
    const decoderRoots = [...children()].filter((p) => !kids2.has(p) && !baselineRoots.includes(p) && p !== child.pid);

    // --- The phrases, in turn.
    const perPhrase: AudioPhrase[] = [];
    const allPages: number[] = [];
    const finals: number[] = [];
    const serverRecognize: number[] = [];
    let failures = 0;
    let sample: Record<string, string> = {};
    let audioSeconds = 0;
    const cpu = { server: 0, decoders: 0, apy: 0, baseline: 0, baselineAudio: 0 };
    let cpuKnown = true;
    for (let i = 0; i < phrases; i++) {
      await sleep(gapMs);
      const r = recs[i % recs.length]!;
      const speaker = i % n;
      const b0 = treeCpu(baselineRoots);
      const rec = await recognizeAlone(r);
      const b1 = treeCpu(baselineRoots);
      if (b0 !== null && b1 !== null) { cpu.baseline += b1 - b0; cpu.baselineAudio += r.seconds; }
      const tr = rec.text ? await translateAlone(rec.text) : { ms: NaN, texts: {} as Record<string, string> };
      await sleep(100);
      serverCalls.length = 0;
      const c0 = { server: process.cpuUsage(), decoders: treeCpu(decoderRoots), apy: treeCpu(apyRoots) };
      const from = clock();
      const got = await speak(i, speaker, r);
      const c1 = { server: process.cpuUsage(c0.server), decoders: treeCpu(decoderRoots), apy: treeCpu(apyRoots) };
      cpu.server += (c1.server.user + c1.server.system) / 1e6;
      if (c0.decoders === null || c1.decoders === null || c0.apy === null || c1.apy === null) cpuKnown = false;
      else { cpu.decoders += c1.decoders - c0.decoders; cpu.apy += c1.apy - c0.apy; }
      audioSeconds += r.seconds;

      const f = got.final;
      const end = got.end_sent;
      const missing = f && f.seq !== null ? n - got.at.length : n;
      let bad = got.wrong + got.untranslated + missing;
      if (f && f.seq !== null && f.text !== rec.text) {
        log(`room_audio: phrase ${i + 1}: the server heard ${JSON.stringify(f.text)}, the recognizer alone ${JSON.stringify(rec.text)} (same PCM)`);
      } else if (f && f.seq !== null) {
        for (const lang of LANGS) {
          if (got.texts[lang] !== undefined && got.texts[lang] !== tr.texts[lang]) {
            bad++;
            log(`room_audio: phrase ${i + 1} in ${lang}: the pages got ${JSON.stringify(got.texts[lang])}, the translator alone ${JSON.stringify(tr.texts[lang])}`);
          }
        }
      }
      if (bad > 0) {
        failures += bad;
        log(`room_audio: phrase ${i + 1} seq ${f?.seq ?? 'none'}: ${missing} pages missing, ${got.wrong} wrong, ${got.untranslated} untranslated${got.sample ? `, e.g. ${got.sample}` : ''}`);
      }
      if (i === 0 && f?.text) sample = { en: f.text, ...got.texts };
      const fromEnd = got.at.map((x) => x - end);
      allPages.push(...fromEnd);
      if (got.final_at !== null) finals.push(got.final_at - end);
      if (typeof f?.recognize_ms === 'number') serverRecognize.push(f.recognize_ms);

      const me = got.participant ?? undefined;
      const { steps, writes, finished, heard } = diag.take(from);
      const at = (x: number | undefined | null) => (x === undefined || x === null ? null : round(x - end));
      const fin = finished.find((x) => x.participant === me) ?? finished[0];
      const finalRead = heard.find((h) => !h.partial && (me === undefined || h.participant === me));
      const partialReads = heard.filter((h) => h.partial);
      const lastPartial = partialReads.at(-1);
      const read = steps.find((s) => s.kind === 'read' && s.start >= (got.final_at ?? end) - 50) ?? steps.find((s) => s.kind === 'read');
      const claim = steps.find((s) => s.kind === 'claim');
      const stores = steps.filter((s) => s.kind === 'store');
      const c1e = serverCalls.find((c) => c.from === 'en');
      const c2 = serverCalls.filter((c) => c.from === 'es');
      const c2start = c2.length ? Math.min(...c2.map((c) => c.start)) : null;
      const c2end = c2.length ? Math.max(...c2.map((c) => c.end)) : null;
      const last = got.at.length ? Math.max(...got.at) : null;
      const d: AudioPhraseDiag = {
        send_ms: end - got.first_sent,
        ended_ms: at(fin?.at),
        recognize_at_ms: at(finalRead?.start), recognized_ms: at(finalRead?.end),
        partial_reads: partialReads.length,
        partial_after_end_ms: lastPartial && fin && lastPartial.end > fin.at ? round(lastPartial.end - fin.at) : 0,
        final_ms: got.final_at === null ? null : got.final_at - end,
        server_recognize_ms: f?.recognize_ms ?? null,
        read_at_ms: at(read?.start),
        claimed_ms: at(claim?.end),
        engine1_at_ms: at(c1e?.start), engine1_ms: c1e ? round(c1e.end - c1e.start) : null,
        stored1_ms: at(stores[0]?.end),
        engine2_at_ms: at(c2start), engine2_ms: c2start !== null && c2end !== null ? round(c2end - c2start) : null,
        stored2_ms: at(stores[1]?.end),
        first_write_ms: at(writes[0]), last_write_ms: at(writes.at(-1)),
        first_page_ms: got.at.length ? Math.min(...got.at) - end : null, last_page_ms: last === null ? null : last - end,
      };
      perPhrase.push({
        seq: f?.seq ?? null, speaker, file: r.name, audio_s: round(r.seconds, 2), text: f?.text ?? null, received: got.at.length,
        recognizer_ms: round(rec.ms), translator_ms: round(tr.ms), last_ms: d.last_page_ms, p50_ms: fromEnd.length ? stats(fromEnd).p50_ms : null, diag: d,
      });
      log(`room_audio: phrase ${i + 1} (person ${speaker}, ${r.seconds.toFixed(1)} s): final ${d.final_ms} ms (recognize ${d.server_recognize_ms}), last page ${d.last_page_ms} ms; ` +
        `alone: recognizer ${round(rec.ms)} ms, translator ${round(tr.ms)} ms; ended ${d.ended_ms}, recognizer ${d.recognize_at_ms}–${d.recognized_ms} (${d.partial_reads} partial, the decoder busy with it ${d.partial_after_end_ms} ms after the end), ` +
        `read ${d.read_at_ms}, claimed ${d.claimed_ms}, en→es ${d.engine1_at_ms}+${d.engine1_ms}, stored ${d.stored1_ms}, es→x ${d.engine2_at_ms}+${d.engine2_ms}, stored ${d.stored2_ms}, writes ${d.first_write_ms}–${d.last_write_ms}`);
    }
    diag.restore();
    diag = null;

    // --- Clean up: the people go, then the app.
    child.send({ type: 'close' } satisfies ParentMsg);
    await next('closed');
    await until('every page gone', async () => hub.size === 0, { timeoutMs: 20_000, intervalMs: 20, detail: () => `roomHub.size ${hub.size}` }).catch((err: unknown) => log(`room_audio: ${String(err)}`));

    const lastStats = stats(perPhrase.map((p) => p.last_ms).filter((x): x is number => x !== null));
    const recStats = stats(perPhrase.map((p) => p.recognizer_ms));
    const trStats = stats(perPhrase.map((p) => p.translator_ms).filter((x) => Number.isFinite(x)));
    const targetMs = round(recStats.p99_ms + trStats.p99_ms + ROOM_AUDIO_TARGETS.p99_over_baselines_ms);
    const median = (f: (d: AudioPhraseDiag) => number | null) => {
      const v = perPhrase.map((p) => f(p.diag)).filter((x): x is number => x !== null);
      return v.length ? stats(v).p50_ms : null;
    };
    const perAudio = (s: number) => round((s * 1000) / Math.max(audioSeconds, 1e-9), 1);
    return {
      people: n,
      langs: [...LANGS],
      phrases,
      realtime,
      failures,
      final: stats(finals),
      server_recognize: stats(serverRecognize),
      last: lastStats,
      per_page: stats(allPages),
      recognizer: recStats,
      translator: trStats,
      target_ms: targetMs,
      audio_seconds: round(audioSeconds, 2),
      cpu_ms_per_audio_s: {
        server: perAudio(cpu.server),
        decoders: cpuKnown ? perAudio(cpu.decoders) : null,
        apy: cpuKnown ? perAudio(cpu.apy) : null,
        baseline_decoder: cpu.baselineAudio > 0 ? round((cpu.baseline * 1000) / cpu.baselineAudio, 1) : null,
      },
      memory_per_socket: memory,
      steps_p50: {
        send: median((d) => d.send_ms), ended: median((d) => d.ended_ms), recognize_at: median((d) => d.recognize_at_ms), recognized: median((d) => d.recognized_ms),
        partial_after_end: median((d) => d.partial_after_end_ms), final: median((d) => d.final_ms), server_recognize: median((d) => d.server_recognize_ms),
        read_at: median((d) => d.read_at_ms), claimed: median((d) => d.claimed_ms),
        engine1_at: median((d) => d.engine1_at_ms), engine1: median((d) => d.engine1_ms), stored1: median((d) => d.stored1_ms),
        engine2_at: median((d) => d.engine2_at_ms), engine2: median((d) => d.engine2_ms), stored2: median((d) => d.stored2_ms),
        first_write: median((d) => d.first_write_ms), last_write: median((d) => d.last_write_ms),
        first_page: median((d) => d.first_page_ms), last_page: median((d) => d.last_page_ms),
      },
      per_phrase: perPhrase,
      sample,
      setup: { join_ms: joined.ms, streams_ms: streamsMs, mics_ms: mics.ms },
      met: { p99: failures === 0 && lastStats.n === phrases && lastStats.p99_ms <= targetMs },
    };
  } finally {
    diag?.restore();
    child.kill();
    await app?.close().catch(() => {});
    await boss?.stop({ graceful: false }).catch(() => {});
    await pool?.end().catch(() => {});
    await recognizer?.close().catch(() => {});
    await alone?.close().catch(() => {});
    await translation?.close().catch(() => {});
    await apy?.stop().catch(() => {});
  }
}

export function printRoomAudioReport(r: RoomAudioResult): void {
  const mark = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  console.log(
    `\nSpoken captions: ${r.phrases} recorded sentences spoken in turn through the audio socket (${r.realtime ? 'at a microphone\'s pace' : 'as fast as sent'}, then {"type":"end"}) ` +
      `into one room of ${r.people} people (every stream and microphone open) hearing ${r.langs.join(', ')}, read by PocketSphinx, translated by Apertium ` +
      `(times in ms from the end of the phrase)`,
  );
  const rows: Record<string, Record<string, string | number | null>> = {};
  for (const [i, p] of r.per_phrase.entries()) {
    const d = p.diag;
    rows[`phrase ${i + 1}`] = {
      audio: p.audio_s, received: p.received, 'rec alone': p.recognizer_ms, 'tr alone': p.translator_ms, 'last page': p.last_ms, 'p50 page': p.p50_ms,
      ended: d.ended_ms, 'rec at': d.recognize_at_ms, recognized: d.recognized_ms, partials: d.partial_reads, 'partial after end': d.partial_after_end_ms, final: d.final_ms, 'read at': d.read_at_ms, claimed: d.claimed_ms,
      'en→es at': d.engine1_at_ms, 'en→es': d.engine1_ms, stored: d.stored1_ms, 'es→x at': d.engine2_at_ms, 'es→x': d.engine2_ms, 'stored ': d.stored2_ms,
      'writes from': d.first_write_ms, 'writes to': d.last_write_ms,
    };
  }
  const m = r.steps_p50;
  rows['median'] = {
    audio: '', received: '', 'rec alone': r.recognizer.p50_ms, 'tr alone': r.translator.p50_ms, 'last page': r.last.p50_ms, 'p50 page': r.per_page.p50_ms,
    ended: m.ended!, 'rec at': m.recognize_at!, recognized: m.recognized!, partials: '', 'partial after end': m.partial_after_end!, final: m.final!, 'read at': m.read_at!, claimed: m.claimed!,
    'en→es at': m.engine1_at!, 'en→es': m.engine1!, stored: m.stored1!, 'es→x at': m.engine2_at!, 'es→x': m.engine2!, 'stored ': m.stored2!,
    'writes from': m.first_write!, 'writes to': m.last_write!,
  };
  console.table(rows);
  console.log(
    `caption on the last page per phrase: p50 ${r.last.p50_ms} ms, p99 ${r.last.p99_ms} ms; on every page: p50 ${r.per_page.p50_ms} ms, p99 ${r.per_page.p99_ms} ms; ` +
      `final at the speaker: p50 ${r.final.p50_ms} ms, p99 ${r.final.p99_ms} ms (the server's recognize: p50 ${r.server_recognize.p50_ms}, p99 ${r.server_recognize.p99_ms} ms)`,
  );
  console.log(
    `recognizer alone (same PCM): p50 ${r.recognizer.p50_ms} ms, p99 ${r.recognizer.p99_ms} ms; translator alone (its text into ${r.langs.join(', ')}): ` +
      `p50 ${r.translator.p50_ms} ms, p99 ${r.translator.p99_ms} ms; target caption p99 <= ${r.recognizer.p99_ms} + ${r.translator.p99_ms} + ${ROOM_AUDIO_TARGETS.p99_over_baselines_ms} = ` +
      `${r.target_ms} ms ${mark(r.met.p99)}${r.failures ? ` (${r.failures} failures)` : ''}`,
  );
  const c = r.cpu_ms_per_audio_s;
  console.log(
    `CPU per second of audio (${r.audio_seconds} s sent): server process ${c.server} ms, its decoders ${c.decoders ?? 'n/a'} ms, APY ${c.apy ?? 'n/a'} ms ` +
      `(the recognizer alone, final reads only: ${c.baseline_decoder ?? 'n/a'} ms); memory per open audio socket: heap ${r.memory_per_socket.heap_bytes} B, rss ${r.memory_per_socket.rss_bytes} B`,
  );
  console.log(`setup: joins ${r.setup.join_ms} ms, streams ${r.setup.streams_ms} ms, microphones ${r.setup.mics_ms} ms`);
  console.log(`e.g. ${Object.entries(r.sample).map(([k, v]) => `${k}: ${v}`).join(' | ')}`);
}

if (process.argv[2] === '--client') await client();
