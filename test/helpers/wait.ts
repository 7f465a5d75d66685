// The one poll helper of the tests and the benchmark. Waiting on a positive
// signal (a receiver's request, a row, a status) is always preferred to a fixed
// sleep; when the signal can only be polled, poll it with `until`.

export type UntilOptions = {
  /** Gives up after this long (default 20 s); the check that crosses it is the last. */
  timeoutMs?: number;
  /** Pause between checks (default 25 ms). */
  intervalMs?: number;
  /**
   * A check that throws counts as "not yet" (default true: a server still
   * starting refuses connections). With false, the first throw ends the wait
   * with that error.
   */
  retryErrors?: boolean;
  /** Added to the timeout message, e.g. the last status seen. */
  detail?: () => string;
};

/** What `until` throws when the time is up (so a caller can choose to go on). */
export class WaitTimeout extends Error {
  override name = 'WaitTimeout';
}

/** For `.catch(ignoreTimeout)`: a wait that may run out; any other error still throws. */
export function ignoreTimeout(err: unknown): void {
  if (!(err instanceof WaitTimeout)) throw err;
}

/**
 * Calls `check` until it returns a truthy value, and returns that value;
 * throws WaitTimeout naming `what` once `timeoutMs` has passed. A number as the
 * third argument is the timeout.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  opts: number | UntilOptions = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 25, retryErrors = true, detail } = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    let v: T | undefined | null | false;
    if (retryErrors) {
      v = await check().catch((err: unknown) => {
        lastError = err;
        return undefined;
      });
    } else {
      v = await check();
    }
    if (v) return v;
    if (Date.now() > deadline) {
      const more = [detail?.(), lastError === undefined ? undefined : `last error: ${(lastError as Error)?.message ?? String(lastError)}`].filter(Boolean);
      throw new WaitTimeout(`timed out after ${timeoutMs} ms waiting for ${what}${more.length ? ` (${more.join('; ')})` : ''}`);
    }
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Lets `ms` pass, for a test that shows something does NOT happen (a second
 * report, a retransmission, a retry): an absence can only be watched for a
 * while. Each caller says why that length; waiting for something to happen is
 * `until`'s.
 */
export function quietFor(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
