import type { Caller, Services } from '../services.ts';
import type { Gone, SessionBus } from './bus.ts';
import type { EventReader, ReadResult } from './reader.ts';
import { unlessUnavailable } from './sessions.ts';

/** Longest wait of one long-poll (api.md: wait, seconds). */
export const MAX_WAIT_SECONDS = 25;

/**
 * GET /v1/sessions/{id}/events: events after `cursor`, waiting up to `wait`
 * seconds for the first one. Reading is metered (reader.ts). The wait is
 * real time, whatever Services.clock says.
 */
/** What listening needs beside the services: the bus that wakes a wait, the reader that answers it. */
export type ListenDeps = { bus: SessionBus; reader: EventReader };

export async function listen(
  deps: ListenDeps & Pick<Services, 'translation'>,
  cred: Caller,
  id: string,
  q: { cursor: number; wait: number },
  gone?: Gone,
): Promise<ReadResult> {
  return unlessUnavailable(deps, cred, poll(deps, cred, id, q, gone));
}

async function poll(deps: ListenDeps, cred: Caller, id: string, q: { cursor: number; wait: number }, gone?: Gone): Promise<ReadResult> {
  const deadline = Date.now() + q.wait * 1000;
  for (let first = true; ; first = false) {
    // Marked before reading: a notification after it ends the wait below at once.
    const since = deps.bus.mark();
    // A session that has ended before the first read is 409; one that ends while waiting answers with status ended.
    const { out, logId } = await deps.reader.read(cred, id, q.cursor, first);
    if (out.events.length > 0 || out.status === 'ended' || Date.now() >= deadline || gone?.destroyed) return out;
    await deps.bus.waitFor(logId, Math.max(0, deadline - Date.now()), since, gone);
  }
}
