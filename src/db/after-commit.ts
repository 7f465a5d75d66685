import type pg from 'pg';

// pool.ts's Queryable, written out: pool.ts imports this file (createPool watches its clients).
type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

// NOTIFY once a transaction has committed, from the process that wrote it,
// instead of from inside the transaction. PostgreSQL queues a transaction's
// notifications at its commit under one lock for the whole cluster, held
// until the commit is flushed: every writing transaction that notifies waits
// for the one before it to reach the disk, so none of them commit together.
// Sending NOTIFY inside every event-writing transaction halved the rate of
// single-event inserts (pgbench, 4 clients: 5,800 against 10,900 a second)
// and cost the calls benchmark 0.25 ms of the database's CPU a call.
//
// A statement that writes to a channel's table marks its connection
// (notifyAfterCommit); when that connection reports it is out of any
// transaction again (ReadyForQuery, status idle: committed, or rolled back,
// which wakes a reader for nothing), the pool sends one NOTIFY on the channel,
// at most one per WINDOW_MS per channel: the first at once, then one at the
// end of the window for all that committed during it. A process that dies
// between a commit and its NOTIFY leaves the readers to their own sweep
// (the outbox's dispatcher looks every 3 s): nothing is lost, only later.

/** The event log's channel: its dispatchers (webhooks/dispatcher.ts) and `tolk listen` wait on it. */
export const OUTBOX_CHANNEL = 'tolk_outbox';

/** Wake-ups of one channel are at most this far apart (the first of a burst goes at once). */
export const WINDOW_MS = 20;

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

type Notifier = { wake: (channel: string) => void };

const marks = new WeakMap<object, Set<string>>();
const notifiers = new WeakMap<object, Notifier>();

function isClient(db: Queryable): db is pg.PoolClient {
  return typeof (db as { release?: unknown }).release === 'function';
}

/**
 * The statement about to run on db writes what `channel`'s readers wait for:
 * NOTIFY it once that is committed. On a pool's client, when the client is
 * next out of a transaction; on a pool itself (one statement, committed when
 * it answers), call committed() after it has answered.
 */
export function notifyAfterCommit(db: Queryable, channel: string): { committed: () => void } {
  if (!CHANNEL.test(channel)) throw new Error(`notifyAfterCommit: '${channel}' is not a plain channel name`);
  if (isClient(db)) {
    let set = marks.get(db);
    if (!set) marks.set(db, (set = new Set()));
    set.add(channel);
    return { committed: () => {} };
  }
  return { committed: () => notifiers.get(db)?.wake(channel) };
}

/**
 * Sends the wake-ups of pool's clients (createPool calls it once per pool
 * and once per client it connects).
 */
export function afterCommitNotifier(pool: pg.Pool): { watch: (client: pg.PoolClient) => void } {
  const windows = new Map<string, { again: boolean }>();
  const send = (channel: string) => {
    // The database away: the readers' sweep finds the rows once it is back.
    pool.query(`NOTIFY ${channel}`).catch(() => {});
  };
  const close = (channel: string) => {
    const w = windows.get(channel);
    windows.delete(channel);
    if (w?.again) wake(channel);
  };
  const wake = (channel: string) => {
    const w = windows.get(channel);
    if (w) {
      w.again = true;
      return;
    }
    send(channel);
    setTimeout(() => close(channel), WINDOW_MS).unref();
    windows.set(channel, { again: false });
  };
  notifiers.set(pool, { wake });
  return {
    watch: (client) => {
      const connection = (client as unknown as { connection?: { on: (e: string, f: (m: { status?: string }) => void) => void } }).connection;
      connection?.on('readyForQuery', (m) => {
        if (m.status !== 'I') return;
        const set = marks.get(client);
        if (!set) return;
        marks.delete(client);
        for (const channel of set) wake(channel);
      });
    },
  };
}
