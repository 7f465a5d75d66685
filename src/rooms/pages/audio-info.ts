import type { FastifyInstance } from 'fastify';
import { invalid } from '../../errors.ts';
import { Lang } from '../../http/schemas.ts';
import { hide, type RoomPageDeps } from './live.ts';

// GET /r/:id/audio-info?speak=&hear=: whether the microphone and "read aloud" can work here for these languages.
export default function register(app: FastifyInstance, d: RoomPageDeps) {
  app.get<{ Params: { id: string }; Querystring: { speak?: string; hear?: string } }>('/r/:id/audio-info', hide, async (req) => {
    const speak = Lang.safeParse(req.query.speak);
    const hear = Lang.safeParse(req.query.hear);
    if (!speak.success) throw invalid('speak', 'a language code, e.g. en');
    if (!hear.success) throw invalid('hear', 'a language code, e.g. es');
    return {
      microphone: { available: d.recognizer?.hears(speak.data) ?? false, lang: speak.data },
      read_aloud: { available: d.rooms.speech.speaks(hear.data), lang: hear.data },
    };
  });
}
