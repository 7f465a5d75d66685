import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';
import { forkServer, serveWhenAsked } from './forked.ts';

// The floor of the long-poll fan-out (bench/longpoll.ts): a bare Fastify + pg
// server in a process of its own (this file, forked; pool of 10) that parks
// every GET /bare/poll, and on POST /bare/wake writes one row (bench/bare.ts's
// bare_events, shaped like the outbox), answers the wake, then answers every
// parked poll with one event of the same shape and size as a phrase's. What a
// Fastify + pg service does at the least to fan one written phrase out to the
// waiting polls, on the same machine, database and client as the platform.

export type Floor = { url: string; pid: number; parked: () => Promise<number>; close: () => Promise<void> };

export async function startFloor(databaseUrl: string): Promise<Floor> {
  const f = await forkServer(fileURLToPath(import.meta.url), 'long-poll floor', databaseUrl);
  const parked = () => fetch(`${f.url}/bare/parked`).then((r) => r.json() as Promise<{ n: number }>).then((b) => b.n);
  return { ...f, parked };
}

async function serve(databaseUrl: string): Promise<string> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bare_events (LIKE outbox INCLUDING ALL);
    CREATE SEQUENCE IF NOT EXISTS bare_events_id_seq OWNED BY bare_events.id;
    ALTER TABLE bare_events ALTER id SET DEFAULT nextval('bare_events_id_seq')`);
  const app = Fastify({ logger: false });
  let held: FastifyReply[] = [];
  let n = 0;

  app.get('/bare/poll', (_req, reply) => { held.push(reply); });
  app.get('/bare/parked', async () => ({ n: held.length }));
  app.post('/bare/wake', async (_req, reply) => {
    const event = {
      id: 2, type: 'segment.final', speaker: 'Speaker', src_lang: 'en',
      untrusted_content: { text: 'Good morning, everyone.', text_in_hear_lang: 'Buenos días a todos.' },
      meta: { seq: 2, participant_id: 'ses_0123456789abcdefghijkl', lang: 'es' }, created_at: new Date().toISOString(),
    };
    await pool.query(
      `INSERT INTO bare_events (event_id, org_id, livemode, type, object_id, data) VALUES ($1, 'org_bare', true, 'segment.final', 'room_bare', $2)`,
      [`evt_floor_${++n}`, JSON.stringify(event)],
    );
    const waiting = held;
    held = [];
    // After the wake's answer, as the platform's listeners are answered after the say's.
    reply.raw.once('finish', () => { for (const r of waiting) void r.send({ events: [event], cursor: 2, status: 'active' }); });
    reply.code(202);
    return { woken: waiting.length };
  });

  process.once('SIGTERM', () => {
    void app.close().then(() => pool.end()).finally(() => process.exit(0));
  });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

serveWhenAsked(serve);
