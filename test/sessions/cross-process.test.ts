import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createPool } from '../../src/db/pool.ts';
import { createTestDatabase, startTestApp, type TestApp, type TestDb } from '../helpers/app.ts';
import { startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { until } from '../helpers/wait.ts';
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
let orgId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool(db.url, 2);
  const org = await createOrg(pool, { name: 'Two processes' });
  orgId = org.id;
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

async function call(base: string, method: string, path: string, body?: unknown, k = key) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json', ...(method === 'POST' ? idem() : {}) },
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
    // Said once the listener waits on this process (its request holds a place on the session bus).
    const waiting = t.app.sessionBus.size;
    void until('the listener waiting', async () => t.app.sessionBus.size > waiting, 5_000).then(() => {
      saidAt = Date.now();
      void call(child.base, 'POST', `/v1/sessions/${speaker.id}/say`, { text });
    });
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
    const { roomId, listeners: [listener], speakers } = await setup(t.url, 1, 4);
    const texts: string[] = [];
    const seen: any[] = [];
    let writing = true;
    let cursor = 0;
    const reader = (async () => {
      while (writing || cursor < (await roomHead(roomId))) {
        // Alternate processes: both read the same numbering.
        const base = seen.length % 2 ? child.base : t.url;
        const r = await call(base, 'GET', `/v1/sessions/${listener.id}/events?cursor=${cursor}&wait=1`);
        expect(r.status).toBe(200);
        seen.push(...r.body.events);
        cursor = r.body.cursor;
      }
    })();
    try {
      await Promise.all(
        speakers.flatMap((s, i) =>
          Array.from({ length: 10 }, (_, j) => {
            const text = `Speaker ${i} line ${j}`;
            texts.push(text);
            return call(i % 2 ? child.base : t.url, 'POST', `/v1/sessions/${s.id}/say`, { text }).then((r) => expect(r.status).toBe(202));
          }),
        ),
      );
    } finally {
      // The reader stops once it has read what was written (and at once if the writers failed).
      writing = false;
    }
    await reader;
    // Exactly the room's log after the listener joined, up to where the reader stopped (the
    // robots go on talking after it), in order, each once (the listener never speaks, so it hears
    // every phrase of its window; the progress of the speakers' says is theirs alone).
    const ids = seen.map((e) => e.id);
    const { rows } = await pool.query(
      `SELECT g.seq::int AS seq FROM room_segments g JOIN agent_sessions s ON s.room_id = g.room_id
        WHERE s.id = $1 AND g.seq > s.from_seq AND g.seq <= $2 AND g.kind NOT LIKE 'say.%' ORDER BY g.seq`,
      [listener.id, cursor],
    );
    expect(ids).toEqual(rows.map((r) => r.seq));
    const heard = seen.map((e) => e.untrusted_content.text).filter((x: string) => x.startsWith('Speaker '));
    expect(heard.sort()).toEqual([...texts].sort());

    // Its transcript is complete: every phrase of its window, in the room's
    // order, beginning with everything it read.
    const left = await call(child.base, 'POST', `/v1/sessions/${listener.id}/leave`);
    expect(left.status).toBe(200);
    const list = await call(t.url, 'GET', `/v1/transcripts?room_id=${roomId}`);
    const summary = list.body.data.find((x: any) => x.segments > 0 && x.room_id === roomId);
    const tr = await call(t.url, 'GET', `/v1/transcripts/${summary.id}`);
    const window = await pool.query(
      `SELECT g.text FROM room_segments g JOIN agent_sessions s ON s.room_id = g.room_id
        WHERE s.id = $1 AND g.seq > s.from_seq AND g.seq <= s.to_seq AND g.kind NOT LIKE 'say.%' ORDER BY g.seq`,
      [listener.id],
    );
    const said = tr.body.segments.map((x: any) => x.untrusted_content.text);
    expect(said).toEqual(window.rows.map((r) => r.text));
    expect(said.slice(0, seen.length)).toEqual(seen.map((e) => e.untrusted_content.text));
  });

  it('listening is billed once per phrase per session, however many reads race on two processes', async () => {
    // The listener's own key, so its ledger holds its listening only.
    const own = await createKey(pool, { org: orgId, mode: 'test', rpm: 100_000 });
    const { roomId, speakers: [speaker] } = await setup(t.url, 0, 1);
    const joined = await call(t.url, 'POST', `/v1/rooms/${roomId}/agent-sessions`, { name: 'Billed', speak_lang: 'en', hear_lang: 'de', announce: false }, own.secret);
    const listener = joined.body;
    for (let i = 0; i < 5; i++) {
      expect((await call(t.url, 'POST', `/v1/sessions/${speaker.id}/say`, { text: `Phrase number ${i} for the bill.` })).status).toBe(202);
    }
    // 24 reads of the same events at once, half on each process, from the start and from the third phrase.
    const from = Number((await pool.query(`SELECT from_seq FROM agent_sessions WHERE id = $1`, [listener.id])).rows[0].from_seq);
    const reads = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        call(i % 2 ? child.base : t.url, 'GET', `/v1/sessions/${listener.id}/events?cursor=${i % 3 === 0 ? from + 2 : 0}`, undefined, own.secret),
      ),
    );
    for (const r of reads) expect(r.status).toBe(200);
    const delivered = Math.max(...reads.map((r) => r.body.cursor));
    const { rows: [row] } = await pool.query(
      `SELECT s.metered_seq::int AS metered, s.billed_seconds::float AS billed,
              (SELECT sum(g.listen_seconds)::float FROM room_segments g WHERE g.room_id = s.room_id AND g.seq > s.from_seq AND g.seq <= $2) AS owed,
              (SELECT sum(seconds)::float FROM usage_ledger WHERE credential_id = $3 AND kind = 'listen') AS ledger
         FROM agent_sessions s WHERE s.id = $1`,
      [listener.id, delivered, own.id],
    );
    expect(row.metered).toBe(delivered);
    expect(row.owed).toBeGreaterThan(0);
    expect(row.billed).toBeCloseTo(row.owed, 5);
    expect(row.ledger).toBeCloseTo(row.owed, 5);
  });
});

/** The room's last number. */
async function roomHead(roomId: string): Promise<number> {
  const { rows } = await pool.query(`SELECT seq FROM room_logs WHERE room_id = $1`, [roomId]);
  return Number(rows[0]?.seq ?? 0);
}
