import type { EngineDescriptor } from '../descriptor.ts';
import { ApertiumEngine } from './translate.ts';

export const apertium: EngineDescriptor = {
  name: 'apertium',
  covers: 'the pairs of the Apertium APY at its URL, or of the apertium-apy the service runs (without one); others through a pivot',
  settings: [],
  translate: { url: 'optional', create: (e, s) => new ApertiumEngine({ url: e.url ?? s.apyUrl! }) },
};
