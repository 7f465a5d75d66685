import Fastify, { type FastifyInstance } from 'fastify';
import type { Pool } from '../src/db/pool.ts';
import { newId } from '../src/ids.ts';

// The baseline: plain Fastify on the platform's own pool, no hooks, no zod, no
// auth, no rate limit, no idempotency, doing only the database work itself:
// one primary-key SELECT for GET, one transaction inserting the room and its
// event row for POST.

const COLUMNS = 'id, title, visibility, status, created_at, expires_at, starts_at, duration_min, invitees, langs, livemode';

export async function startBare(pool: Pool, owner: { orgId: string; credentialId: string; livemode: boolean }): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });

  app.get<{ Params: { id: string } }>('/bare/rooms/:id', async (req, reply) => {
    const { rows } = await pool.query(`SELECT ${COLUMNS} FROM rooms WHERE id = $1`, [req.params.id]);
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
        `INSERT INTO rooms (id, org_id, livemode, credential_id, kind, title, visibility, status, langs, invitees, created_at, expires_at)
         VALUES ($1, $2, $3, $4, 'instant', $5, $6, 'live', $7, '{}', $8, $9) RETURNING ${COLUMNS}`,
        [newId('room'), owner.orgId, owner.livemode, owner.credentialId, body.title ?? '', body.visibility ?? 'private', body.langs ?? [], now, new Date(now.getTime() + 86_400_000)],
      );
      // The event of the create (api.md: room.started), as the platform writes it in the same transaction.
      await client.query(
        `INSERT INTO outbox (event_id, org_id, livemode, type, object_id, data) VALUES ($1, $2, $3, 'room.started', $4, $5)`,
        [newId('evt'), owner.orgId, owner.livemode, rows[0].id, JSON.stringify({ object: rows[0] })],
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

  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url };
}
