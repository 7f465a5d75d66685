import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { createPool, withTx } from '../../src/db/pool.ts';
import { Writes } from '../../src/db/writes.ts';
import { OUTBOX_CHANNEL, WINDOW_MS } from '../../src/db/after-commit.ts';
import { writeEvent } from '../../src/actors/store.ts';
import { until } from '../helpers/wait.ts';

// The outbox's readers (the webhook dispatchers of every process, `tolk
// listen`) are woken by a NOTIFY that the writing process sends once the
// events are committed, not by one inside each writing transaction (which
// made every such commit wait for the one before it to reach the disk): at
// once for the first, then at most one per 20 ms for a burst, and the last
// one after the burst's last commit, so a reader woken by it finds every
// event.

let db: TestDb;
let pool: pg.Pool;
let listener: pg.Client;
let heard: number[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 4);
  listener = new pg.Client(db.url);
  await listener.connect();
  listener.on('notification', (n) => { if (n.channel === OUTBOX_CHANNEL) heard.push(performance.now()); });
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
  await listener.query(`CREATE TABLE after_commit_probe (n int PRIMARY KEY)`);
});
afterAll(async () => {
  await listener?.end();
  await pool?.end();
  await db?.drop();
});
beforeEach(async () => {
  // Whatever an earlier test's window still had to send.
  await new Promise((r) => setTimeout(r, 200));
  heard = [];
});

const owner = { orgId: 'org_after_commit', livemode: false };
const events = async () => (await listener.query(`SELECT count(*)::int AS n FROM outbox WHERE org_id = $1`, [owner.orgId])).rows[0].n as number;

describe('waking the outbox readers after the commit', () => {
  it('an event committed in a transaction wakes the readers, who then find it', async () => {
    const before = await events();
    let committedAt = 0;
    await withTx(pool, async (tx) => {
      await writeEvent(tx, owner, 'room.started', { id: 'room_after_commit_1' });
      // Written, not committed: nobody is woken for a row they could not read.
      await new Promise((r) => setTimeout(r, 150));
      expect(heard).toEqual([]);
    });
    committedAt = performance.now();
    await until('the readers to be woken', async () => heard.length > 0, 5_000);
    expect(heard[0]!).toBeGreaterThanOrEqual(committedAt - 1);
    expect(await events()).toBe(before + 1);
  });

  it('a burst of commits wakes the readers a few times, the last time after the last commit', async () => {
    const before = await events();
    const n = 100;
    const start = performance.now();
    let lastCommit = 0;
    await Promise.all(Array.from({ length: n }, (_, i) => withTx(pool, async (tx) => {
      await writeEvent(tx, owner, 'room.started', { id: `room_burst_${i}` });
    }).then(() => { lastCommit = Math.max(lastCommit, performance.now()); })));
    // A reader woken after the last commit reads all of them.
    await until('a wake-up after the last commit', async () => heard.some((t) => t >= lastCommit), 5_000);
    expect(await events()).toBe(before + n);
    // One NOTIFY per transaction was 100 of them; now one per window at most,
    // from the burst's start to a window past its last commit (timers may fire
    // a millisecond early).
    const windows = Math.floor((lastCommit + WINDOW_MS - start) / (WINDOW_MS - 1)) + 1;
    expect(heard.length).toBeLessThanOrEqual(windows);
    expect(heard.length).toBeLessThan(n);
  });

  it('a statement committed on its own (a pool statement) wakes the readers once it has answered', async () => {
    const w = new Writes();
    w.notify(OUTBOX_CHANNEL);
    w.with(w.name('e'), `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data)
      VALUES ('evt_after_commit_alone', ${w.p(owner.orgId)}, false, 'room.started', 'room_alone', '{"object":{"id":"room_alone"}}')`);
    const before = await events();
    await w.runAlone(pool);
    await until('the readers to be woken', async () => heard.length > 0, 5_000);
    expect(await events()).toBe(before + 1);
  });

  it('a transaction that writes no event, or is rolled back before writing one, wakes nobody', async () => {
    await withTx(pool, async (tx) => { await tx.query(`INSERT INTO after_commit_probe (n) VALUES (1)`); });
    await expect(withTx(pool, async (tx) => {
      await tx.query(`INSERT INTO after_commit_probe (n) VALUES (2)`);
      throw new Error('changed its mind');
    })).rejects.toThrow('changed its mind');
    // Longer than a window: a wake-up would have been sent by now.
    await new Promise((r) => setTimeout(r, 300));
    expect(heard).toEqual([]);
  });
});
