import type { Services } from '../services.ts';
import type { Gateway } from '../../gateway/gateway.ts';
import type { CallEvent } from '../../machines/call.ts';
import type { DatabaseBack } from './outage.ts';

// What the lines of one gateway share (call-line.ts, line-hearing.ts), and the log they write to.

export type Log = { info: (o: object, m: string) => void; warn: (o: object, m: string) => void; error: (o: object, m: string) => void };

/** What the lines of one gateway share. */
export type LineDeps = {
  s: Services;
  gw: Gateway;
  log: Log;
  /** Wakes the writes waiting for the database (outage.ts). */
  back: DatabaseBack;
  /** Aborted at stop: what still waits for the database gives up. */
  signal: AbortSignal;
  /** Applies a call event (dialer.ts); the line runs it in its chain. */
  apply: (callId: string, event: CallEvent, endedAt?: Date) => Promise<void>;
  /** The languages no engine speaks, logged once each. */
  unspoken: Set<string>;
};
