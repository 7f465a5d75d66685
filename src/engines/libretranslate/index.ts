import type { EngineDescriptor } from '../descriptor.ts';
import { LibreTranslateEngine } from './translate.ts';

export const libretranslate: EngineDescriptor = {
  name: 'libretranslate',
  covers: 'the languages of the LibreTranslate server at its URL',
  settings: ['LIBRETRANSLATE_API_KEY'],
  translate: {
    url: 'required',
    create: (e, s) => new LibreTranslateEngine({ url: e.url!, ...(s.engineKeys.libretranslate ? { apiKey: s.engineKeys.libretranslate } : {}) }),
  },
};
