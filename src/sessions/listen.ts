import type { Caller, Services } from '../services.ts';
import type { Gone, SessionBus } from './bus.ts';
import type { EventReader, ReadResult } from './reader.ts';
import { assertTestMode, loadSession, sessionEnded } from './sessions.ts';

/** Longest wait of one long-poll (api.md: wait, seconds). */
export const MAX_WAIT_SECONDS = 25;

/**
 * GET /v1/sessions/{id}/events: events after `cursor`, waiting up to `wait`
 * seconds for the first one. Reading is metered (reader.ts). The wait is
 * real time, whatever Services.clock says.
 */
export async function listen(
  s: Services,
  deps: { bus: SessionBus; reader: EventReader },
  cred: Caller,
  id: string,
  q: { cursor: number; wait: number },
  gone?: Gone,
): Promise<ReadResult> {
  assertTestMode(cred);
  const first = await loadSession(s.pool, cred, id);
  if (first.status === 'ended') throw sessionEnded(id);
  const deadline = Date.now() + q.wait * 1000;
  for (;;) {
    // Register before reading: an event committed in between still wakes us.
    const w = deps.bus.waitFor(first.room_id, Math.max(0, deadline - Date.now()), gone);
    const out = await deps.reader.read(cred, id, q.cursor);
    if (out.events.length > 0 || out.status === 'ended' || Date.now() >= deadline || gone?.destroyed) {
      w.end();
      return out;
    }
    await w.promise;
  }
}
