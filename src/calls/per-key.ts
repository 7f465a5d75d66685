/**
 * Tasks run one after another per key (a call), each after the one before it
 * has settled; a failing task is reported to onError and does not stop the
 * next. `pending()` is what is still under way (to wait for at stop).
 */
export function perKey(onError: (err: unknown, key: string, what?: string) => void) {
  const tails = new Map<string, Promise<void>>();
  return {
    /** Queues `task` behind the key's others; `what` names it in onError. */
    run(key: string, task: () => Promise<void>, what?: string): void {
      const next = (tails.get(key) ?? Promise.resolve())
        .then(task)
        .catch((err) => onError(err, key, what))
        .finally(() => { if (tails.get(key) === next) tails.delete(key); });
      tails.set(key, next);
    },
    pending: (): Array<Promise<void>> => [...tails.values()],
    /** Whether anything is queued or under way for the key. */
    busy: (key: string): boolean => tails.has(key),
  };
}
