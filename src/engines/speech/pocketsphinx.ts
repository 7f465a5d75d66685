import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { baseLang, EngineError } from '../translate/engine.ts';
import type { HeardUtterance, SpeechRecognizer } from './recognizer.ts';
import { loadResampler, resample } from './resample.ts';

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
};

export class PocketsphinxRecognizer implements SpeechRecognizer {
  readonly name = 'pocketsphinx';
  requests = 0;
  private readonly dir: string;
  private readonly slots: Slot[] = [];
  private readonly size: number;
  private n = 0;
  private closed = false;

  /** `processes`: decoders running side by side (default: the machine's cores less one, at least 1, at most 4). */
  constructor(o: { processes?: number } = {}) {
    if (!pocketsphinxInstalled()) {
      throw new Error('pocketsphinx is not installed: apt-get install pocketsphinx pocketsphinx-en-us (or name another recognizer in TOLK_RECOGNIZE)');
    }
    // One core left to the rest (the media thread, the event loop), up to 4 decoders.
    this.size = Math.max(1, o.processes ?? Math.min(4, os.availableParallelism() - 1));
    this.dir = mkdtempSync(path.join(os.tmpdir(), 'tolk-ps-'));
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
    const child = spawn('sh', ['-c', 'cat | nice -n 10 "$0" "$@" | cat', BATCH, '-adcin', 'yes', '-cepdir', this.dir, '-cepext', '.raw', '-ctl', '/dev/stdin', '-hyp', '/dev/stdout', '-logfn', '/dev/null'], {
      stdio: ['pipe', 'pipe', 'ignore'],
      detached: true,
    });
    child.stdin!.on('error', () => {});
    const slot: Slot = { child, list: child.stdin!, waiting: new Map(), busy: 0, dead: false };
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
      slot.dead = true;
      for (const done of slot.waiting.values()) done(undefined as never);
      slot.waiting.clear();
    };
    child.once('exit', fail);
    child.once('error', fail);
    return slot;
  }

  /** The least busy live decoder, started when there are fewer than `size`. */
  private slot(): Slot {
    for (let i = this.slots.length - 1; i >= 0; i--) if (this.slots[i]!.dead) this.slots.splice(i, 1);
    const idle = this.slots.find((s) => s.busy === 0);
    if (idle) return idle;
    if (this.slots.length < this.size) {
      const s = this.start();
      this.slots.push(s);
      return s;
    }
    return this.slots.reduce((a, b) => (b.busy < a.busy ? b : a));
  }

  async recognize(u: HeardUtterance, signal?: AbortSignal): Promise<{ text: string | null }> {
    if (this.closed) throw new EngineError('pocketsphinx: closed', { permanent: true });
    if (!this.hears(u.lang)) throw new EngineError(`pocketsphinx does not hear ${u.lang}`, { permanent: true });
    await loadResampler();
    const name = `u${++this.n}`;
    const file = path.join(this.dir, `${name}.raw`);
    const rate = u.rate ?? 8000;
    const pcm = rate === MODEL_RATE ? u.pcm : resample(u.pcm, rate, MODEL_RATE);
    writeFileSync(file, Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    this.requests++;
    const slot = this.slot();
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
