import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDb } from '../helpers/app.ts';
import { freePort, startServerProcess, until, type ServerProcess } from '../helpers/process.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';
import { Tolk, type SessionEvent } from '../../sdk/src/index.ts';

// `for await (const e of tolk.sessions.listen(id))` across a server restart:
// the service is `node src/server.ts` as an operator runs it, killed (SIGKILL)
// while the client's long-poll is open, and started again on the same port.
// The loop goes on by itself from where it was: nothing read twice, nothing
// missed, and it ends when the session does.

vi.setConfig({ testTimeout: 120_000 });

let db: TestDb;
let pool: Pool;
let server: ServerProcess | undefined;
let port: number;
let secret: string;

const start = () => startServerProcess(db.url, { TOLK_SIM_SPEED: '20' }, port);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  const org = await createOrg(pool, { name: 'Listening' });
  secret = (await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 })).secret;
  port = await freePort();
  server = await start();
});
afterAll(async () => {
  await server?.kill();
  await pool?.end();
  await db?.drop();
});

/** Every event from cursor 0 up to `upto`, read with plain requests. */
async function readPlain(sessionId: string, upto: number): Promise<number[]> {
  const ids: number[] = [];
  for (let cursor = 0; cursor < upto;) {
    const res = await fetch(`${server!.base}/v1/sessions/${sessionId}/events?cursor=${cursor}`, { headers: { authorization: `Bearer ${secret}` } });
    const page = (await res.json()) as { events: SessionEvent[]; cursor: number };
    ids.push(...page.events.map((e) => e.id));
    if (page.cursor === cursor) break;
    cursor = page.cursor;
  }
  return ids.filter((id) => id <= upto);
}

describe('listening', () => {
  it('goes on across a server killed and started again, from its cursor, and ends with the session', async () => {
    const tolk = new Tolk(secret, { baseUrl: server!.base });
    const room = await tolk.rooms.create({ title: 'Restart', langs: ['en', 'es'] });
    const session = await tolk.sessions.join(room.id, { speak_lang: 'en', hear_lang: 'en' });

    const heard: SessionEvent[] = [];
    const listener = tolk.sessions.listen(session.id);
    const done = (async () => {
      for await (const e of listener) heard.push(e);
    })();

    // The robots talk; then the server dies under the open long-poll.
    await until('a few events', async () => heard.filter((e) => e.speaker?.startsWith('Robot')).length >= 3, { timeoutMs: 30_000 });
    await server!.kill();
    const before = heard.length;
    const lastBefore = heard.at(-1)!.id;
    server = await start();

    // The loop reconnects by itself and reads on: the robots, and this session's say.
    await tolk.sessions.say(session.id, { text: 'Back again.' });
    await until('events after the restart', async () => heard.some((e) => e.id > lastBefore && e.speaker?.startsWith('Robot')), { timeoutMs: 30_000 });
    expect(heard.length).toBeGreaterThan(before);

    // What it heard is what a plain reader reads from cursor 0: nothing twice, nothing missed.
    const upto = heard.at(-1)!.id;
    const ids = heard.map((e) => e.id).filter((id) => id <= upto);
    expect(ids).toEqual(await readPlain(session.id, upto));

    await tolk.sessions.leave(session.id);
    await done;
    expect(listener.status).toBe('ended');
    expect(new Set(heard.map((e) => e.id)).size).toBe(heard.length);
  });

  it('throws what cannot pass: an unknown session is 404 at once', async () => {
    const tolk = new Tolk(secret, { baseUrl: server!.base });
    const it = tolk.sessions.listen('ses_doesNotExist1')[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it('a wrong key is thrown, not retried', async () => {
    let tries = 0;
    const tolk = new Tolk('tolk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', { baseUrl: server!.base, fetch: (i, n) => { tries++; return fetch(i, n); } });
    const it = tolk.sessions.listen('ses_x')[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
    expect(tries).toBe(1);
  });
});
