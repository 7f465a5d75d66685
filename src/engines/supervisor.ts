import os from 'node:os';
import pino from 'pino';
import { resetBreakers } from './breaker.ts';

// What the service does when a child it runs dies (apertium-apy, a
// PocketSphinx decoder, Pico's or eSpeak's worker thread): a log line saying
// which, its pid, how it ended and how long it lived; a new one after a pause
// that doubles from 0.5 s to 30 s while it keeps dying, and starts again from
// 0.5 s once one has stayed up a minute; a log line when it is back. Meanwhile
// the engine counts as down in /readyz (engines_<kind>, ops/health.ts), and
// back up by itself once its child is. A stop of the server stops this too:
// nothing is restarted once its owner is closing.

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

let defaultLog: Log | null = null;

/**
 * Where the engines' children's lines go when their owner was given no log
 * (the synthesizers are made where no log is at hand): the platform's, once it
 * has set it; else a logger of its own on stderr, as the platform's.
 */
export function engineLog(): Log {
  defaultLog ??= pino({ level: 'info' }, pino.destination(2));
  return defaultLog;
}

export function setEngineLog(log: Log): void {
  defaultLog = log;
}

export type BackoffOptions = {
  /** The first pause (default 500 ms). */
  initialMs?: number;
  /** The longest pause (default 30 s). */
  maxMs?: number;
  /** A child up this long is healthy again: its next death waits initialMs (default 60 s). */
  stableMs?: number;
};

/** The pause before a dead child's next start. */
export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly stableMs: number;
  private nextMs: number;

  constructor(o: BackoffOptions = {}) {
    this.initialMs = o.initialMs ?? 500;
    this.maxMs = o.maxMs ?? 30_000;
    this.stableMs = o.stableMs ?? 60_000;
    this.nextMs = this.initialMs;
  }

  /** The pause after a child that lived `livedMs` died (or a start that failed: 0). */
  next(livedMs: number): number {
    if (livedMs >= this.stableMs) this.nextMs = this.initialMs;
    const ms = this.nextMs;
    this.nextMs = Math.min(this.maxMs, this.nextMs * 2);
    return ms;
  }
}

/** How a child ended: its exit code, or the signal that ended it. */
export type ChildExit = { code: number | null; signal: NodeJS.Signals | string | null };

/** A shell's exit code 128+n is signal n: named as the signal. */
export function describeExit(e: ChildExit): { code: number | null; signal: string | null } {
  if (e.signal) return { code: e.code, signal: String(e.signal) };
  if (e.code !== null && e.code > 128 && e.code < 160) {
    const name = Object.entries(os.constants.signals).find(([, n]) => n === e.code! - 128)?.[0];
    if (name) return { code: e.code, signal: name };
  }
  return { code: e.code, signal: null };
}

// Which engines have a child down now, by kind and engine name: /readyz counts such an engine as down.
const down = new Map<string, number>();

/** Marks one child of engine (kind, name) down or back; an engine is down while any of its children is. */
export function markChild(kind: string, engine: string, isDown: boolean): void {
  const key = `${kind}\0${engine}`;
  const n = (down.get(key) ?? 0) + (isDown ? 1 : -1);
  if (n > 0) down.set(key, n);
  else down.delete(key);
}

/** Whether engine (kind, name) has a child down now. */
export function childDown(kind: string, engine: string): boolean {
  return down.has(`${kind}\0${engine}`);
}

/** A child as its supervisor sees it. */
export type Child = {
  /** Its process id (a thread: its thread id), for the log. */
  pid: number | undefined;
  /** Resolves once it has ended, whoever ended it. */
  exited: Promise<ChildExit>;
  /** Ends it (and waits). */
  stop: () => Promise<void>;
};

export type SupervisorOptions<C extends Child> = {
  /** What it is, for the log ("apertium-apy"). */
  what: string;
  kind: string;
  engine: string;
  start: () => Promise<C>;
  /** A child is up (after a restart: restarted true). */
  onUp?: (child: C, restarted: boolean) => void | Promise<void>;
  /** The child died; no other is up yet. */
  onDown?: () => void;
  log?: Log;
  backoff?: BackoffOptions;
};

/**
 * Runs one child and keeps it running: start() starts the first (and rejects
 * as its start does); every unexpected end after that is logged and followed
 * by another start after the backoff's pause, until stop().
 */
export class Supervisor<C extends Child> {
  private current: C | null = null;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly backoff: Backoff;
  private readonly o: SupervisorOptions<C>;
  private restarts = 0;
  private downSince = 0;
  private isDown = false;

  constructor(o: SupervisorOptions<C>) {
    this.o = o;
    this.backoff = new Backoff(o.backoff);
  }

  private get log(): Log {
    return this.o.log ?? engineLog();
  }

  /** The child running now, or null while it is being restarted. */
  get child(): C | null {
    return this.current;
  }

  async start(): Promise<C> {
    const c = await this.o.start();
    this.adopt(c, false);
    return c;
  }

  private adopt(c: C, restarted: boolean): void {
    if (this.stopping) {
      void c.stop();
      return;
    }
    this.current = c;
    const since = Date.now();
    void c.exited.then((e) => this.died(c, e, Date.now() - since));
    if (restarted) {
      this.log.info({ engine: this.o.engine, kind: this.o.kind, pid: c.pid, down_ms: Date.now() - this.downSince, restarts: this.restarts }, `${this.o.what} is back (pid ${c.pid})`);
    }
    // Back: once its engine has what it needs (onUp), its breakers, open after the failures
    // meanwhile, close at once (breaker.ts, reset): /readyz follows without waiting for a request.
    void Promise.resolve(this.o.onUp?.(c, restarted)).catch(() => {}).then(() => {
      if (!restarted || this.current !== c) return;
      this.setDown(false);
      resetBreakers(this.o.kind, this.o.engine, `${this.o.what} is back`);
    });
  }

  private died(c: C, e: ChildExit, livedMs: number): void {
    if (this.current !== c || this.stopping) return;
    this.current = null;
    const wait = this.backoff.next(livedMs);
    const how = describeExit(e);
    this.log.warn({ engine: this.o.engine, kind: this.o.kind, pid: c.pid, exit_code: how.code, signal: how.signal, lived_ms: livedMs, restart_in_ms: wait },
      `${this.o.what} (pid ${c.pid}) died (${how.signal ?? `exit ${how.code}`}) after ${(livedMs / 1000).toFixed(1)} s; starting another in ${wait} ms`);
    this.downSince = Date.now();
    this.setDown(true);
    this.o.onDown?.();
    this.schedule(wait);
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.stopping) return;
      this.restarts++;
      this.o.start().then((c) => this.adopt(c, true), (err: Error) => {
        if (this.stopping) return;
        const wait = this.backoff.next(0);
        this.log.warn({ engine: this.o.engine, kind: this.o.kind, error: err.message, restart_in_ms: wait }, `${this.o.what} did not start again: ${err.message}; trying again in ${wait} ms`);
        this.schedule(wait);
      });
    }, ms);
    this.timer.unref();
  }

  private setDown(d: boolean): void {
    if (d === this.isDown) return;
    this.isDown = d;
    markChild(this.o.kind, this.o.engine, d);
  }

  /** No more restarts; the child running is stopped. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.setDown(false);
    const c = this.current;
    this.current = null;
    await c?.stop();
  }
}
