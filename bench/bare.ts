import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import pg from 'pg';
import { forkServer, serveWhenAsked, type Forked } from './forked.ts';

// The baseline of npm run bench (bench/run.ts): plain Fastify and pg in a
// process of its own (this file, forked), on a pool of 10 and on tables of
// its own shaped like the platform's (bare_rooms like rooms, bare_events like
// outbox: same columns, checks and indexes), with no hooks, no zod, no auth,
// no rate limit, no idempotency: GET is one primary-key SELECT of a row like a
// room; POST is one transaction inserting such a row and its event row. What
// a Fastify + pg service does at the least for the same answers, on the same
// machine, database and load generator as the platform.

const COLUMNS = 'id, title, visibility, status, created_at, expires_at, starts_at, duration_min, invitees, langs, livemode';

export type Bare = Forked;

/** Forks the bare server on databaseUrl; resolves once it listens. */
export function startBare(databaseUrl: string): Promise<Bare> {
  return forkServer(fileURLToPath(import.meta.url), 'bare server', databaseUrl);
}

async function serve(databaseUrl: string): Promise<string> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  await pool.query(`
    CREATE TABLE IF NOT EXISTS bare_rooms (LIKE rooms INCLUDING ALL);
    CREATE TABLE IF NOT EXISTS bare_events (LIKE outbox INCLUDING ALL);
    CREATE SEQUENCE IF NOT EXISTS bare_events_id_seq OWNED BY bare_events.id;
    ALTER TABLE bare_events ALTER id SET DEFAULT nextval('bare_events_id_seq')`);
  const id = () => randomBytes(16).toString('base64url').slice(0, 22);
  const app = Fastify({ logger: false });

  app.get<{ Params: { id: string } }>('/bare/rooms/:id', async (req, reply) => {
    const { rows } = await pool.query(`SELECT ${COLUMNS} FROM bare_rooms WHERE id = $1`, [req.params.id]);
    if (!rows[0]) return reply.code(404).send({ error: 'not found' });
    return rows[0];
  });

  app.post<{ Body: { title?: string; visibility?: string; langs?: string[] } }>('/bare/rooms', async (req, reply) => {
    const body = req.body ?? {};
    const now = new Date();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `INSERT INTO bare_rooms (id, org_id, livemode, credential_id, kind, title, visibility, status, langs, invitees, created_at, expires_at)
         VALUES ($1, 'org_bare', true, 'key_bare', 'instant', $2, $3, 'live', $4, '{}', $5, $6) RETURNING ${COLUMNS}`,
        [`room_${id()}`, body.title ?? '', body.visibility ?? 'private', body.langs ?? [], now, new Date(now.getTime() + 86_400_000)],
      );
      await client.query(
        `INSERT INTO bare_events (event_id, org_id, livemode, type, object_id, data) VALUES ($1, 'org_bare', true, 'room.started', $2, $3)`,
        [`evt_${id()}`, rows[0].id, JSON.stringify({ object: rows[0] })],
      );
      await client.query('COMMIT');
      reply.code(201);
      return rows[0];
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  });

  process.once('SIGTERM', () => {
    void app.close().then(() => pool.end()).finally(() => process.exit(0));
  });
  return app.listen({ port: 0, host: '127.0.0.1' });
}

serveWhenAsked(serve);
