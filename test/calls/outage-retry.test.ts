import net from 'node:net';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createPool } from '../../src/db/pool.ts';
import { freePort } from '../../src/db/embedded.ts';
import { DatabaseBack, whenDatabaseBack } from '../../src/calls/outage.ts';

// The gateway's writes while PostgreSQL is away (outage.ts): tried again for
// as long as the database cannot be reached, and written once it can; a
// statement PostgreSQL refuses for what it says is not tried again (the
// call's later events would otherwise wait behind it for good). The
// database here is the real one, behind a port that refuses connections
// until a proxy to it is opened.

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** A pool on a port nothing listens on yet, and a way to open a proxy to the real PostgreSQL there. */
async function unreachable() {
  const port = await freePort();
  // The run's PostgreSQL (the machine's, or the embedded one global-setup.ts started).
  const real = new URL(inject('adminUrl'));
  const url = new URL(inject('adminUrl'));
  url.port = String(port);
  const pool = createPool(url.toString(), 2);
  closers.push(() => pool.end());
  const sockets = new Set<net.Socket>();
  const open = () => new Promise<void>((resolve) => {
    const server = net.createServer((c) => {
      sockets.add(c);
      const up = net.connect(Number(real.port || 5432), real.hostname);
      c.pipe(up).pipe(c);
      c.on('error', () => up.destroy());
      up.on('error', () => c.destroy());
    });
    server.listen(port, '127.0.0.1', () => resolve());
    closers.push(() => new Promise((r) => {
      server.close(() => r());
      for (const c of sockets) c.destroy();
    }));
  });
  return { pool, open };
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
