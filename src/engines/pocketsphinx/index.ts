import type { EngineDescriptor } from '../descriptor.ts';
import { PocketsphinxRecognizer } from './recognizer.ts';

export const pocketsphinx: EngineDescriptor = {
  name: 'pocketsphinx',
  covers: 'US English, embedded (Debian\'s pocketsphinx and its model)',
  settings: [],
  // A URL after its name was always taken, and means nothing: it runs here.
  recognize: { url: 'optional', create: () => new PocketsphinxRecognizer() },
};
