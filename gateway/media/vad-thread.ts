import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { voiceDetector, type VoiceDecision, type VoiceDetector } from './vad.ts';

// Silero off the thread that pushes the frames. A media plane's RTP thread
// sends every call's packet on a 20 ms tick; the model costs about 0.2 ms a
// window, so a hundred calls hearing at once would take most of that thread
// and make its packets late. Here the frames of every detector made in a
// thread go, one message per loop turn, to one voice process of its own,
// which runs a detector per stream and answers with their decisions. A
// decision therefore comes a turn late (a frame, 20 ms): push() answers with
// the latest one heard back, which Hearing's preroll more than covers.
// The voice process is unref'd (it never keeps a process alive), and a
// detector that is collected (its call ended) frees its stream there.
//
// The "thread" is a child process, not a worker thread: the ONNX runtime's
// Node binding aborts the whole process (a C++ exception it cannot throw
// into JavaScript) when the thread it runs in is terminated in the middle of
// a call, which is what happens to every thread when its process exits or
// a media plane is closed. A process of its own is ended by its parent
// going away (the IPC channel closes, it exits between two batches), and
// if it dies anyway, only it dies: the detectors fall back to their energy
// rule, as they do when the model cannot load.

/** A detector's frame, or (a number) that many frames that never came, in a row. */
type Batch = { frames: Array<[number, Int16Array | null | number]>; closed: number[] };
type Answer = Array<[number, boolean]>;

let thread: ChildProcess | null = null;
let failed = false;
let ready: Promise<boolean> | null = null;
let onReady: (ok: boolean) => void = () => {};
const latest = new Map<number, boolean>();
let batch: Batch = { frames: [], closed: [] };
let scheduled = false;
let nextId = 1;
const collected = new FinalizationRegistry<number>((id) => close(id));
/**
 * Frames that never came, while speech is off, go as a count (with the next frame that came, or
 * once this many are waiting, in the next batch sent): silence cannot turn speech on, so the
 * decisions are the same, and lines that carry nothing (callees who send no audio) cost the
 * thread a message a second between them, not fifty a second each.
 */
const SILENT_AT_ONCE = 50;
/** Counts of silence alone wait for the next batch at most this long (nothing else sends one). */
const SILENT_FLUSH_MS = 1000;
let lazy: NodeJS.Timeout | null = null;

function lost(why: string): void {
  if (failed) return;
  // Gone: every threaded detector falls back to its own energy rule.
  failed = true;
  thread = null;
  onReady(false);
  process.emitWarning(`voice activity: the voice process ${why}; using the energy threshold instead`);
}

function voiceThread(): ChildProcess | null {
  if (thread || failed) return thread;
  try {
    // Its own Node flags only (a test runner's loaders are not its business); structured clone carries the frames.
    const child = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, TOLK_VOICE_PROCESS: '1' }, execArgv: [], serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    thread = child;
    ready = new Promise((ok) => { onReady = ok; });
    child.on('message', (a: Answer | 'ready') => {
      if (a === 'ready') return onReady(true);
      for (const [id, speech] of a) if (latest.has(id)) latest.set(id, speech);
    });
    child.on('error', (err) => lost(`failed (${err.message})`));
    child.on('exit', (code, signal) => lost(`ended (${signal ?? `exit ${code}`})`));
    // Never keeps this process alive: neither the child nor its channel.
    child.unref();
    (child.channel as { unref?: () => void } | undefined)?.unref?.();
  } catch {
    failed = true;
  }
  return thread;
}

function send(): void {
  scheduled = false;
  if (lazy) clearTimeout(lazy);
  lazy = null;
  const b = batch;
  batch = { frames: [], closed: [] };
  const t = voiceThread();
  if (t?.connected) t.send(b, (err) => { if (err) lost(`refused a batch (${err.message})`); });
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(send);
}

/** A batch that holds only counts of silence: sent within SILENT_FLUSH_MS, or sooner with the next frame. */
function scheduleLazily(): void {
  if (scheduled || lazy) return;
  lazy = setTimeout(send, SILENT_FLUSH_MS);
  lazy.unref();
}

function close(id: number): void {
  latest.delete(id);
  batch.closed.push(id);
  schedule();
}

/**
 * Starts this process's voice process if it is not running, and resolves once it
 * has loaded the model (false: it failed, detectors use the energy rule).
 * Until then decisions come late: a thread that can wait calls it first.
 */
export function voiceThreadReady(): Promise<boolean> {
  voiceThread();
  return ready ?? Promise.resolve(false);
}

/** Silero in the voice process; its own energy rule where that process cannot run. */
export class ThreadedDetector implements VoiceDetector {
  readonly kind = 'silero';
  private id = nextId++;
  private readonly energy = voiceDetector({ kind: 'energy' });
  /** Frames that never came, not yet sent (see SILENT_AT_ONCE). */
  private silent = 0;

  constructor() {
    latest.set(this.id, false);
    collected.register(this, this.id, this);
    voiceThread();
  }

  push(frame: Int16Array | null): VoiceDecision {
    const energy = this.energy.push(frame);
    if (failed) return energy;
    const speech = latest.get(this.id) ?? false;
    if (!frame && !speech) {
      if (++this.silent === SILENT_AT_ONCE) {
        batch.frames.push([this.id, this.silent]);
        this.silent = 0;
        scheduleLazily();
      }
      return { speech, probability: 0 };
    }
    if (this.silent > 0) batch.frames.push([this.id, this.silent]);
    this.silent = 0;
    // Copied: the caller may reuse its buffer once push() returns.
    batch.frames.push([this.id, frame ? frame.slice() : null]);
    schedule();
    return { speech, probability: speech ? 1 : 0 };
  }

  reset(): void {
    this.silent = 0;
    close(this.id);
    collected.unregister(this);
    this.id = nextId++;
    latest.set(this.id, false);
    collected.register(this, this.id, this);
  }
}

// The voice process itself: a detector per stream, made at its first frame.
// Only in the process started above (every thread that makes a detector imports this module too).
if (process.env.TOLK_VOICE_PROCESS === '1' && process.send) {
  const send = process.send.bind(process);
  const detectors = new Map<number, VoiceDetector>();
  // Loads the runtime and the model before the first frame comes.
  voiceDetector();
  send('ready');
  process.on('message', (b: Batch) => {
    if (!b || !Array.isArray(b.frames)) return;
    const out: Answer = [];
    for (const [id, frame] of b.frames) {
      let d = detectors.get(id);
      if (!d) detectors.set(id, (d = voiceDetector()));
      if (typeof frame === 'number') for (let i = 0; i < frame; i++) d.push(null);
      else out.push([id, d.push(frame).speech]);
    }
    // After the frames: a detector's last frames (a count of silence, often) come in the batch
    // that closes it, and closed first, they would make it anew here, never to be closed again.
    for (const id of b.closed) detectors.delete(id);
    // A parent gone meanwhile: the answer has nowhere to go, and 'disconnect' ends this process.
    if (process.connected) send(out, (err: Error | null) => { if (err) process.exit(0); });
  });
  // Its parent went away: end between two batches, never in the middle of one.
  process.on('disconnect', () => process.exit(0));
  process.on('error', () => process.exit(0));
}
