import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { EngineError } from '../errors.ts';
import { baseLang } from '../translate/engine.ts';
import type { HeardUtterance, SpeechRecognizer } from '../speech/recognizer.ts';
import { loadResampler, resample } from '../speech/resample.ts';
import { failedStream, type RecognitionStream, type StreamOptions, type StreamingRecognizer } from '../speech/streaming.ts';
import { Backoff, describeExit, engineLog, markChild } from '../supervisor.ts';
import { RereadStream } from '../speech/reread-stream.ts';

// The embedded offline recognizer: CMU PocketSphinx from Debian
// (`pocketsphinx` with `pocketsphinx-en-us`: BSD-2 code, the US English
// acoustic and language models). Chosen over the npm whisper bindings:
// those need model weights fetched from a hub at run time (nothing here may
// download), while Debian ships PocketSphinx's models as a package with
// their licence. It is weak (US English only, a word error rate of about a
// third on 8 kHz phone speech: README, Speech, measured by
// test/engines/pocketsphinx.test.ts on Debian's recorded test sentences),
// so it is the default only where nothing better is configured.
//
// One `pocketsphinx_batch` process per slot keeps its models loaded: it
// reads the list of utterances to decode from its standard input, one name
// a line, as they come, and writes each hypothesis (`words (name score)`) to
// its standard output at once. An utterance is the line's 8 kHz audio brought
// to the model's 16 kHz (Speex) and written as raw PCM to a private folder.
// The decoding runs in that process: it takes nothing from the media thread.
//
// A decoder that dies (killed, crashed, out of memory) fails the utterances
// it was reading (the chain publishes them without text) and is logged (its
// pid, how it ended, how long it lived); another takes its place after a
// pause (supervisor.ts: 0.5 s doubling to 30 s while they keep dying), logged
// as back. Meanwhile the others read on; with none left an utterance fails at
// once and /readyz counts the recognizer down.
//
// open() hears while the speaker speaks by reading the audio so far again
// as it grows (stream.ts says why, and what it costs).

const BATCH = '/usr/bin/pocketsphinx_batch';
const MODEL = '/usr/share/pocketsphinx/model/en-us/en-us';
const MODEL_RATE = 16_000;

/** Whether Debian's pocketsphinx and its US English model are installed. */
export function pocketsphinxInstalled(): boolean {
  try {
    accessSync(BATCH, constants.X_OK);
    accessSync(path.join(MODEL, 'mdef'), constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

type Slot = {
  child: ChildProcess;
  /** The decoder's list of utterances to decode (its -ctl). */
  list: NodeJS.WritableStream;
  /** Utterance name → its answer. */
  waiting: Map<string, (text: string | null) => void>;
  busy: number;
  dead: boolean;
  /** The decoder's own pid, once its shell said it. */
  pid: number | undefined;
  /** Resolves with pid once said (undefined: it ended first). */
  said: Promise<number | undefined>;
  started: number;
  /** Set once it died: how long it lived, and the pause before its replacement. */
  lived?: number;
  restartInMs?: number;
};

export class PocketsphinxRecognizer implements SpeechRecognizer, StreamingRecognizer {
  readonly name = 'pocketsphinx';
  requests = 0;
  private readonly dir: string;
  private readonly slots: Slot[] = [];
  private readonly size: number;
  private n = 0;
  private closed = false;
  private readonly backoff: Backoff;
  /** No decoder is started before this time (a decoder died: the backoff's pause). */
  private pausedUntil = 0;
  private restart: NodeJS.Timeout | null = null;
  private down = false;
  /** Decoders that died and are not replaced yet. */
  private lost = 0;

  /** `processes`: decoders running side by side (default: the machine's cores less one, at least 1, at most 4). */
  constructor(o: { processes?: number; backoff?: ConstructorParameters<typeof Backoff>[0] } = {}) {
    if (!pocketsphinxInstalled()) {
      throw new Error('pocketsphinx is not installed: apt-get install pocketsphinx pocketsphinx-en-us (or name another recognizer in TOLK_RECOGNIZE)');
    }
    // One core left to the rest (the media thread, the event loop), up to 4 decoders.
    this.size = Math.max(1, o.processes ?? Math.min(4, os.availableParallelism() - 1));
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'tolk-ps-'));
    this.backoff = new Backoff(o.backoff);
  }

  hears(lang: string): boolean {
    return baseLang(lang) === 'en';
  }

  private start(): Slot {
    // The decoder opens its -ctl and -hyp by name, which Node's stdio (socket pairs) does not
    // allow ("/dev/stdin: No such device or address"): `cat` on each side makes them pipes.
    // Its own process group: close() ends the three together.
    // At low priority (nice 10): decoding at full tilt on every core must not take the CPU from
    // the media thread (packet lateness, bench/hearing.ts), which it did at 2 decoders on 2 cores.
    // The decoder's pid first on stderr (for the log). The shell keeps no copy of the pipes (fds 3
    // and 4 are closed once the pipeline runs): when the decoder dies its last `cat` ends, and with it
    // the output this process reads; pipefail: the shell then ends with the decoder's status.
    const script = [
      'exec 3>&1 4<&0 >/dev/null </dev/null',
      'set -o pipefail',
      'cat <&4 4<&- 3>&- | { echo "$BASHPID" >&2; exec nice -n 10 "$0" "$@" 3>&- 4<&-; } | cat >&3 3>&- 4<&- &',
      'exec 3>&- 4<&-',
      'wait $!',
    ].join('\n');
    const child = spawn('bash', ['-c', script, BATCH, '-adcin', 'yes', '-cepdir', this.dir, '-cepext', '.raw', '-ctl', '/dev/stdin', '-hyp', '/dev/stdout', '-logfn', '/dev/null'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdin!.on('error', () => {});
    let said!: (pid: number | undefined) => void;
    const slot: Slot = { child, list: child.stdin!, waiting: new Map(), busy: 0, dead: false, pid: undefined, said: new Promise((r) => { said = r; }), started: Date.now() };
    const errLines = createInterface({ input: child.stderr! });
    errLines.once('line', (line) => { slot.pid = Number(line) || undefined; said(slot.pid); });
    errLines.once('close', () => said(slot.pid));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // "words words (name score)"; no words: " (name score)".
      const m = /^(.*)\((\S+) -?\d+\)\s*$/.exec(line);
      if (!m) return;
      const done = slot.waiting.get(m[2]!);
      if (!done) return;
      slot.waiting.delete(m[2]!);
      const text = m[1]!.trim().replace(/\s+/g, ' ');
      done(text === '' ? null : text);
    });
    const fail = () => {
      if (slot.dead) return;
      slot.dead = true;
      // Its replacement's pause starts now: the chain's retry of what it was reading must not start one at once.
      if (!this.closed) this.lose(slot);
      for (const done of slot.waiting.values()) done(undefined as never);
      slot.waiting.clear();
      // The first `cat` waits for a line that will never be read: the end of its input ends it (then the
      // shell, with the decoder's status), now and not at the next utterance; what is left goes in 2 s.
      slot.list.end();
      setTimeout(() => { try { if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 2000).unref();
    };
    // The decoder's output ends when it does (its last `cat` sees the end): that is its death.
    child.stdout!.once('end', fail);
    child.once('exit', (code, signal) => { fail(); this.logDeath(slot, { code, signal }); });
    child.once('error', fail);
    return slot;
  }

  /** A decoder is gone: another after the backoff's pause (none while the recognizer is closing). */
  private lose(slot: Slot): void {
    slot.lived = Date.now() - slot.started;
    slot.restartInMs = this.backoff.next(slot.lived);
    this.pausedUntil = Date.now() + slot.restartInMs;
    this.lost++;
    if (!this.slots.some((s) => s !== slot && !s.dead)) this.setDown(true);
    if (this.restart) clearTimeout(this.restart);
    this.restart = setTimeout(() => {
      this.restart = null;
      if (this.closed) return;
      for (let i = this.slots.length - 1; i >= 0; i--) if (this.slots[i]!.dead) this.slots.splice(i, 1);
      if (this.slots.length < this.size) {
        const s = this.start();
        this.slots.push(s);
        const restarts = this.lost;
        void s.said.then((pid) => engineLog().info({ engine: this.name, kind: 'recognizer', pid, restarts }, `pocketsphinx decoder is back (pid ${pid})`));
      }
      this.lost = 0;
      this.setDown(false);
    }, slot.restartInMs);
    this.restart.unref();
  }

  /** A decoder's death, once its shell has said how it ended. */
  private logDeath(slot: Slot, e: { code: number | null; signal: NodeJS.Signals | null }): void {
    if (this.closed || slot.restartInMs === undefined) return;
    const how = describeExit(e);
    const lived = slot.lived ?? 0;
    engineLog().warn({ engine: this.name, kind: 'recognizer', pid: slot.pid, exit_code: how.code, signal: how.signal, lived_ms: lived, restart_in_ms: slot.restartInMs },
      `pocketsphinx decoder (pid ${slot.pid}) died (${how.signal ?? `exit ${how.code}`}) after ${(lived / 1000).toFixed(1)} s; starting another in ${slot.restartInMs} ms`);
  }

  private setDown(d: boolean): void {
    if (d === this.down) return;
    this.down = d;
    markChild('recognizer', this.name, d);
  }

  /** The least busy live decoder, started when there are fewer than `size`. */
  private slot(): Slot {
    for (let i = this.slots.length - 1; i >= 0; i--) if (this.slots[i]!.dead) this.slots.splice(i, 1);
    const idle = this.slots.find((s) => s.busy === 0);
    if (idle) return idle;
    if (this.slots.length < this.size && Date.now() >= this.pausedUntil) {
      const s = this.start();
      this.slots.push(s);
      return s;
    }
    if (this.slots.length === 0) throw new EngineError('pocketsphinx: its decoder died and is being started again');
    return this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  /** Whether a decoder would take an utterance now without waiting (one idle, or one more may start). */
  spare(): boolean {
    if (this.closed) return false;
    const live = this.slots.filter((s) => !s.dead);
    return live.some((s) => s.busy === 0) || (live.length < this.size && Date.now() >= this.pausedUntil);
  }

  /** A stream for one speaker (stream.ts). */
  open(o: StreamOptions): RecognitionStream {
    if (this.closed) return failedStream(new EngineError('pocketsphinx: closed', { permanent: true }));
    if (!this.hears(o.lang)) return failedStream(new EngineError(`pocketsphinx does not hear ${o.lang}`, { permanent: true }));
    return new RereadStream(this, o);
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }> {
    if (this.closed) throw new EngineError('pocketsphinx: closed', { permanent: true });
    if (!this.hears(u.lang)) throw new EngineError(`pocketsphinx does not hear ${u.lang}`, { permanent: true });
    await loadResampler();
    const name = `u${++this.n}`;
    const file = path.join(this.dir, `${name}.raw`);
    const rate = u.rate ?? 8000;
    const pcm = rate === MODEL_RATE ? u.pcm : resample(u.pcm, rate, MODEL_RATE);
    const slot = this.slot();
    writeFileSync(file, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    this.requests++;
    slot.busy++;
    try {
      const text = await new Promise<string | null>((resolve, reject) => {
        const onAbort = () => {
          slot.waiting.delete(name);
          reject(new EngineError('pocketsphinx: no answer in time'));
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        slot.waiting.set(name, (t) => {
          signal?.removeEventListener('abort', onAbort);
          if (t === undefined) reject(new EngineError('pocketsphinx: the decoder stopped'));
          else resolve(t);
        });
        slot.list.write(`${name}\n`);
      });
      return { text };
    } finally {
      slot.busy--;
      rmSync(file, { force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.restart) clearTimeout(this.restart);
    this.setDown(false);
    for (const s of this.slots) {
      s.list.end();
      try {
        if (s.child.pid !== undefined) process.kill(-s.child.pid, 'SIGTERM');
      } catch {
        // Gone already.
      }
    }
    this.slots.length = 0;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
