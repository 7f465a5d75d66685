import type { EngineDescriptor } from '../descriptor.ts';
import { modelsOf } from '../models/store.ts';
import { preparePiperVoice } from './prepare.ts';
import { PiperSynthesizer } from './synthesizer.ts';

// `piper` in TOLK_SPEECH_ENGINES: the Piper voices installed (`npx tolk
// models pull piper-…`); an unset TOLK_SPEECH_ENGINES begins with it once one is.

export const piper: EngineDescriptor = {
  name: 'piper',
  covers: 'neural voices, embedded and offline, one language each (Piper: en, es, pt, fr, de, it in the catalog), pulled into TOLK_MODELS_DIR',
  settings: ['TOLK_MODELS_DIR'],
  speak: {
    url: 'none',
    create: (_spec, s) => {
      const voices = modelsOf(s.modelsDir, 'piper');
      if (voices.length === 0) throw new Error(`piper needs a voice: \`npx tolk models pull piper-en_US-ljspeech-medium\` (\`npx tolk models list\` shows the others), into ${s.modelsDir}`);
      return new PiperSynthesizer(voices);
    },
  },
  prepareModel: (_m, folder) => preparePiperVoice(folder),
};
