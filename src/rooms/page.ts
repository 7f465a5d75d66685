import type { FastifyInstance } from 'fastify';
import { now, type Services } from '../services.ts';
import { linkSigningKey, verifyJoinToken } from './join-links.ts';
import { ID_PATTERN } from '../ids.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The room page a `url` or a join link opens. A join link carries a signed
 * token with the prefilled name and languages; a tampered or expired token is
 * refused (403), so the link alone admits its holder.
 */
export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { id: string }; Querystring: { t?: string | string[] } }>('/r/:id', { schema: { hide: true } }, async (req, reply) => {
    const { id } = req.params;
    const room = ID_PATTERN.test(id)
      ? (await s.pool.query(`SELECT id, title, status FROM rooms WHERE id = $1`, [id])).rows[0]
      : undefined;
    reply.type('text/html; charset=utf-8');
    if (!room) return reply.code(404).send('<!doctype html><title>Room not found</title><h1>Room not found</h1>');
    let joining = '';
    if (req.query.t !== undefined) {
      // `t` given twice (an array) is an altered link too.
      const claims = typeof req.query.t === 'string' ? verifyJoinToken(await linkSigningKey(s.pool), req.query.t, now(s).getTime()) : null;
      if (!claims || claims.room_id !== id) {
        return reply.code(403).send('<!doctype html><title>Invalid link</title><h1>This join link is invalid or has expired</h1>');
      }
      joining = `<p data-join="ok">Joining as <b>${esc(claims.name ?? 'guest')}</b>` +
        `${claims.speak ? `, speaking <b>${esc(claims.speak)}</b>` : ''}${claims.hear ? `, hearing <b>${esc(claims.hear)}</b>` : ''}.</p>`;
    }
    const status = room.status === 'ended' ? '<p data-status="ended">This room has ended.</p>'
      : room.status === 'canceled' ? '<p data-status="canceled">This meeting was canceled.</p>' : `<p data-status="${esc(room.status)}">Status: ${esc(room.status)}</p>`;
    return reply.send(`<!doctype html><meta charset="utf-8"><title>${esc(room.title || 'Room')}</title>` +
      `<h1>${esc(room.title || 'Room')}</h1>${status}${joining}`);
  });
}
