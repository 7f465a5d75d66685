import type { EngineDescriptor } from '../descriptor.ts';
import { modelsOf } from '../models/store.ts';
import { BergamotEngine } from './translate.ts';

// `bergamot` in TOLK_TRANSLATE: the Firefox Translations models installed
// (`npx tolk models pull bergamot-en-es ...`); an unset TOLK_TRANSLATE begins
// with it once one is.

export const bergamot: EngineDescriptor = {
  name: 'bergamot',
  covers: 'the pairs of the Firefox Translations models installed (neural, embedded, offline: en↔es, pt, fr, it, de in the catalog); others through English',
  settings: ['TOLK_MODELS_DIR'],
  translate: {
    url: 'none',
    create: (_spec, s) => {
      const models = modelsOf(s.modelsDir, 'bergamot');
      if (models.length === 0) throw new Error(`bergamot needs a model: \`npx tolk models pull bergamot-en-es bergamot-es-en\` (\`npx tolk models list\` shows the others), into ${s.modelsDir}`);
      return new BergamotEngine(models);
    },
  },
};
