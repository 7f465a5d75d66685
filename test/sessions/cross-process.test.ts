import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { createKey, createOrg } from '../../src/cli/admin.ts';

// Two server processes on one database: the listener long-polls one, the
// speaker talks to the other, and the event wakes the listener at once
// (LISTEN/NOTIFY), not at the end of its wait. Then many writers at once: the
// listening cursor never skips or repeats an event.

vi.setConfig({ testTimeout: 90_000, hookTimeout: 60_000 });

let db: TestDb;
let pool: pg.Pool;
let child: ServerProcess;
let t: TestApp;
let key: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const org = await createOrg(pool, { name: 'Two processes' });
  key = (await createKey(pool, { org: org.id, mode: 'test', rpm: 100_000 })).secret;
  // The child runs the workers (robots); this process only serves requests.
  child = await startServerProcess(db.url, { TOLK_SIM_SPEED: '1' });
  t = await startTestApp({ db, workers: false });
});
afterAll(async () => {
  await child?.kill();
  await t?.close();
  await pool?.end();
  await db?.drop();
});

const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

async function call(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'POST' ? idem() : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function setup(base: string, listeners = 1, speakers = 1) {
  const room = await call(base, 'POST', '/v1/rooms', { langs: ['en', 'es'] });
  const join = (name: string, hear: string) =>
    call(base, 'POST', `/v1/rooms/${room.body.id}/agent-sessions`, { name, speak_lang: 'en', hear_lang: hear, announce: false });
  const ls = [];
  for (let i = 0; i < listeners; i++) ls.push((await join(`Listener ${i}`, 'es')).body);
  const ss = [];
  for (let i = 0; i < speakers; i++) ss.push((await join(`Speaker ${i}`, 'en')).body);
  return { roomId: room.body.id as string, listeners: ls, speakers: ss };
}

describe('listening across processes', () => {
  it('a listener waiting on one process wakes as soon as an agent on the other process speaks', async () => {
    const { listeners: [listener], speakers: [speaker] } = await setup(child.base);
    // Drain what is there, then wait (up to 25 s) on this process.
    let cursor = (await call(t.url, 'GET', `/v1/sessions/${listener.id}/events?cursor=0`)).body.cursor;
    const text = 'Heard across processes.';
    let saidAt = 0;
    setTimeout(() => {
      saidAt = Date.now();
      void call(child.base, 'POST', `/v1/sessions/${speaker.id}/say`, { text });
    }, 300);
    for (;;) {
      const r = await call(t.url, 'GET', `/v1/sessions/${listener.id}/events?cursor=${cursor}&wait=25`);
      expect(r.status).toBe(200);
      cursor = r.body.cursor;
      const heard = r.body.events.find((e: any) => e.untrusted_content.text === text);
      if (heard) {
        expect(heard.speaker).toBe('Speaker 0');
        // Woken by the notification, long before the 25-second wait ran out.
        expect(Date.now() - saidAt).toBeLessThan(10_000);
        break;
      }
      // A robot phrase (the child's simulator) can come first; it too ends the wait.
      expect(r.body.events.length).toBeGreaterThan(0);
    }
  });

  it('the cursor never skips or repeats an event while several writers on two processes speak at once', async () => {
    const { listeners: [listener], speakers } = await setup(t.url, 1, 4);
    const texts: string[] = [];
    const seen: any[] = [];
    let writing = true;
    const reader = (async () => {
      let cursor = 0;
      while (writing || cursor < (await lastSeq(listener.id))) {
        // Alternate processes: both read the same numbering.
        const base = seen.length % 2 ? child.base : t.url;
        const r = await call(base, 'GET', `/v1/sessions/${listener.id}/events?cursor=${cursor}&wait=1`);
        expect(r.status).toBe(200);
        seen.push(...r.body.events);
        cursor = r.body.cursor;
      }
    })();
    await Promise.all(
      speakers.flatMap((s, i) =>
        Array.from({ length: 10 }, (_, j) => {
          const text = `Speaker ${i} line ${j}`;
          texts.push(text);
          return call(i % 2 ? child.base : t.url, 'POST', `/v1/sessions/${s.id}/say`, { text }).then((r) => expect(r.status).toBe(202));
        }),
      ),
    );
    writing = false;
    await reader;
    const ids = seen.map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    expect(ids.length).toBe(await lastSeq(listener.id));
    const heard = seen.map((e) => e.untrusted_content.text).filter((x: string) => x.startsWith('Speaker '));
    expect(heard.sort()).toEqual([...texts].sort());
  });
});

async function lastSeq(sessionId: string): Promise<number> {
  const { rows } = await pool.query(`SELECT last_seq FROM agent_sessions WHERE id = $1`, [sessionId]);
  return Number(rows[0].last_seq);
}
