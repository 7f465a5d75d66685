import { PgListener } from '../db/listener.ts';
import { LOG_CHANNEL, type Gone, type LogBus } from '../services.ts';

// Wakes long-polling listeners (GET /v1/sessions/{id}/events) the moment a
// room's sessions get events, in whichever process they were produced: writers
// send NOTIFY LOG_CHANNEL (services.ts) with the room id in their transaction, every
// process LISTENs on one connection and wakes its local waiters of that room.
// The waiters themselves are only the open requests of this process (safe to
// lose: the client simply polls again). While the listening connection is
// down, waiters re-check the database every FALLBACK_MS instead.
//
// A reader learns its session's room from the read itself, so it cannot
// register before reading. Instead it takes a mark() before the read and
// passes it to waitFor(): every notification is numbered, the last RECENT of
// them are remembered, and a wait whose room was notified after the mark (or
// whose mark is older than what is remembered) ends at once, so an event
// committed after the read's snapshot is never slept through.

const FALLBACK_MS = 500;
/** Notifications remembered for waits registered after their read (see mark()). */
const RECENT = 4096;
/** The key recorded when every waiter was woken (the listening connection went down or came back). */
const ALL = '\u0000all';

/** What a waiting request watches to stop waiting when its client goes away (the request's IncomingMessage): the port's (services.ts). */
export type { Gone };

/**
 * One waiting listener: a notification, its time limit or its client going
 * away ends it, whichever comes first. One small object per waiting request
 * (thousands of them wait at once), its methods shared on the prototype.
 */
class Waiter {
  readonly promise: Promise<void>;
  private resolve!: () => void;
  private timer: NodeJS.Timeout | null = null;
  private readonly set: Set<Waiter>;
  private readonly bus: SessionBus;
  private readonly key: string;
  private readonly gone: Gone | undefined;
  private readonly onGone: (() => void) | undefined;

  constructor(bus: SessionBus, set: Set<Waiter>, key: string, ms: number, gone?: Gone) {
    this.bus = bus;
    this.set = set;
    this.key = key;
    this.gone = gone;
    this.promise = new Promise<void>((resolve) => { this.resolve = resolve; });
    set.add(this);
    this.timer = setTimeout(() => this.end(), ms);
    if (gone) {
      this.onGone = () => this.end();
      gone.once('close', this.onGone);
    }
  }

  /** Stops waiting (idempotent). */
  end(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.onGone) this.gone!.off('close', this.onGone);
    this.bus.forget(this.key, this.set, this);
    this.resolve();
  }
}

/** The LogBus port of services.ts: what Services.logBus is in a process that serves a log's readers. */
export class SessionBus implements LogBus {
  private waiters = new Map<string, Set<Waiter>>();
  private readonly listener: PgListener;
  /** Notifications seen so far; recent[n % RECENT] is the key of notification n. */
  private seen = 0;
  private readonly recent: string[] = new Array<string>(RECENT);

  constructor(url: string) {
    this.listener = new PgListener(url, LOG_CHANNEL, {
      onNotify: (key) => { if (key) this.wake(key); },
      // Anything sent while we were not listening: everyone re-checks the database.
      onUp: () => this.wakeAll(),
      // Waiters re-check now, then wait on the fallback timer until we are back.
      onDown: () => this.wakeAll(),
    });
  }

  get listening(): boolean {
    return this.listener.up;
  }

  /** Number of requests waiting in this process (for the benchmark). */
  get size(): number {
    let n = 0;
    for (const set of this.waiters.values()) n += set.size;
    return n;
  }

  async start(): Promise<void> {
    await this.listener.start();
  }

  private note(key: string): void {
    this.seen++;
    this.recent[this.seen % RECENT] = key;
  }

  /** A mark to take before reading, for waitFor(): notifications after it are not slept through. */
  mark(): number {
    return this.seen;
  }

  /** Whether key (or everyone) was notified after mark, or might have been (mark older than what is remembered). */
  private notifiedSince(key: string, mark: number): boolean {
    if (this.seen - mark >= RECENT) return true;
    for (let n = mark + 1; n <= this.seen; n++) {
      const k = this.recent[n % RECENT];
      if (k === key || k === ALL) return true;
    }
    return false;
  }

  private wake(key: string): void {
    this.note(key);
    const set = this.waiters.get(key);
    if (!set) return;
    this.waiters.delete(key);
    for (const w of set) w.end();
  }

  private wakeAll(): void {
    this.note(ALL);
    const all = [...this.waiters.values()];
    this.waiters.clear();
    for (const set of all) for (const w of set) w.end();
  }

  /** A waiter that ended leaves its room's set (the set goes when empty). */
  forget(key: string, set: Set<Waiter>, w: Waiter): void {
    set.delete(w);
    if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
  }

  /**
   * Resolves at the next notification for key (a room id), after ms, or when
   * the client goes away (gone's close), whichever comes first; at once when
   * key was notified after `since`, the mark() taken before the read that
   * found nothing, so an event committed after that read is not missed.
   */
  waitFor(key: string, ms: number, since: number, gone?: Gone): Promise<void> {
    if (this.notifiedSince(key, since)) return Promise.resolve();
    let set = this.waiters.get(key);
    if (!set) this.waiters.set(key, (set = new Set()));
    return new Waiter(this, set, key, this.listening ? ms : Math.min(ms, FALLBACK_MS), gone).promise;
  }

  async close(): Promise<void> {
    await this.listener.close();
    this.wakeAll();
  }
}
