import { afterEach, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { pgRelay } from '../helpers/pg-relay.ts';
import { DatabaseBack, whenDatabaseBack } from '../../src/calls/outage.ts';

// The gateway's writes while PostgreSQL is away (outage.ts): tried again for
// as long as the database cannot be reached, and written once it can; a
// statement PostgreSQL refuses for what it says is not tried again (the
// call's later events would otherwise wait behind it for good). The
// database here is the real one, behind a port that refuses connections
// until a relay to it is opened (helpers/pg-relay.ts).

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A pool on a port nothing listens on yet, and a way to open a relay to the real PostgreSQL there. */
async function unreachable() {
  // The run's PostgreSQL (the machine's, or the embedded one global-setup.ts started).
  const relay = await pgRelay(inject('adminUrl'));
  const pool = createPool(relay.url(inject('adminUrl')), 2);
  closers.push(() => pool.end(), () => relay.shut());
  return { pool, open: relay.open };
}

describe('a write while the database is away', () => {
  it('is tried again until the database answers, then written once, said in one line when it starts waiting and one when written', async () => {
    const { pool, open } = await unreachable();
    const back = new DatabaseBack();
    const said: string[] = [];
    let tries = 0;
    const write = whenDatabaseBack(async () => {
      tries++;
      return (await pool.query<{ n: number }>('SELECT 41 + 1 AS n')).rows[0]!.n;
    }, back, {
      waiting: () => said.push('waiting'),
      written: (ms) => said.push(`written after ${ms > 0 ? 'a wait' : 'none'}`),
    });
    // Refused a few times (100, 200, 400 ms apart), then the database is back.
    await new Promise((r) => setTimeout(r, 800));
    expect(tries).toBeGreaterThan(1);
    await open();
    back.back();
    await expect(write).resolves.toBe(42);
    expect(said).toEqual(['waiting', 'written after a wait']);
  });

  it('a statement PostgreSQL refuses is not tried again: its error is thrown at once', async () => {
    const { pool, open } = await unreachable();
    await open();
    const said: string[] = [];
    let tries = 0;
    await expect(whenDatabaseBack(async () => {
      tries++;
      return pool.query('SELECT 1 / 0');
    }, new DatabaseBack(), { waiting: () => said.push('waiting') })).rejects.toMatchObject({ code: '22012' });
    expect(tries).toBe(1);
    expect(said).toEqual([]);
  });

  it('gives up when the process stops (the write is then logged as not applied by its caller)', async () => {
    const { pool } = await unreachable();
    const stop = new AbortController();
    const write = whenDatabaseBack(() => pool.query('SELECT 1'), new DatabaseBack(), { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 300));
    stop.abort();
    await expect(write).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
