import type { EngineDescriptor } from '../descriptor.ts';
import { EspeakSynthesizer } from './synthesizer.ts';

export const espeak: EngineDescriptor = {
  name: 'espeak',
  covers: 'the hundred-odd languages of eSpeak NG, installed by the operator (GPL-3.0)',
  settings: [],
  speak: { url: 'none', create: () => new EspeakSynthesizer() },
};
