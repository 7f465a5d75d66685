import type { EngineDescriptor } from '../descriptor.ts';
import type { TranslationEngine } from '../translate/engine.ts';
import { simulatedTranslator } from './translator.ts';

// Test mode's translation engine (operator.md, Test-mode simulator): the
// robots' phrasebook lines and the announcement, in their fixed translations,
// first in test mode's chain (translate/index.ts chainFor). It has them at
// hand (instant), the same on every process: it covers no pair, and is
// never sent a request, so any other text goes to the operator's engines.

export const simulatedEngine: TranslationEngine = {
  name: 'sim',
  url: '',
  requests: 0,
  async load() {},
  pairs: () => [],
  covers: () => false,
  translate: async () => ({}),
  instant: (text, from, to) => simulatedTranslator.known(text, from, to),
};

export const sim: EngineDescriptor = {
  name: 'sim',
  covers: 'test mode only: the robots\' phrasebook lines and the announcement, in the phrasebook\'s languages',
  settings: [],
  testModeOnly: true,
  translate: { url: 'none', create: () => simulatedEngine },
};
