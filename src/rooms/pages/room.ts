import type { FastifyInstance } from 'fastify';
import { prepared } from '../../db/pool.ts';
import { untranslatedLanguages } from '../../engines/coverage.ts';
import { PAGE_LANGUAGES } from '../../http/pages.ts';
import { ID_PATTERN } from '../../ids.ts';
import { now, type Services } from '../../services.ts';
import { linkSigningKey, verifyJoinToken } from '../join-links.ts';
import { hide, page } from './live.ts';
import { roomPageHtml, roomProblemHtml, type RoomView } from './view.ts';

// GET /r/:id[?t=TOKEN]: the room page, for a room in any state (view.ts). A private room opens only
// with a join link of its own (or, over, says so without its title); TOLK_ANONYMOUS_JOIN=off asks
// the same of public rooms.

type RoomRow = RoomView['room'];

/** The menus' languages nothing would be translated in for this room (engines/coverage.ts), for a room that can be joined. */
function menuMarks(s: Services, room: RoomRow, prefill: RoomView['prefill']): RoomView['untranslated'] {
  if (room.status !== 'live') return undefined;
  const codes = [...new Set([...PAGE_LANGUAGES.map(([code]) => code), ...[prefill.speak, prefill.hear].filter((x): x is string => !!x)])];
  return untranslatedLanguages(s, codes, room.langs);
}

async function roomOf(s: Services, id: string): Promise<RoomRow | null> {
  if (!ID_PATTERN.test(id)) return null;
  const { rows } = await s.pool.query<RoomRow>(prepared(`SELECT id, title, status, visibility, starts_at, langs FROM rooms WHERE id = $1`, [id]));
  return rows[0] ?? null;
}

export default function register(app: FastifyInstance, s: Services) {
  app.get<{ Params: { id: string }; Querystring: { t?: string | string[] } }>('/r/:id', hide, async (req, reply) => {
    const accept = req.headers['accept-language'];
    const room = await roomOf(s, req.params.id);
    if (!room) return page(reply, 404, roomProblemHtml('not_found', accept));
    let token: string | null = null;
    let prefill: RoomView['prefill'] = {};
    if (req.query.t !== undefined) {
      // `t` given twice (an array) is an altered link too.
      const claims = typeof req.query.t === 'string' ? verifyJoinToken(await linkSigningKey(s.pool), req.query.t, now(s).getTime()) : null;
      if (!claims || claims.room_id !== room.id) return page(reply, 403, roomProblemHtml('bad_link', accept));
      token = req.query.t as string;
      prefill = { ...(claims.name ? { name: claims.name } : {}), ...(claims.speak ? { speak: claims.speak } : {}), ...(claims.hear ? { hear: claims.hear } : {}) };
    } else if (room.visibility === 'private' || !s.config.anonymousJoin) {
      // TOLK_ANONYMOUS_JOIN=off: a public room's url alone lets nobody in either.
      if (room.status === 'live' || room.status === 'scheduled') return page(reply, 403, roomProblemHtml('private', accept));
      // Over, the page says so, but not what it was: a private room's title is
      // for those with its link (a booked meeting's names the guest).
      return page(reply, 200, roomPageHtml({ room: { ...room, title: '' }, token, prefill, accept }));
    }
    return page(reply, 200, roomPageHtml({ room, token, prefill, accept, untranslated: menuMarks(s, room, prefill) }));
  });
}
