import type { Pool } from '../db/pool.ts';
import { prepared } from '../db/pool.ts';

// The audio a room participant may send from their microphone
// (PublicLimits.audioSecondsPerParticipantMinute) is a budget of the person,
// not of a socket: reconnecting, a second tab or another process of the
// service does not start it again. It lives in PostgreSQL
// (room_audio_seconds, one row per person and minute), so every process
// shares it; each process keeps the person's count in memory, adds what its
// sockets receive at once (the check is made on every message), and writes
// what it added once a second (FLUSH_MS) in one upsert, which answers the
// count every process wrote. A process thus learns the others' audio at its
// next write: across processes the budget may be passed by at most one
// second's batch of each other process. A socket accepts no audio before
// its process has read the person's count (ready()).
//
// "A minute" is a sliding one, estimated from two fixed minutes: the current
// minute's seconds plus the previous minute's, weighted by the part of it
// still within the last 60 s. Audio refused is not counted.

const FLUSH_MS = 1000;

type Entry = {
  minute: number;
  cur: number;
  prev: number;
  /** Seconds added here and not yet written, by minute. */
  pending: Map<number, number>;
  sockets: number;
  ready: Promise<void> | null;
};


export class AudioBudget {
  private readonly pool: Pool;
  private readonly limit: () => number;
  private readonly entries = new Map<string, Entry>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private lastSweep = 0;

  constructor(pool: Pool, limit: () => number) {
    this.pool = pool;
    this.limit = limit;
  }

  /** A socket of the person opened: resolves once their count is read (fails open if PostgreSQL does not answer: then this process counts alone). */
  open(participantId: string): Promise<void> {
    const e = this.entry(participantId, Date.now());
    e.sockets++;
    // Read at every socket's opening, not only the first of this process: another process may have counted audio since.
    e.ready = this.pool.query<{ minute: string; seconds: number }>(prepared(
      `SELECT minute, seconds FROM room_audio_seconds WHERE participant_id = $1 AND minute >= $2`, [participantId, e.minute - 1],
    )).then(({ rows }) => {
      for (const r of rows) this.learn(e, Number(r.minute), r.seconds);
    }, () => {});
    return e.ready;
  }

  /** A socket of the person closed. */
  close(participantId: string): void {
    const e = this.entries.get(participantId);
    if (e) e.sockets = Math.max(0, e.sockets - 1);
  }

  /** Seconds of the person's audio in the last minute, as this process knows it. */
  used(participantId: string, t = Date.now()): number {
    const e = this.entries.get(participantId);
    if (!e) return 0;
    this.roll(e, t);
    const into = (t % 60_000) / 60_000;
    return e.cur + e.prev * (1 - into);
  }

  /** Counts `seconds` of the person's audio; false (and not counted) when they would pass the budget. */
  charge(participantId: string, seconds: number, t = Date.now()): boolean {
    const e = this.entry(participantId, t);
    if (this.used(participantId, t) + seconds > this.limit()) return false;
    e.cur += seconds;
    e.pending.set(e.minute, (e.pending.get(e.minute) ?? 0) + seconds);
    this.timer ??= setTimeout(() => { this.timer = null; void this.flush(); }, FLUSH_MS).unref();
    return true;
  }

  /** Writes what was added here; learns what every process wrote. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => this.flush());
    const ids: string[] = [], minutes: number[] = [], seconds: number[] = [];
    for (const [id, e] of this.entries) {
      for (const [m, s] of e.pending) { ids.push(id); minutes.push(m); seconds.push(s); }
      e.pending.clear();
    }
    const t = Date.now();
    this.flushing = (async () => {
      if (ids.length > 0) {
        try {
          const { rows } = await this.pool.query<{ participant_id: string; minute: string; seconds: number }>(prepared(
            `INSERT INTO room_audio_seconds (participant_id, minute, seconds)
             SELECT * FROM unnest($1::text[], $2::bigint[], $3::float8[])
             ON CONFLICT (participant_id, minute) DO UPDATE SET seconds = room_audio_seconds.seconds + excluded.seconds
             RETURNING participant_id, minute, seconds`, [ids, minutes, seconds]));
          for (const r of rows) {
            const e = this.entries.get(r.participant_id);
            if (e) this.learn(e, Number(r.minute), r.seconds);
          }
        } catch {
          // PostgreSQL away: this process goes on counting alone (the budget still holds per process); the seconds are not written again.
        }
      }
      if (t - this.lastSweep > 60_000) {
        this.lastSweep = t;
        await this.pool.query(prepared(`DELETE FROM room_audio_seconds WHERE minute < $1`, [Math.floor(t / 60_000) - 2])).catch(() => {});
      }
      for (const [id, e] of this.entries) {
        this.roll(e, t);
        if (e.sockets === 0 && e.pending.size === 0 && e.cur === 0 && e.prev === 0) this.entries.delete(id);
      }
    })().finally(() => { this.flushing = null; });
    return this.flushing;
  }

  private entry(id: string, t: number): Entry {
    let e = this.entries.get(id);
    if (!e) this.entries.set(id, (e = { minute: Math.floor(t / 60_000), cur: 0, prev: 0, pending: new Map(), sockets: 0, ready: null }));
    this.roll(e, t);
    return e;
  }

  private roll(e: Entry, t: number): void {
    const m = Math.floor(t / 60_000);
    if (m === e.minute) return;
    e.prev = m === e.minute + 1 ? e.cur : 0;
    e.cur = 0;
    e.minute = m;
  }

  /** The count every process wrote for a minute, plus what this process added since. */
  private learn(e: Entry, minute: number, written: number): void {
    const local = e.pending.get(minute) ?? 0;
    if (minute === e.minute) e.cur = Math.max(e.cur, written + local);
    else if (minute === e.minute - 1) e.prev = Math.max(e.prev, written + local);
  }
}

const budgets = new WeakMap<object, AudioBudget>();

/** The one AudioBudget of a pool (so of an app) in this process. */
export function audioBudgetOf(pool: Pool, limit: () => number): AudioBudget {
  let b = budgets.get(pool);
  if (!b) budgets.set(pool, (b = new AudioBudget(pool, limit)));
  return b;
}
