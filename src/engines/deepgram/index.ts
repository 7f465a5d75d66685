import type { EngineDescriptor } from '../descriptor.ts';
import { DeepgramRecognizer } from './recognizer.ts';

export const deepgram: EngineDescriptor = {
  name: 'deepgram',
  covers: 'the languages of Deepgram\'s models',
  settings: ['DEEPGRAM_API_KEY'],
  recognize: {
    url: 'optional',
    create: (e, s) => {
      if (!s.speechKeys.deepgram) throw new Error('TOLK_RECOGNIZE names deepgram: set DEEPGRAM_API_KEY to its key');
      return new DeepgramRecognizer({ apiKey: s.speechKeys.deepgram, ...(e.url ? { url: e.url } : {}) });
    },
  },
};
