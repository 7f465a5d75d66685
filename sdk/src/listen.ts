// Listening to an agent session: the long-poll loop of GET
// /v1/sessions/{id}/events, as an async iterable.
//
// - It starts at `cursor` (default 0) and keeps the cursor: after each event
//   it is that event's id, after each answer the answer's cursor (which also
//   moves past the session's own phrases). `listener.cursor` is where to start
//   again, in this process or another.
// - Each poll waits up to `wait` seconds (default and most: 25).
// - A failure that may pass (no answer, a restart, 429, 5xx) is retried with
//   backoff, honouring Retry-After, from the same cursor, so nothing is missed
//   or read twice; after `reconnectFor` ms of nothing but failures (default 5
//   minutes) the last one is thrown. Other errors (401, 403, 404, 402) are thrown.
// - It ends when the session does: an answer with status `ended`, or 409
//   session_ended (a session that ended between two polls).

import { TolkError } from './errors.ts';
import type { Sessions } from './resources.ts';
import { retryDelay, sleep } from './transport.ts';
import type { SessionEvent } from './types.ts';

export type ListenOptions = {
  /** Where to start: 0 (default) reads from the session's first event; a listener's `cursor` resumes after it. */
  cursor?: number;
  /** Seconds each poll waits for an event (1-25, default 25). */
  wait?: number;
  /** Milliseconds of consecutive failures after which the last one is thrown (default 300,000). */
  reconnectFor?: number;
  /** Ends the listening; the loop then throws the signal's reason. */
  signal?: AbortSignal;
};

export class SessionListener implements AsyncIterable<SessionEvent> {
  /** The position after the last event handed out: pass it as `cursor` to resume. */
  cursor: number;
  /** The session's status in the last answer (`joining`, `active`, `ended`), or null before one came. */
  status: string | null = null;
  private readonly wait: number;
  private readonly reconnectFor: number;

  private readonly sessions: Sessions;
  readonly sessionId: string;
  private readonly o: ListenOptions;

  constructor(sessions: Sessions, sessionId: string, o: ListenOptions) {
    this.sessions = sessions;
    this.sessionId = sessionId;
    this.o = o;
    this.cursor = o.cursor ?? 0;
    this.wait = Math.min(25, Math.max(1, Math.floor(o.wait ?? 25)));
    this.reconnectFor = o.reconnectFor ?? 300_000;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SessionEvent> {
    let failures = 0;
    let failingSince = 0;
    for (;;) {
      let page;
      try {
        page = await this.sessions.events(this.sessionId, { cursor: this.cursor, wait: this.wait }, { maxRetries: 0, signal: this.o.signal });
      } catch (err) {
        if (!(err instanceof TolkError)) throw err;
        if (err.status === 409 && err.code === 'session_ended') {
          this.status = 'ended';
          return;
        }
        if (failures === 0) failingSince = Date.now();
        const delay = retryDelay(err, failures, 'safe');
        if (delay === null || Date.now() + delay - failingSince > this.reconnectFor) throw err;
        failures++;
        await sleep(delay, this.o.signal);
        continue;
      }
      failures = 0;
      this.status = page.status;
      for (const event of page.events) {
        this.cursor = Math.max(this.cursor, event.id);
        yield event;
      }
      this.cursor = Math.max(this.cursor, page.cursor);
      if (page.status === 'ended') return;
    }
  }
}
