import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { until } from '../helpers/wait.ts';
import { SessionBus } from '../../src/sessions/bus.ts';
import { LOG_CHANNEL } from '../../src/services.ts';

// The bus wakes long-polls on NOTIFY. A listener learns its session's room from
// the read itself, so it waits on the room after reading, with the mark taken
// before the read: a notification for that room that arrived in between must
// end the wait at once (else the listener would sleep through an event
// committed after its read's snapshot), and one for another room must not.

let db: TestDb;
let bus: SessionBus;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase();
  bus = new SessionBus(db.url);
  await bus.start();
  client = new pg.Client(db.url);
  // The database is dropped WITH (FORCE) at the end: its termination is not an error of the test.
  client.on('error', () => {});
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await bus?.close();
  await db?.drop();
});

/** Sends a notification for room and waits until this bus has heard it. */
async function notify(room: string): Promise<void> {
  const before = bus.mark();
  await client.query('SELECT pg_notify($1, $2)', [LOG_CHANNEL, room]);
  await until('the bus hears the notification', async () => bus.mark() > before, { timeoutMs: 5_000, intervalMs: 5 });
}

/** 'woken' if the wait ends within `within` ms, else 'still waiting'. */
async function outcome(p: Promise<void>, within: number): Promise<'woken' | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((r) => { timer = setTimeout(() => r('still waiting'), within); });
  try {
    return await Promise.race([p.then(() => 'woken' as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('session bus', () => {
  it('a wait registered after its room was notified (since the mark) ends at once', async () => {
    const since = bus.mark();
    await notify('room_a');
    const w = bus.waitFor('room_a', 20_000, since);
    expect(await outcome(w, 2_000)).toBe('woken');
  });

  it('a notification for another room, or one before the mark, does not end the wait', async () => {
    await notify('room_b');
    const since = bus.mark();
    await notify('room_c');
    const w = bus.waitFor('room_b', 20_000, since);
    expect(await outcome(w, 300)).toBe('still waiting');
    // It is still registered: the next notification of its room wakes it.
    await client.query('SELECT pg_notify($1, $2)', [LOG_CHANNEL, 'room_b']);
    expect(await outcome(w, 5_000)).toBe('woken');
  });

  it('a mark older than the notifications remembered ends the wait at once (it cannot tell)', async () => {
    const since = bus.mark();
    const n = 4096;
    const before = bus.mark();
    // One statement sending more notifications than the bus remembers, none for room_d.
    await client.query(`SELECT pg_notify($1, 'room_e' || g) FROM generate_series(1, $2) g`, [LOG_CHANNEL, n]);
    await until('the bus hears them all', async () => bus.mark() >= before + n, { timeoutMs: 10_000, intervalMs: 10 });
    const w = bus.waitFor('room_d', 20_000, since);
    expect(await outcome(w, 2_000)).toBe('woken');
  });
});
