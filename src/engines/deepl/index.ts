import type { EngineDescriptor } from '../descriptor.ts';
import { DeepLEngine } from './translate.ts';

export const deepl: EngineDescriptor = {
  name: 'deepl',
  covers: 'the languages DeepL lists (/v2/languages)',
  settings: ['DEEPL_API_KEY'],
  translate: {
    url: 'optional',
    create: (e, s) => {
      if (!s.engineKeys.deepl) throw new Error('TOLK_TRANSLATE names deepl: set DEEPL_API_KEY to its key');
      return new DeepLEngine({ apiKey: s.engineKeys.deepl, ...(e.url ? { url: e.url } : {}) });
    },
  },
};
