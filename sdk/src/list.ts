// Lists come back as arrays, as api.md's {data: [...]} holds them. Awaited, a
// list method gives one page (with `has_more` where the API pages it); iterated
// with `for await`, it walks every page (starting_after = the last id), as
// Stripe's auto-pagination does.

import type { RequestOptions, Transport, Operation } from './transport.ts';
import { withResponse, type WithResponse } from './response.ts';

export type List<T> = WithResponse<T[]> & {
  /** More items after these (paged lists: rooms, transcripts, events, deliveries); false otherwise. */
  readonly has_more: boolean;
};

/** A page when awaited; every item of every page when iterated with for await. */
export type ListPromise<T> = Promise<List<T>> & AsyncIterable<T>;

type Page<T> = { data: T[]; has_more?: boolean };

async function page<T>(t: Transport, op: Operation, opts: RequestOptions | undefined): Promise<List<T>> {
  const res = await t.request<Page<T>>(op, opts);
  const items = withResponse(res.data, res.lastResponse);
  Object.defineProperty(items, 'has_more', { value: res.has_more === true, enumerable: false });
  return items as List<T>;
}

export function list<T>(t: Transport, op: Operation, opts?: RequestOptions): ListPromise<T> {
  const first = page<T>(t, op, opts);
  return Object.assign(first, {
    async *[Symbol.asyncIterator](): AsyncGenerator<T> {
      let items = await first;
      for (;;) {
        yield* items;
        const last = items[items.length - 1] as { id?: unknown } | undefined;
        if (!items.has_more || typeof last?.id !== 'string') return;
        items = await page<T>(t, { ...op, query: { ...op.query, starting_after: last.id } }, opts);
      }
    },
  });
}
