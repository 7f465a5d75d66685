import type { FastifyInstance } from 'fastify';
import { prepared } from '../../db/pool.ts';
import { languageCoverage } from '../../engines/coverage.ts';
import { ApiError, invalid } from '../../errors.ts';
import { Lang } from '../../http/schemas.ts';
import { ID_PATTERN } from '../../ids.ts';
import { now } from '../../services.ts';
import { linkSigningKey, verifyJoinToken } from '../join-links.ts';
import { hide, type RoomPageDeps } from './live.ts';

// GET /r/:id/audio-info?speak=&hear=[&t=TOKEN]: what the service can do for these languages in
// this room (engines/coverage.ts, the same answer as the join link's `coverage`): the microphone,
// read aloud, and the translation routes between the person and the room's languages. The join
// screen asks it for the languages preselected and for each the person picks; the audio controls
// for the languages joined with. `voices`: whether people hear each other live (TOLK_MEDIA_SERVER).
//
// The room's languages are used only where its page would open: a public room (unless
// TOLK_ANONYMOUS_JOIN=off) or a join link of the room (`t`). Anyone else learns only about the two
// languages they name, nothing of the room. `livemode` lets a test room's page say that the
// robots' lines are translated whatever the routes say.

type RoomRow = { id: string; visibility: string; langs: string[]; livemode: boolean };

export default function register(app: FastifyInstance, d: RoomPageDeps) {
  app.get<{ Params: { id: string }; Querystring: { speak?: string; hear?: string; t?: string | string[] } }>('/r/:id/audio-info', hide, async (req) => {
    const speak = Lang.safeParse(req.query.speak);
    const hear = Lang.safeParse(req.query.hear);
    if (!speak.success) throw invalid('speak', 'a language code, e.g. en');
    if (!hear.success) throw invalid('hear', 'a language code, e.g. es');
    if (!ID_PATTERN.test(req.params.id)) throw new ApiError('not_found', 'No such room');
    const { rows } = await d.pool.query<RoomRow>(prepared(`SELECT id, visibility, langs, livemode FROM rooms WHERE id = $1`, [req.params.id]));
    const room = rows[0];
    if (!room) throw new ApiError('not_found', 'No such room');
    let open = room.visibility === 'public' && d.config.anonymousJoin;
    if (!open && typeof req.query.t === 'string') {
      open = verifyJoinToken(await linkSigningKey(d.pool), req.query.t, now(d).getTime())?.room_id === room.id;
    }
    // Live voices (rooms/voices.ts): whether the service has a media server, and why not.
    const voices = d.media?.available ? { available: true, reason: null } : { available: false, reason: d.media?.unavailable ?? 'this service has no media server' };
    return { ...languageCoverage(d, speak.data, hear.data, open ? room.langs : []), livemode: room.livemode, voices };
  });
}
