import type { EngineDescriptor } from '../descriptor.ts';
import { PicoSynthesizer } from './synthesizer.ts';

export const pico: EngineDescriptor = {
  name: 'pico',
  covers: 'English (US and GB), German, Spanish, French and Italian, embedded (Apache-2.0)',
  settings: [],
  speak: { url: 'none', create: () => new PicoSynthesizer() },
};
