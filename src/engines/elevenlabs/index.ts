import type { EngineDescriptor } from '../descriptor.ts';
import { ElevenLabsSynthesizer } from './synthesizer.ts';

export const elevenlabs: EngineDescriptor = {
  name: 'elevenlabs',
  covers: 'the languages of ElevenLabs\' multilingual models, and the cloned voices (voices.ts)',
  settings: ['ELEVENLABS_API_KEY'],
  speak: {
    url: 'optional',
    create: (e, s) => {
      if (!s.speechKeys.elevenlabs) throw new Error('TOLK_SPEECH_ENGINES names elevenlabs: set ELEVENLABS_API_KEY to its key');
      return new ElevenLabsSynthesizer({ apiKey: s.speechKeys.elevenlabs, ...(e.url ? { url: e.url } : {}) });
    },
  },
};
