import { EventEmitter } from 'node:events';
import { Worker, type TransferListItem } from 'node:worker_threads';
import { Batcher } from './batch.ts';
import type { JitterStats } from './jitter.ts';
import type { Negotiated } from './sdp.ts';
import type { AmdOptions, AmdVerdict } from './amd.ts';
import type { SpeechChange } from './hearing.ts';
import { addRtpSource, countRtp, type RtpCounts } from '../../src/ops/metrics.ts';

// The media plane of a gateway process: RTP streams run in a worker thread
// (plane-worker.ts) so that a busy main event loop never delays a packet. The
// main thread opens a stream per call (its RTP port goes in our SDP), connects
// it with what the SDP negotiation gave, queues audio (8 kHz 16-bit PCM) to be
// spoken, and hears DTMF digits and when each utterance started and finished.

export type StreamStats = {
  sent: number;
  received: number;
  /** Frames played out of the jitter buffer (decoded). */
  played: number;
  /** RMS of each frame played, oldest first (the last minute at most). */
  energy: number[];
  /** When the far end last sent anything, RTP or RTCP (epoch ms); null: nothing yet. */
  heardAt: number | null;
  /** When the stream was opened (epoch ms). */
  openedAt: number;
};

export type PlaneCommand =
  | { op: 'open'; id: number; key: string; host: string; hear?: boolean }
  | { op: 'amd'; id: number; key: string; options?: Partial<AmdOptions>; noMediaMs: number }
  | { op: 'connect'; id: number; key: string; remote: Negotiated }
  | { op: 'play'; id: number; key: string; utterance: string; pcm: Int16Array; more?: boolean; interruptible?: boolean }
  | { op: 'close'; id: number; key: string }
  | { op: 'hush'; id: number; key: string }
  | { op: 'bed'; id: number; key: string; source: string; pcm: Int16Array }
  | { op: 'stats'; id: number; key: string }
  | { op: 'lateness'; id: number; reset: boolean };

export type PlaneEvent =
  | { type: 'reply'; id: number; error?: string; [k: string]: unknown }
  | { type: 'dtmf'; key: string; digit: string; durationMs: number }
  | { type: 'started'; key: string; utterance: string }
  | { type: 'finished'; key: string; utterance: string; spokenMs: number }
  | { type: 'interrupted'; key: string; utterance: string; spokenMs: number }
  | { type: 'speech'; key: string; kind: SpeechChange; ms: number; at: number }
  | { type: 'heard'; key: string; pcm: Int16Array; audioMs: number; voicedMs: number; at: number }
  | { type: 'audio'; key: string; pcm: Int16Array; start: boolean }
  | { type: 'unheard'; key: string }
  | { type: 'beep'; key: string; hz: number; atMs: number };

/** A command without its id (the plane numbers them). */
type Command = PlaneCommand extends infer C ? (C extends PlaneCommand ? Omit<C, 'id'> : never) : never;

/** How late packets left, ms after their 20 ms tick's time (percentiles over packets sent), and the ticks run. */
export type Lateness = { p50: number; p99: number; max: number; packets: number; ticks: number };

export class MediaPlane extends EventEmitter<{
  dtmf: [key: string, digit: string, durationMs: number];
  started: [key: string, utterance: string];
  /** Its last frame sent; spokenMs: the frames sent of it × 20. */
  finished: [key: string, utterance: string, spokenMs: number];
  /** Dropped, the callee talking over it (barge-in.ts), after spokenMs of it were sent. */
  interrupted: [key: string, utterance: string, spokenMs: number];
  /** The peer started (onset) or stopped (offset) talking (streams opened with `hear`); `at`: when the plane heard it (epoch ms). */
  speech: [key: string, kind: SpeechChange, at: number];
  /** An utterance of the peer's (streams opened with `hear`), when its silence has ended it; `at`: then (epoch ms). */
  heard: [key: string, utterance: { pcm: Int16Array; audioMs: number; voicedMs: number; at: number }];
  /**
   * The audio of the peer's utterance under way as it is said (streams opened with `hear`), in
   * parts of 100 ms; `start`: the first part of an utterance (its preroll and first voiced frame).
   * The utterance then ends with `heard`, or, too short to be one, with `unheard`.
   */
  audio: [key: string, pcm: Int16Array, start: boolean];
  unheard: [key: string];
  /** A beep heard after answering-machine detection began. */
  beep: [key: string, hz: number];
}> {
  private readonly worker: Worker;
  /** Commands go to the thread in batches (batch.ts); its events and replies come back the same way. */
  private readonly out: Batcher<PlaneCommand>;
  private readonly host: string;
  private next = 1;
  private dead: Error | null = null;
  private pending = new Map<number, { ok: (v: Record<string, unknown>) => void; fail: (e: Error) => void }>();
  /** Each open stream's packets as the metrics last counted them (ops/metrics.ts reads the open ones at each scrape). */
  private counted = new Map<string, RtpCounts>();
  private readonly unwatch: () => void;

  private constructor(worker: Worker, host: string) {
    super();
    this.worker = worker;
    this.host = host;
    this.out = new Batcher<PlaneCommand>((cs, transfer) => this.worker.postMessage(cs, transfer));
    worker.on('message', (es: PlaneEvent[]) => { for (const e of es) this.onEvent(e); });
    // The thread failed (or could not load): every request now and later fails with its error.
    const die = (err: Error) => {
      this.dead ??= err;
      for (const p of this.pending.values()) p.fail(err);
      this.pending.clear();
    };
    worker.on('error', die);
    worker.on('exit', (code) => die(new Error(`media plane thread exited (${code})`)));
    this.unwatch = addRtpSource(() => this.countOpen());
  }

  /** Counts what each open stream sent and received since it was last counted. */
  private async countOpen(): Promise<void> {
    await Promise.all([...this.counted.keys()].map(async (key) => this.count(key, await this.stats(key))));
  }

  /** Counts a stream's packets beyond what was counted of it (its stats read now, in the order the thread answers). */
  private count(key: string, s: (StreamStats & { jitter: JitterStats }) | null): void {
    const before = this.counted.get(key);
    if (!before || !s) return;
    const now = { sent: s.sent, received: s.received, lost: s.jitter.lost, late: s.jitter.late };
    countRtp({ sent: now.sent - before.sent, received: now.received - before.received, lost: now.lost - before.lost, late: now.late - before.late });
    this.counted.set(key, now);
  }

  private onEvent(e: PlaneEvent): void {
    if (e.type === 'reply') {
      const p = this.pending.get(e.id);
      this.pending.delete(e.id);
      if (e.error) p?.fail(new Error(e.error));
      else p?.ok(e);
    } else if (e.type === 'dtmf') this.emit('dtmf', e.key, e.digit, e.durationMs);
    else if (e.type === 'started') this.emit('started', e.key, e.utterance);
    else if (e.type === 'finished') this.emit('finished', e.key, e.utterance, e.spokenMs);
    else if (e.type === 'interrupted') this.emit('interrupted', e.key, e.utterance, e.spokenMs);
    else if (e.type === 'speech') this.emit('speech', e.key, e.kind, e.at);
    else if (e.type === 'heard') this.emit('heard', e.key, { pcm: e.pcm, audioMs: e.audioMs, voicedMs: e.voicedMs, at: e.at });
    else if (e.type === 'audio') this.emit('audio', e.key, e.pcm, e.start);
    else if (e.type === 'unheard') this.emit('unheard', e.key);
    else this.emit('beep', e.key, e.hz);
  }

  /** Starts the plane's thread; streams bind on `host` (the address our SDP gives). */
  static async start(host: string): Promise<MediaPlane> {
    const worker = new Worker(new URL('./plane-worker.ts', import.meta.url));
    await new Promise<void>((ok, fail) => { worker.once('online', ok); worker.once('error', fail); });
    return new MediaPlane(worker, host);
  }

  private send<T extends Record<string, unknown>>(c: Command, transfer: TransferListItem[] = []): Promise<T> {
    const id = this.next++;
    return new Promise<T>((ok, fail) => {
      if (this.dead) return fail(this.dead);
      this.pending.set(id, { ok: ok as (v: Record<string, unknown>) => void, fail });
      this.out.post({ ...c, id } as PlaneCommand, transfer);
    });
  }

  /**
   * A stream for `key` (a call): its RTP port (RTCP on the next one). With
   * `hear`, what the peer says is reported as `heard` utterances.
   */
  async open(key: string, o: { hear?: boolean } = {}): Promise<{ port: number }> {
    const r = await this.send<{ port: number }>({ op: 'open', key, host: this.host, hear: o.hear === true });
    this.counted.set(key, { sent: 0, received: 0, lost: 0, late: 0 });
    return { port: r.port };
  }

  /**
   * Answering-machine detection on the stream from now (gateway/media/amd.ts):
   * answers its verdict; `unknown` when the peer sends no media at all within
   * `noMediaMs`, or the stream closes first. Beeps heard later are `beep` events.
   */
  async detectMachine(key: string, o: { noMediaMs: number; options?: Partial<AmdOptions> }): Promise<AmdVerdict> {
    return (await this.send<{ verdict: AmdVerdict }>({ op: 'amd', key, noMediaMs: o.noMediaMs, options: o.options })).verdict;
  }

  /** Where and how to send, from the SDP negotiation; the peer's own packets then decide where (symmetric RTP). */
  async connect(key: string, remote: Negotiated): Promise<void> {
    await this.send({ op: 'connect', key, remote });
  }

  /**
   * Queues 8 kHz 16-bit PCM to be spoken after what is already queued; answers
   * how long it waits behind that (ms). `started` and `finished` follow, or `interrupted`:
   * an `interruptible` utterance stops when the peer talks over it (streams opened with
   * `hear`; barge-in.ts), and a part of it played after that is dropped too.
   */
  async play(key: string, utterance: string, pcm: Int16Array, o: { more?: boolean; interruptible?: boolean } = {}): Promise<{ queuedMs: number }> {
    const copy = pcm.slice();
    const r = await this.send<{ queuedMs: number }>({ op: 'play', key, utterance, pcm: copy, more: o.more === true, interruptible: o.interruptible === true }, [copy.buffer]);
    return { queuedMs: r.queuedMs };
  }

  /**
   * Drops what the stream was to say that may be cut (its interruptible utterances, under way and
   * queued), each reported `interrupted`: a caller who presses a key over a prompt.
   */
  async hush(key: string): Promise<void> {
    await this.send({ op: 'hush', key });
  }

  /**
   * Audio to mix into what the stream sends, under what it plays (a room's own voices, for a
   * phone participant): 8 kHz PCM in whole 20 ms frames from `source`, one queue per source, a
   * frame of each summed at every tick (at most BED_MAX_FRAMES kept a source: a late source is
   * cut, not delayed). No reply: it comes 50 times a second a voice.
   */
  bed(key: string, source: string, pcm: Int16Array): void {
    if (this.dead) return;
    const copy = pcm.slice();
    this.out.post({ op: 'bed', id: 0, key, source, pcm: copy }, [copy.buffer]);
  }

  /** A digit the signaling carried (SIP INFO): heard as the stream's RFC 4733 events are, a `dtmf`. */
  digitFromSignaling(key: string, digit: string, durationMs: number): void {
    this.emit('dtmf', key, digit, durationMs);
  }

  /** Ends the stream; what it sent and received. */
  async close(key: string): Promise<(StreamStats & { jitter: JitterStats }) | null> {
    const r = await this.send<{ stats: (StreamStats & { jitter: JitterStats }) | null }>({ op: 'close', key });
    this.count(key, r.stats);
    this.counted.delete(key);
    return r.stats;
  }

  /** What a stream has sent and received so far, or null when there is no such stream. */
  async stats(key: string): Promise<(StreamStats & { jitter: JitterStats }) | null> {
    return (await this.send<{ stats: (StreamStats & { jitter: JitterStats }) | null }>({ op: 'stats', key })).stats;
  }

  /** How late packets left (ms after their tick's time), since the start or the last reset. */
  async lateness(reset = false): Promise<Lateness> {
    return (await this.send<{ lateness: Lateness }>({ op: 'lateness', reset })).lateness;
  }

  async stop(): Promise<void> {
    this.unwatch();
    await this.worker.terminate();
  }
}
