import { OUTBOX_CHANNEL } from '../db/after-commit.ts';
import { PgListener } from '../db/listener.ts';
import type { Services } from '../services.ts';
import { dispatchOutbox } from './delivery.ts';

// Runs dispatchOutbox in every worker process. The process that commits
// outbox rows NOTIFYs `tolk_outbox` once they are committed (db/after-commit.ts:
// at once, then at most once per 20 ms), which wakes every listening process;
// SKIP LOCKED shares the rows among them. A sweep every few seconds catches
// anything a lost notification would leave behind (a listener reconnecting, a
// process that died between a commit and its NOTIFY, rows written by hand),
// so no event waits on one process's memory.

const SWEEP_MS = 3000;
const BATCH = 500;
/**
 * How long a pass waits after the notification that woke it, so that the
 * events committed meanwhile go in the same pass. At 200 calls/s (7 events a
 * call) 10 ms made a pass per 2.5 calls, three statements each: more than a
 * statement per call; at 50 ms a pass moves about ten calls' events,
 * and a webhook leaves at most that much later.
 */
const COALESCE_MS = 50;

export type Dispatcher = { stop: () => Promise<void>; /** Dispatches now; resolves when the outbox is empty. */ kick: () => Promise<void> };

export function startDispatcher(s: Services, databaseUrl: string, log: { error: (o: object, m: string) => void }): Dispatcher {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const drain = async () => {
    do {
      // Events committed within COALESCE_MS of each other are taken in one
      // pass: under load a pass per notification would cost more statements
      // than the events it moves (each pass is a transaction).
      await new Promise((r) => setTimeout(r, COALESCE_MS));
      again = false;
      try {
        while (!stopped && (await dispatchOutbox(s, BATCH)) === BATCH) { /* a full batch: more may wait */ }
      } catch (err) {
        if (!stopped) log.error({ err }, 'outbox dispatch failed; the next sweep retries');
      }
    } while (again && !stopped);
  };
  const kick = (): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      again = true;
      return running;
    }
    running = drain().finally(() => {
      running = null;
    });
    return running;
  };

  const listener = new PgListener(databaseUrl, OUTBOX_CHANNEL, { onNotify: () => void kick(), onUp: () => void kick() });
  void listener.start();
  const sweep = setInterval(() => void kick(), SWEEP_MS);
  sweep.unref();

  return {
    kick,
    stop: async () => {
      stopped = true;
      clearInterval(sweep);
      await running;
      await listener.close();
    },
  };
}
