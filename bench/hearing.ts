import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config.ts';
import { createPool, type Pool } from '../src/db/pool.ts';
import { startBoss, startWorkers, type Boss, type Workers } from '../src/jobs-registry.ts';
import { startCallGateway } from '../src/platform.ts';
import type { Services } from '../src/services.ts';
import { REACTIONS } from '../src/reactions.ts';
import { buildApp } from '../src/app.ts';
import { createKey, createOrg } from '../src/cli/admin.ts';
import { CALL_AGENT_NAME } from '../src/calls/calls.ts';
import { startRecognizers } from '../src/engines/speech/index.ts';
import { PocketsphinxRecognizer, pocketsphinxInstalled } from '../src/engines/pocketsphinx/recognizer.ts';
import type { HeardUtterance } from '../src/engines/speech/recognizer.ts';
import { loadResampler, resample } from '../src/engines/speech/resample.ts';
import { corpusWer, wer, words } from '../src/engines/speech/wer.ts';
import { disclosure } from '../src/i18n/disclosure.ts';
import type { Lateness } from '../gateway/media/plane.ts';
import { freeUdpPort } from '../gateway/sip-stack.ts';
import { SIPP } from '../test/helpers/sipp.ts';
import { until } from '../test/helpers/wait.ts';
import { procCpu } from './proc.ts';
import { envNumber, round, sleep, stats, type LatencyStats } from './stats.ts';

// The `hearing` target of npm run bench (bench/run.ts): speech recognition
// with the embedded recognizer, PocketSphinx (src/engines/pocketsphinx/recognizer.ts:
// Debian's pocketsphinx_batch, one decoder process per slot).
//
// 1. Accuracy and cost on recorded human speech: the 5 sentences of Debian's
//    pocketsphinx-testdata (/usr/share/pocketsphinx/test/data/librivox, read
//    from LibriVox's "Sense and Sensibility", 16 kHz, with their transcription),
//    each brought down to a phone line's 8 kHz (Speex, resample.ts) and
//    recognized by a fresh PocketsphinxRecognizer, all at once as a gateway's
//    calls would: the word error rate over them (corpusWer), and the real-time
//    factor: CPU seconds of the decoder processes (pocketsphinx_batch, found
//    under this process in /proc, their utime + stime) per second of audio.
//    The decoders are started (their models loaded) by silent utterances
//    before they are measured.
//
// 2. Calls that hear speech: BENCH_HEARING_CALLS (default 20) calls placed
//    through the API (POST /v1/calls, test keys, remote_lang en), one every
//    BENCH_HEARING_SPREAD_MS (3000), to one SIPp callee that answers and
//    echoes the RTP it receives (-rtp_echo, gateway/sipp/answer-echo-wait-bye.xml, which says a person answered),
//    as test/calls/hearing.test.ts does: the far end of each call speaks what
//    the line said to it. The line speaks the AI disclosure, then
//    BENCH_HEARING_SAYS (1) sentences said on the call's session
//    (POST /v1/sessions/{id}/say), each sent BENCH_HEARING_GAP_MS (4000)
//    after the line finished the one before (the callee's turns apart, the
//    calls at different points of their talk). With BENCH_HEARING_VOICE=
//    recorded (the default) the line's voice is a person's: the speech engine
//    is an OpenAI-compatible server in this process answering each sentence
//    with its pocketsphinx-testdata recording, and the disclosure with the
//    7.1 s one (DISCLOSURE_RECORDING), so the calls hear the same human
//    speech as part 1, through G.711, the jitter buffer and voice activity;
//    with `pico` it is the embedded SVOX Pico, as the test hears it (which
//    PocketSphinx reads worse and at about twice the CPU). The gateway (this
//    process, workers on, as bench/calls.ts builds it) cuts what comes back by
//    voice activity and the recognizers of TOLK_RECOGNIZE read it. All calls
//    stay up until everything they said was heard and published; then they
//    are hung up. The defaults keep the decoders within what 2 vCPUs decode
//    (20 calls, 40 utterances, about 200 s of speech over 75 s);
//    BENCH_HEARING_SPREAD_MS=1000 BENCH_HEARING_SAYS=2 BENCH_HEARING_GAP_MS=3000
//    (280 s over 45 s) is more than they can.
//    Measured: for every utterance heard (the media plane's `heard` event,
//    whose `at` is when its closing silence ended), the time until its
//    segment.final (speaker Callee, matched by meta.audio_ms) is readable on
//    the call's session, as a client long-polling GET /v1/sessions/{id}/events
//    (wait=25, in this process, node:http keep-alive) receives it: p50/p99,
//    broken down into the plane's message to the main thread, the wait behind
//    the call's earlier utterances, the recognizer (the RecognizerChain's
//    recognize, timed around it) and the publishing (transaction, notification,
//    long-poll answer); the media plane's packet lateness after its 20 ms tick
//    (p50/p99/max over every packet the calls sent while they were up); the
//    decoders' CPU over the calls and the real-time factor over the audio
//    sent to them; the word error rate of what was heard against what the
//    far ends said; and where the media thread's time went: its scheduler
//    statistics (/proc/<pid>/task/<tid>/schedstat: time running, time
//    runnable but waiting for a CPU), the machine's CPU pressure
//    (/proc/pressure/cpu) and the cores used by other programs.
//    BENCH_HEARING_NICE=n (a diagnosis) renices the decoders to n once
//    started; the recognizer runs them at the server's own priority.
//    The same calls run twice in the same run, on a fresh platform each
//    time: with TOLK_RECOGNIZE=pocketsphinx, then with TOLK_RECOGNIZE empty
//    (no recognizer: every utterance is published with its length, no text).
//
// Target: packet lateness p99 <= 5 ms with recognition running (the decoders
// are processes of their own, but they share the machine's CPUs with the
// media thread). An utterance heard but never published, or (with the
// recognizer) published without text (the chain's time limit passed), fails
// the run.

export const HEARING_TARGETS = { lateness_p99_ms: 5 } as const;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DATA = '/usr/share/pocketsphinx/test/data/librivox';
const SCENARIO = path.join(HERE, '..', 'gateway', 'sipp', 'answer-echo-wait-bye.xml');
/** A Wednesday, 17:00 UTC: inside every US calling window of the policy table (as bench/calls.ts). */
const SERVICE_EPOCH = Date.parse('2026-11-18T17:00:00Z');
/** What the gateway's hearing waits for after a phrase (gateway/media/hearing.ts hangoverMs), and a margin. */
const SETTLE_MS = 700 + 1300;
/** Everything said must be published within this after the last phrase was spoken. */
const PUBLISH_LIMIT_MS = 90_000;
const LOOP_RESOLUTION_MS = 2;

/** Everyday sentences the calls say after the disclosure (call i says SAYS[(2i + k) % n]: repeated across calls, cached by the synthesizer). */
const SAYS = [
  'I am calling about the delivery of your new kitchen table.',
  'The driver can come on Tuesday morning between nine and eleven.',
  'Please tell me if someone will be at home to sign for it.',
  'If that time does not suit you we can find another day next week.',
  'The parcel is quite heavy so the driver will bring a colleague.',
  'Thank you for your patience and have a pleasant afternoon.',
];

/** The recorded sentence a call's disclosure is spoken as (7.1 s, about as long as Pico says the disclosure). */
const DISCLOSURE_RECORDING = 'sense_and_sensibility_01_austen_64kb-0870';

/** What the calls' line speaks with, and so what their far ends echo back. */
type Voice = {
  name: 'recorded' | 'pico';
  /** TOLK_SPEECH_ENGINES. */
  engines: string;
  /** The k-th sentence call i says after the disclosure. */
  sentence(i: number, k: number): string;
  /** The words the far end really speaks when the line says `text`. */
  spoken(text: string): string;
  close(): Promise<void>;
};

/**
 * A person's voice on the line: an OpenAI-compatible speech server
 * (TOLK_SPEECH_ENGINES=openai=URL, POST /v1/audio/speech) answering each
 * text with the recording of pocketsphinx-testdata whose transcript it is
 * (16 kHz WAV, brought to 8 kHz by the engine), and the disclosure with
 * DISCLOSURE_RECORDING: the far end echoes a person reading.
 */
async function recordedVoice(): Promise<Voice> {
  const sentences = corpus();
  const key = (text: string) => words(text).join(' ');
  const byText = new Map(sentences.map((s) => [key(s.reference), s]));
  const disclosureRec = sentences.find((s) => s.name === DISCLOSURE_RECORDING)!;
  const others = sentences.filter((s) => s !== disclosureRec);
  const files = new Map(sentences.map((s) => [s.name, fs.readFileSync(path.join(DATA, `${s.name}.wav`))]));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let input = '';
      try { input = String((JSON.parse(Buffer.concat(chunks).toString()) as { input?: unknown }).input ?? ''); } catch { /* not JSON */ }
      if (req.method !== 'POST' || !req.url?.endsWith('/audio/speech') || !input) {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"POST /v1/audio/speech {input}"}}');
        return;
      }
      const rec = byText.get(key(input)) ?? disclosureRec;
      res.writeHead(200, { 'content-type': 'audio/wav' }).end(files.get(rec.name));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  return {
    name: 'recorded',
    engines: `openai=http://127.0.0.1:${port}`,
    sentence: (i, k) => others[(i + k) % others.length]!.reference,
    spoken: (text) => (byText.get(key(text)) ?? disclosureRec).reference,
    close: () => new Promise<void>((ok) => { server.closeAllConnections(); server.close(() => ok()); }),
  };
}

/** The embedded engine's voice (SVOX Pico), as test/calls/hearing.test.ts hears it. */
function picoVoice(): Voice {
  return {
    name: 'pico',
    engines: 'pico',
    sentence: (i, k) => SAYS[(2 * i + k) % SAYS.length]!,
    spoken: (text) => text,
    close: async () => {},
  };
}

export type CorpusResult = {
  sentences: number;
  /** Seconds of audio (at 8 kHz). */
  audio_s: number;
  /** Word error rate over the sentences (all errors over all reference words). */
  wer: number;
  decoders: number;
  /** CPU seconds of the decoder processes while they read the sentences. */
  decoder_cpu_s: number | null;
  /** decoder_cpu_s per second of audio. */
  rtf: number | null;
  /** From the first sentence sent to the last answer, all five at once over the decoders. */
  wall_s: number;
  per_sentence: Array<{ name: string; audio_s: number; wer: number; reference: string; hypothesis: string | null }>;
};

export type CallPhase = {
  /** TOLK_RECOGNIZE ('' = none). */
  recognize: string;
  calls: number;
  answered: number;
  completed: number;
  /** Utterances the media plane heard on the calls while they were answered. */
  utterances: number;
  /** Of which read on their session as segment.final (speaker Callee). */
  published: number;
  /** Of which with text. */
  recognized: number;
  /** Seconds of audio heard (meta.audio_ms summed). */
  audio_s: number;
  /** The utterance's closing silence ended (heard.at) -> its segment.final read by a long-polling client. */
  latency: LatencyStats;
  /** The same, over the utterances published with text. */
  latency_with_text: LatencyStats;
  /** What reached the decoders (the chain's calls of the engine): utterances, their audio, answered in time, failed (no answer within the chain's limit). */
  engine: { requests: number; audio_s: number; answered: number; failed: number };
  /** Where that time goes: heard.at -> the event on the main thread; -> the recognizer asked (behind the call's earlier utterances); the recognizer; -> read by the client. */
  steps: { to_main: LatencyStats; queued: LatencyStats; recognize: LatencyStats; publish: LatencyStats };
  /** Packets sent by the calls' streams while they were up: how late each left after its 20 ms tick (ms). */
  lateness: Lateness;
  decoders: number;
  decoder_cpu_s: number | null;
  /** Decoder CPU per second of audio sent to the decoders. */
  rtf: number | null;
  /** Decoder CPU over (decoders x the phase's length). */
  decoder_busy: number | null;
  /** This process (API, gateway, media thread, the long-polling client) over the phase, in cores. */
  node_cores: number;
  /** The machine's busy cores over the phase. */
  machine_cores: number | null;
  /** Of which spent by none of this process, the decoders and SIPp (PostgreSQL, and any other program: well above 0.2, the figures are skewed). */
  other_cores: number | null;
  /** The machine's 1-minute load average at the end of the phase. */
  load_avg: number;
  /**
   * The media plane's thread as the kernel's scheduler saw it over the phase
   * (/proc/<pid>/task/<tid>/schedstat): time running, time runnable but
   * waiting for a CPU, times it was given a CPU, and the mean wait per time.
   */
  media_thread: { run_ms: number; wait_ms: number; slices: number; wait_per_slice_ms: number } | null;
  /** Share of the phase in which some runnable task waited for a CPU (/proc/pressure/cpu, "some"). */
  cpu_pressure: number | null;
  /** BENCH_HEARING_NICE: the niceness the decoders were given (a diagnosis; the recognizer runs them at 0). */
  decoder_nice: number;
  loop_delay: { p50_ms: number; p99_ms: number; max_ms: number };
  /** Word error rate of what was heard against what the calls said (the disclosure and the says), over every call. */
  wer: number | null;
  /** From the first call placed until every utterance was published. */
  wall_s: number;
  errors: string[];
};

export type HearingResult = {
  settings: { calls: number; says: number; gap_ms: number; spread_ms: number; voice: 'recorded' | 'pico'; cpus: number };
  corpus: CorpusResult;
  with_recognizer: CallPhase;
  without_recognizer: CallPhase;
  targets: typeof HEARING_TARGETS;
  met: { lateness_p99: boolean };
  failures: number;
  errors: string[];
};

// ---------------------------------------------------------------------------
// The decoder processes

/** Every process under `pid` (the children of each of its threads, recursively). */
export function descendants(pid: number): number[] {
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

/** The pocketsphinx_batch processes under this one (each recognizer's decoders run under an `sh` of their own). */
export function decoderPids(): number[] {
  return descendants(process.pid).filter((p) => {
    try {
      return fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim().startsWith('pocketsphinx');
    } catch {
      return false;
    }
  });
}

/** Counts the decoders' CPU from now: each one's from its reading now (from 0 if it starts later) to its last reading. */
function decoderMeter() {
  const first = new Map<number, number>();
  for (const p of decoderPids()) first.set(p, procCpu([p]) ?? 0);
  const last = new Map<number, number>();
  const read = () => {
    for (const p of new Set([...first.keys(), ...last.keys(), ...decoderPids()])) {
      const c = procCpu([p]);
      if (c !== null && fs.existsSync(`/proc/${p}`)) last.set(p, Math.max(last.get(p) ?? 0, c));
    }
  };
  // Read now and then, so that a decoder that ends early still counts.
  const timer = setInterval(read, 500);
  return {
    stop(): { cpu_s: number | null; decoders: number } {
      clearInterval(timer);
      read();
      if (procCpu([]) === null) return { cpu_s: null, decoders: 0 };
      let total = 0;
      for (const [p, c] of last) total += c - (first.get(p) ?? 0);
      return { cpu_s: round(total, 2), decoders: last.size };
    },
  };
}

/** CPU seconds the whole machine has been busy, from /proc/stat. */
function machineBusy(): number | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
    return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / 100;
  } catch {
    return null;
  }
}

/** This process's worker threads (their kernel ids), by their name in /proc. */
function workerThreads(): Set<string> {
  const out = new Set<string>();
  try {
    for (const t of fs.readdirSync(`/proc/${process.pid}/task`)) {
      try {
        if (fs.readFileSync(`/proc/${process.pid}/task/${t}/comm`, 'utf8').trim() === 'WorkerThread') out.add(t);
      } catch {
        // gone
      }
    }
  } catch {
    // not Linux
  }
  return out;
}

/** A thread's schedstat: ns running, ns waiting on a run queue, times run. */
function schedstat(tid: string): [number, number, number] | null {
  try {
    const f = fs.readFileSync(`/proc/${process.pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
    return [f[0]!, f[1]!, f[2]!];
  } catch {
    return null;
  }
}

/** Microseconds in which some runnable task waited for a CPU (PSI), null without /proc/pressure. */
function cpuPressure(): number | null {
  try {
    const m = /^some .* total=(\d+)/m.exec(fs.readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------
// 1. The recorded sentences

function corpus(): Array<{ name: string; reference: string; pcm16k: Int16Array }> {
  const lines = fs.readFileSync(path.join(DATA, 'transcription'), 'utf8').trim().split('\n');
  return lines.map((l) => {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((\S+)\)$/.exec(l.trim());
    if (!m) throw new Error(`hearing: a line of ${DATA}/transcription is not "<s> words </s> (name)": ${l}`);
    const wav = fs.readFileSync(path.join(DATA, `${m[2]}.wav`));
    // A 44-byte RIFF header, then 16-bit mono PCM at 16 kHz.
    const data = wav.subarray(44);
    return { name: m[2]!, reference: m[1]!, pcm16k: new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
  });
}

async function runCorpus(log: (m: string) => void): Promise<CorpusResult> {
  await loadResampler();
  const sentences = corpus().map((s) => ({ ...s, pcm: resample(s.pcm16k, 16_000, 8_000) }));
  const size = Math.min(4, os.availableParallelism()); // the recognizer's default
  const ps = new PocketsphinxRecognizer({ processes: size });
  try {
    // Every decoder started and its models loaded: one silent second each, at once.
    await Promise.all(Array.from({ length: size }, (_, i) => ps.recognize({ key: `warm${i}`, pcm: new Int16Array(8000), audioMs: 1000, lang: 'en', at: Date.now() })));
    log(`hearing: ${sentences.length} recorded sentences at 8 kHz, ${size} decoders`);
    const meter = decoderMeter();
    const t0 = performance.now();
    const heard = await Promise.all(sentences.map(async (s, i) => {
      const r = await ps.recognize({ key: `s${i}`, pcm: s.pcm, audioMs: Math.round(s.pcm.length / 8), lang: 'en', at: Date.now() });
      return { name: s.name, reference: s.reference, hypothesis: r.text, audio_s: s.pcm.length / 8000 };
    }));
    const wall = (performance.now() - t0) / 1000;
    const cpu = meter.stop();
    const audio = heard.reduce((n, h) => n + h.audio_s, 0);
    return {
      sentences: heard.length,
      audio_s: round(audio, 2),
      wer: round(corpusWer(heard.map((h) => ({ reference: h.reference, hypothesis: h.hypothesis ?? '' }))), 3),
      decoders: cpu.decoders,
      decoder_cpu_s: cpu.cpu_s,
      rtf: cpu.cpu_s === null ? null : round(cpu.cpu_s / audio, 3),
      wall_s: round(wall, 2),
      per_sentence: heard.map((h) => ({ name: h.name, audio_s: round(h.audio_s, 2), wer: round(wer(h.reference, h.hypothesis ?? ''), 3), reference: h.reference, hypothesis: h.hypothesis })),
    };
  } finally {
    await ps.close();
  }
}

// ---------------------------------------------------------------------------
// 2. Calls whose far end speaks

async function udpPortBound(port: number): Promise<boolean> {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const text = await fs.promises.readFile('/proc/net/udp', 'utf8').catch(() => '');
  return text.split('\n').some((line) => line.trim().split(/\s+/)[1]?.endsWith(hex));
}

async function evenFreePort(): Promise<number> {
  for (let i = 0; i < 50; i++) {
    const p = await freeUdpPort('127.0.0.1');
    if (p % 2 === 0 && p < 65530) return p;
  }
  throw new Error('hearing: no free even UDP port');
}

/** One SIPp callee for every call of a phase: answers, echoes the RTP it receives, answers the gateway's BYE. */
async function startEchoCallee(dir: string): Promise<{ port: number; pid: number; stop: () => Promise<{ successful: number; failed: number; errors: string }> }> {
  try {
    fs.accessSync(SIPP, fs.constants.X_OK);
  } catch {
    throw new Error(`SIPp is not installed at ${SIPP}: install Debian's sip-tester package (apt-get install sip-tester); the hearing benchmark needs it`);
  }
  const port = await freeUdpPort('127.0.0.1');
  const mediaPort = await evenFreePort();
  const statFile = path.join(dir, 'uas.csv');
  const errorFile = path.join(dir, 'uas.errors');
  const child = spawn(SIPP, [
    '-sf', SCENARIO, '-i', '127.0.0.1', '-p', String(port), '-mp', String(mediaPort), '-rtp_echo', '-nostdin', '-l', '1000',
    '-trace_stat', '-stf', statFile, '-fd', '1', '-trace_err', '-error_file', errorFile,
  ], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => { if (stderr.length < 4000) stderr += d; });
  let running = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => { running = false; resolve(); });
    child.once('error', (err) => { stderr += String(err); running = false; resolve(); });
  });
  await until(`hearing: SIPp to listen on 127.0.0.1:${port}`, async () => !running || (await udpPortBound(port)), { timeoutMs: 5000, intervalMs: 10 });
  if (!running) throw new Error(`hearing: SIPp exited at start: ${stderr}`);
  return {
    port,
    pid: child.pid!,
    stop: async () => {
      if (running) {
        child.kill('SIGINT');
        if (!(await Promise.race([exited.then(() => true), sleep(2000).then(() => false)]))) child.kill('SIGKILL');
        await exited;
      }
      let successful = 0;
      let failed = 0;
      try {
        const lines = fs.readFileSync(statFile, 'utf8').trim().split('\n');
        const head = lines[0]!.split(';');
        const last = lines[lines.length - 1]!.split(';');
        successful = Number(last[head.indexOf('SuccessfulCall(C)')]);
        failed = Number(last[head.indexOf('FailedCall(C)')]);
      } catch {
        // no statistics
      }
      const errors = (fs.existsSync(errorFile) ? fs.readFileSync(errorFile, 'utf8').split('\n').slice(0, 10).join('\n') : '') + stderr;
      return { successful, failed, errors: errors.trim() };
    },
  };
}

type Heard = { at: number; main: number; audioMs: number };
type Recognized = { start: number; end: number; audioMs: number; text: string | null };
type Read = { seen: number; audioMs: number; text: string | null };

/** A keep-alive JSON client of the platform (node:http: fetch costs several times the CPU). */
function client(base: string, key: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const url = new URL(base);
  const request = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> =>
    new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request({
        agent, host: url.hostname, port: url.port, path: p, method,
        headers: { authorization: `Bearer ${key}`, ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}), ...headers },
      }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: any = null;
          try { json = JSON.parse(text); } catch { json = { text }; }
          resolve({ status: res.statusCode ?? 0, json });
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  return { request, close: () => agent.destroy() };
}

async function runPhase(databaseUrl: string, recognize: 'pocketsphinx' | '', voice: Voice, o: { calls: number; says: number; gapMs: number; spreadMs: number; nice: number }, log: (m: string) => void): Promise<CallPhase> {
  const name = recognize || 'none';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tolk-bench-hearing-'));
  const cleanup: Array<() => Promise<unknown>> = [];
  const errors: string[] = [];
  try {
    const callee = await startEchoCallee(dir);
    let calleeDone: { successful: number; failed: number; errors: string } | null = null;
    cleanup.push(async () => { calleeDone ??= await callee.stop(); });

    // --- The platform with workers (the gateway), its recognizers those of TOLK_RECOGNIZE.
    const offset = SERVICE_EPOCH - Date.now();
    const clock = () => new Date(Date.now() + offset);
    const config = loadConfig({ LOG_LEVEL: 'silent', PORT: '0', TOLK_RECOGNIZE: recognize, TOLK_SPEECH_ENGINES: voice.engines }, { databaseUrl, workers: true, sipListen: '127.0.0.1:0', simSipPeer: `sip:127.0.0.1:${callee.port}` });
    const recognizer = startRecognizers(config, { warn: (_o, m) => log(`hearing recognizer (warn): ${m}`), info: () => {} });
    cleanup.push(() => recognizer.close());
    // The recognizer's work timed around it (the gateway calls it once per utterance, in order per call).
    const recognized = new Map<string, Recognized[]>();
    const original = recognizer.recognize.bind(recognizer);
    recognizer.recognize = async (u: HeardUtterance) => {
      const start = Date.now();
      const r = await original(u);
      const list = recognized.get(u.key) ?? [];
      list.push({ start, end: Date.now(), audioMs: u.audioMs, text: r.text });
      recognized.set(u.key, list);
      return r;
    };
    // And what reaches the engine itself (the chain skips it while its breaker is open).
    const engine = { requests: 0, audioMs: 0, answered: 0, failed: 0 };
    for (const e of recognizer.engines) {
      const call = e.recognize.bind(e);
      e.recognize = async (u, signal) => {
        engine.requests++;
        engine.audioMs += u.audioMs;
        try {
          const r = await call(u, signal);
          engine.answered++;
          return r;
        } catch (err) {
          engine.failed++;
          throw err;
        }
      };
    }
    const pool: Pool = createPool(databaseUrl, 20);
    cleanup.push(() => pool.end());
    const boss: Boss = await startBoss(databaseUrl, { workers: true, monitorSeconds: config.jobMonitorSeconds, onError: (e) => log(`hearing pg-boss: ${String(e)}`) });
    cleanup.push(() => boss.stop({ graceful: false, timeout: 2000 }));
    const services: Services = { config, pool, boss, reactions: REACTIONS, clock, recognizer };
    // The gateway starts its media plane's thread first; the speech engines' threads start at their first phrase.
    const threadsBefore = workerThreads();
    const workerLog = {
      error: (ob: object, m: string) => { if (errors.length < 20) errors.push(m); log(`hearing worker: ${m} ${String((ob as { err?: unknown }).err ?? '')}`); },
      warn: (ob: object, m: string) => log(`hearing worker (warn): ${m} ${JSON.stringify(ob).slice(0, 200)}`),
      info: () => {},
    };
    const gateway = await startCallGateway(services, databaseUrl, workerLog);
    services.gateway = gateway;
    cleanup.push(() => gateway.stop());
    const workers: Workers = await startWorkers(services, databaseUrl, workerLog);
    cleanup.push(() => workers.stop());
    const mediaThreads = [...workerThreads()].filter((t) => !threadsBefore.has(t));
    const app: FastifyInstance = await buildApp({ ...services, databaseUrl });
    cleanup.push(() => app.close());
    const base = await app.listen({ port: 0, host: '127.0.0.1' });
    config.publicBaseUrl = base;
    const org = await createOrg(pool, { name: `Bench hearing org (${name})` });
    const key = (await createKey(pool, { org: org.id, mode: 'test', name: 'bench hearing', rpm: 1_000_000 })).secret;
    const api = client(base, key);
    cleanup.push(async () => api.close());

    // --- The decoders started before anything is measured (their models loaded), one silent second each at once.
    const size = recognize ? Math.min(4, os.availableParallelism()) : 0;
    await Promise.all(Array.from({ length: size }, (_, i) => original({ key: `warm${i}`, pcm: new Int16Array(8000), audioMs: 1000, lang: 'en', at: Date.now() })));
    if (o.nice !== 0) for (const p of decoderPids()) os.setPriority(p, o.nice);
    Object.assign(engine, { requests: 0, audioMs: 0, answered: 0, failed: 0 });

    // --- What the gateway's media plane hears and plays.
    const plane = gateway.media;
    const heard = new Map<string, Heard[]>();
    type Line = { index: number; sessionId: string; said: string[]; utterances: string[]; finished: Set<string>; spokeAt: number | null };
    const calls = new Map<string, Line>();
    plane.on('heard', (callId, u) => {
      if (!calls.has(callId)) return;
      const list = heard.get(callId) ?? [];
      list.push({ at: u.at, main: Date.now(), audioMs: u.audioMs });
      heard.set(callId, list);
    });
    const sayErrors: string[] = [];
    /** Once the line has finished its last phrase (the disclosure, then each say): the callee's turn (the echo, its closing silence), then the next sentence. */
    const advance = (c: Line) => {
      const k = c.said.length;
      const last = k === 0 ? 'disclosure' : c.utterances[k - 1];
      if (c.spokeAt !== null || last === undefined || !c.finished.has(last)) return;
      if (k >= o.says) {
        c.spokeAt = Date.now();
        return;
      }
      const text = voice.sentence(c.index, k);
      c.said.push(text);
      setTimeout(() => {
        api.request('POST', `/v1/sessions/${c.sessionId}/say`, { text, lang: 'en' }).then((r) => {
          if (r.status !== 202) throw new Error(`say ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`);
          c.utterances.push(r.json.utterance_id);
          advance(c);
        }).catch((err) => { sayErrors.push(String(err)); c.spokeAt = Date.now(); });
      }, o.gapMs);
    };
    plane.on('finished', (callId, utterance) => {
      const c = calls.get(callId);
      if (!c) return;
      c.finished.add(utterance);
      advance(c);
    });

    // --- Each session long-polled: when each segment.final of the callee becomes readable.
    const reads = new Map<string, Read[]>();
    let stopping = false;
    const poll = async (callId: string, sessionId: string) => {
      let cursor = 0;
      const list: Read[] = [];
      reads.set(callId, list);
      while (!stopping) {
        const r = await api.request('GET', `/v1/sessions/${sessionId}/events?cursor=${cursor}&wait=25`).catch((err) => ({ status: 0, json: { error: String(err) } }));
        const seen = Date.now();
        if (r.status !== 200) {
          if (!stopping && r.status !== 409) errors.push(`long-poll ${r.status}: ${JSON.stringify(r.json).slice(0, 200)}`);
          return;
        }
        for (const e of r.json.events as Array<{ type: string; speaker: string; meta?: { audio_ms?: number }; untrusted_content?: { text: string | null } }>) {
          if (e.type === 'segment.final' && e.speaker === 'Callee') list.push({ seen, audioMs: e.meta?.audio_ms ?? -1, text: e.untrusted_content?.text ?? null });
        }
        cursor = r.json.cursor;
        if (r.json.status === 'ended') return;
      }
    };
    const polls: Array<Promise<void>> = [];

    // --- The calls, one every spreadMs.
    log(`hearing: ${o.calls} calls (TOLK_RECOGNIZE=${recognize || '(empty)'}), each echoing the disclosure and ${o.says} sentences`);
    await plane.lateness(true);
    const meter = decoderMeter();
    const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    loop.enable();
    const cpu0 = process.cpuUsage();
    const sipp0 = procCpu([callee.pid]);
    const m0 = machineBusy();
    const psi0 = cpuPressure();
    const sched0 = new Map(mediaThreads.map((t) => [t, schedstat(t)]));
    const t0 = performance.now();
    for (let i = 0; i < o.calls; i++) {
      if (i > 0) await sleep(o.spreadMs);
      const r = await api.request('POST', '/v1/calls', {
        to: `+1415555${2000 + i}`, purpose: 'support', consent: { kind: 'prior_express' }, remote_lang: 'en', agent_lang: 'en',
      }, { 'idempotency-key': `bench-hearing-${path.basename(dir)}-${i}` });
      if (r.status !== 201) throw new Error(`hearing: POST /v1/calls answered ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
      calls.set(r.json.id, { index: i, sessionId: r.json.session_id, said: [], utterances: [], finished: new Set(), spokeAt: null });
      polls.push(poll(r.json.id, r.json.session_id));
    }

    // --- Until every call has spoken its part and everything heard is published.
    const ids = [...calls.keys()];
    const spoken = await until('hearing: every call to speak its sentences', async () => ids.every((id) => calls.get(id)!.spokeAt !== null), { timeoutMs: 120_000, intervalMs: 100 })
      .then(() => true, () => false);
    if (!spoken) errors.push(`${ids.filter((id) => calls.get(id)!.spokeAt === null).length} of ${ids.length} calls did not finish speaking in 120 s`);
    await sleep(SETTLE_MS);
    const unpublished = () => ids.reduce((n, id) => n + Math.max(0, (heard.get(id)?.length ?? 0) - (reads.get(id)?.length ?? 0)), 0);
    await until('hearing: everything heard to be published', async () => unpublished() === 0, { timeoutMs: PUBLISH_LIMIT_MS, intervalMs: 50 }).catch(() => {});
    const wall = (performance.now() - t0) / 1000;
    const m1 = machineBusy();
    const sipp1 = procCpu([callee.pid]);
    const psi1 = cpuPressure();
    // The media plane's thread: of the gateway's first threads, the one run most often (every 20 ms tick).
    let media: CallPhase['media_thread'] = null;
    for (const t of mediaThreads) {
      const a = sched0.get(t);
      const b = schedstat(t);
      if (!a || !b) continue;
      const slices = b[2] - a[2];
      if (media && slices <= media.slices) continue;
      const waitMs = (b[1] - a[1]) / 1e6;
      media = { run_ms: round((b[0] - a[0]) / 1e6), wait_ms: round(waitMs), slices, wait_per_slice_ms: round(waitMs / Math.max(1, slices), 3) };
    }
    const cpu = process.cpuUsage(cpu0);
    loop.disable();
    const lateness = await plane.lateness();
    const dec = meter.stop();

    // --- Hang up; the sessions end, and their long-polls with them.
    const statuses: Record<string, number> = {};
    for (const id of ids) await api.request('POST', `/v1/calls/${id}/hangup`);
    stopping = true;
    await Promise.race([Promise.all(polls), sleep(5000)]);
    const { rows } = await pool.query<{ id: string; status: string; answered_at: Date | null }>(`SELECT id, status, answered_at FROM calls WHERE id = ANY($1)`, [ids]);
    for (const r of rows) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const answered = rows.filter((r) => r.answered_at !== null).length;
    const completed = rows.filter((r) => r.status === 'completed').length;
    if (completed < ids.length) errors.push(`calls: ${JSON.stringify(statuses)}`);
    errors.push(...sayErrors.slice(0, 5));

    // --- Each utterance heard, matched to its segment (same call, same audio_ms, in order) and to its recognition.
    const latency: number[] = [], latencyText: number[] = [], toMain: number[] = [], queued: number[] = [], recog: number[] = [], publish: number[] = [];
    let utterances = 0, published = 0, withText = 0, audioMs = 0;
    const pairs: Array<{ reference: string; hypothesis: string }> = [];
    for (const id of ids) {
      const hs = heard.get(id) ?? [];
      const rs = [...(reads.get(id) ?? [])];
      const gs = [...(recognized.get(id) ?? [])];
      const texts: string[] = [];
      utterances += hs.length;
      for (const h of hs) {
        const ri = rs.findIndex((r) => r.audioMs === h.audioMs);
        const gi = gs.findIndex((g) => g.audioMs === h.audioMs);
        const g = gi >= 0 ? gs.splice(gi, 1)[0]! : null;
        if (ri < 0) continue;
        const r = rs.splice(ri, 1)[0]!;
        published++;
        audioMs += h.audioMs;
        if (r.text !== null) { withText++; texts.push(r.text); latencyText.push(r.seen - h.at); }
        latency.push(r.seen - h.at);
        toMain.push(h.main - h.at);
        if (g) { queued.push(g.start - h.main); recog.push(g.end - g.start); publish.push(r.seen - g.end); }
      }
      const c = calls.get(id)!;
      pairs.push({ reference: [disclosure(CALL_AGENT_NAME, 'en'), ...c.said].map((t) => voice.spoken(t)).join(' '), hypothesis: texts.join(' ') });
    }
    if (published < utterances) errors.push(`${utterances - published} of ${utterances} utterances heard were never read on their session`);
    if (recognize && withText < published) errors.push(`${published - withText} of ${published} utterances published without text`);
    calleeDone = await callee.stop();
    if (calleeDone.failed > 0) errors.push(`the SIPp callee counted ${calleeDone.failed} failed calls: ${calleeDone.errors.slice(0, 300)}`);
    const r2 = (l: Lateness): Lateness => ({ ...l, p50: round(l.p50, 2), p99: round(l.p99, 2), max: round(l.max, 2) });
    const phase: CallPhase = {
      recognize,
      calls: ids.length,
      answered,
      completed,
      utterances,
      published,
      recognized: withText,
      audio_s: round(audioMs / 1000, 1),
      latency: stats(latency),
      latency_with_text: stats(latencyText),
      engine: { requests: engine.requests, audio_s: round(engine.audioMs / 1000, 1), answered: engine.answered, failed: engine.failed },
      steps: { to_main: stats(toMain), queued: stats(queued), recognize: stats(recog), publish: stats(publish) },
      lateness: r2(lateness),
      decoders: dec.decoders,
      decoder_cpu_s: recognize ? dec.cpu_s : null,
      rtf: recognize && dec.cpu_s !== null && engine.audioMs > 0 ? round(dec.cpu_s / (engine.audioMs / 1000), 3) : null,
      decoder_busy: recognize && dec.cpu_s !== null && dec.decoders > 0 ? round(dec.cpu_s / (dec.decoders * wall), 2) : null,
      node_cores: round((cpu.user + cpu.system) / 1e6 / wall, 2),
      machine_cores: m0 === null || m1 === null ? null : round((m1 - m0) / wall, 2),
      other_cores: m0 === null || m1 === null || sipp0 === null || sipp1 === null ? null
        : round(Math.max(0, m1 - m0 - (cpu.user + cpu.system) / 1e6 - (dec.cpu_s ?? 0) - (sipp1 - sipp0)) / wall, 2),
      load_avg: round(os.loadavg()[0]!, 2),
      media_thread: media,
      cpu_pressure: psi0 === null || psi1 === null ? null : round((psi1 - psi0) / 1e6 / wall, 2),
      decoder_nice: recognize ? o.nice : 0,
      loop_delay: {
        p50_ms: round(Math.max(0, loop.percentile(50) / 1e6 - LOOP_RESOLUTION_MS)),
        p99_ms: round(Math.max(0, loop.percentile(99) / 1e6 - LOOP_RESOLUTION_MS)),
        max_ms: round(Math.max(0, loop.max / 1e6 - LOOP_RESOLUTION_MS)),
      },
      wer: recognize ? round(corpusWer(pairs), 3) : null,
      wall_s: round(wall, 1),
      errors,
    };
    log(`hearing (${name}): ${published}/${utterances} utterances published, ${withText} with text; latency p50 ${phase.latency.p50_ms} ms p99 ${phase.latency.p99_ms} ms; lateness p99 ${phase.lateness.p99} ms`);
    return phase;
  } finally {
    for (const f of cleanup.reverse()) await f().catch((err) => log(`hearing cleanup: ${String(err)}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function runHearingBench(databaseUrl: string, log: (m: string) => void): Promise<HearingResult> {
  if (!pocketsphinxInstalled()) throw new Error('hearing: pocketsphinx is not installed: apt-get install pocketsphinx pocketsphinx-en-us pocketsphinx-testdata');
  if (!fs.existsSync(path.join(DATA, 'transcription'))) throw new Error(`hearing: ${DATA} is missing: apt-get install pocketsphinx-testdata`);
  const o = {
    calls: Math.max(1, Math.round(envNumber('BENCH_HEARING_CALLS', 20))),
    says: Math.round(envNumber('BENCH_HEARING_SAYS', 1)),
    gapMs: envNumber('BENCH_HEARING_GAP_MS', 4000),
    spreadMs: envNumber('BENCH_HEARING_SPREAD_MS', 3000),
    // A diagnosis: the decoders run at this niceness (0-19; the recognizer itself starts them at 0).
    nice: Math.min(19, Math.round(envNumber('BENCH_HEARING_NICE', 0))),
    voice: process.env.BENCH_HEARING_VOICE || 'recorded',
  };
  if (o.voice !== 'recorded' && o.voice !== 'pico') throw new Error(`BENCH_HEARING_VOICE is recorded or pico, not ${o.voice}`);
  const corpusResult = await runCorpus(log);
  log(`hearing: recorded sentences WER ${(corpusResult.wer * 100).toFixed(1)} %, real-time factor ${corpusResult.rtf}`);
  const voice = o.voice === 'pico' ? picoVoice() : await recordedVoice();
  let withRec: CallPhase;
  let without: CallPhase;
  try {
    withRec = await runPhase(databaseUrl, 'pocketsphinx', voice, o, log);
    without = await runPhase(databaseUrl, '', voice, o, log);
  } finally {
    await voice.close();
  }
  const failures = (withRec.utterances - withRec.recognized) + (without.utterances - without.published)
    + (withRec.calls - withRec.completed) + (without.calls - without.completed) + (withRec.utterances === 0 ? 1 : 0);
  return {
    settings: { calls: o.calls, says: o.says, gap_ms: o.gapMs, spread_ms: o.spreadMs, voice: voice.name, cpus: os.availableParallelism() },
    corpus: corpusResult,
    with_recognizer: withRec,
    without_recognizer: without,
    targets: HEARING_TARGETS,
    met: { lateness_p99: withRec.lateness.packets > 0 && withRec.lateness.p99 <= HEARING_TARGETS.lateness_p99_ms },
    failures,
    errors: [...withRec.errors.map((e) => `with pocketsphinx: ${e}`), ...without.errors.map((e) => `without a recognizer: ${e}`)],
  };
}

/** Prints the hearing section of the report. */
export function printHearingReport(r: HearingResult): void {
  const c = r.corpus;
  console.log(`\nHearing: PocketSphinx (embedded), ${r.settings.cpus} CPUs`);
  console.log(`  ${c.sentences} recorded sentences (pocketsphinx-testdata, LibriVox) at 8 kHz, ${c.audio_s} s of audio: WER ${(c.wer * 100).toFixed(1)} %, ` +
    `real-time factor ${c.rtf ?? 'n/a'} (decoder CPU ${c.decoder_cpu_s ?? 'n/a'} s over ${c.decoders} decoders; ${c.wall_s} s wall, all at once)`);
  const row = (p: CallPhase) => ({
    utterances: p.utterances, published: p.published, 'with text': p.recognized, 'audio s': p.audio_s,
    'latency p50 ms': p.latency.p50_ms, 'latency p99 ms': p.latency.p99_ms, 'max ms': p.latency.max_ms,
    'lateness p50 ms': p.lateness.p50, 'lateness p99 ms': p.lateness.p99, 'lateness max ms': p.lateness.max, packets: p.lateness.packets,
    'decoder cpu s': p.decoder_cpu_s ?? '', rtf: p.rtf ?? '', 'decoders busy': p.decoder_busy ?? '', 'node cores': p.node_cores, 'machine cores': p.machine_cores ?? 'n/a', 'other cores': p.other_cores ?? 'n/a', load: p.load_avg, 'cpu pressure': p.cpu_pressure ?? 'n/a',
  });
  console.log(`  ${r.settings.calls} calls (one every ${r.settings.spread_ms} ms) to a SIPp callee echoing the RTP in ${r.settings.voice === 'pico' ? "Pico's voice" : "a person's recorded voice"}: ` +
    `the disclosure and ${r.settings.says} sentence(s) each, ${r.settings.gap_ms} ms apart; ` +
    'latency from the end of an utterance (its closing silence) to its segment.final read by a long-polling client');
  console.table({ 'TOLK_RECOGNIZE=pocketsphinx': row(r.with_recognizer), 'TOLK_RECOGNIZE= (none)': row(r.without_recognizer) });
  const s = (p: CallPhase) => p.steps;
  const step = (l: LatencyStats) => `p50 ${l.p50_ms} / p99 ${l.p99_ms}`;
  const voice = r.settings.voice === 'pico' ? "Pico's voice" : "a person's recorded voice";
  for (const [label, p] of [['with pocketsphinx', r.with_recognizer], ['without a recognizer', r.without_recognizer]] as const) {
    console.log(`  ${label}: to the main thread ${step(s(p).to_main)} ms, behind the call's earlier utterances ${step(s(p).queued)} ms, recognizer ${step(s(p).recognize)} ms, ` +
      `published and read ${step(s(p).publish)} ms; event loop delay p99 ${p.loop_delay.p99_ms} ms` +
      (p.media_thread ? `; media thread ran ${p.media_thread.slices} times, waited for a CPU ${p.media_thread.wait_ms} ms in all (${p.media_thread.wait_per_slice_ms} ms a time)` : '') +
      (p.decoder_nice ? `; decoders at nice ${p.decoder_nice}` : '') + `${p.wer !== null ? `; WER of the calls (${voice} over G.711) ${(p.wer * 100).toFixed(1)} %` : ''}`);
  }
  const e = r.with_recognizer.engine;
  console.log(`  with pocketsphinx: ${e.requests} utterances (${e.audio_s} s) to the decoders, ${e.answered} answered, ${e.failed} not within the chain's limit; ` +
    `latency of those published with text p50 ${r.with_recognizer.latency_with_text.p50_ms} ms, p99 ${r.with_recognizer.latency_with_text.p99_ms} ms`);
  const w = r.with_recognizer.lateness;
  console.log(`packet lateness p99 with recognition: ${w.p99} ms (without: ${r.without_recognizer.lateness.p99} ms) (target <= ${r.targets.lateness_p99_ms} ms) ${r.met.lateness_p99 ? 'met' : 'NOT MET'}`);
  if (r.errors.length) console.log(`hearing ERRORS: ${r.errors.join('; ')}`);
}
