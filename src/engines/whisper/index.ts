import type { EngineDescriptor } from '../descriptor.ts';
import { modelsOf, type InstalledModel } from '../models/store.ts';
import { WhisperRecognizer } from './recognizer.ts';

// `whisper` in TOLK_RECOGNIZE: the installed Whisper model (`npx tolk models
// pull whisper-…`), TOLK_WHISPER_MODEL naming which when there are several;
// else the multilingual before the English-only, the largest, its int8 form
// before the full one (as good, and faster on a CPU).

const SIZES = ['tiny', 'base', 'small', 'medium'];

/** The installed Whisper model the engine reads with, or an Error saying what to pull. */
export function whisperModel(dir: string, named?: string): InstalledModel {
  const all = modelsOf(dir, 'whisper');
  if (named) {
    const m = all.find((x) => x.name === named);
    if (!m) throw new Error(`TOLK_WHISPER_MODEL names ${named}, which is not installed in ${dir}: \`npx tolk models pull ${named}\``);
    return m;
  }
  if (all.length === 0) throw new Error(`whisper needs a model: \`npx tolk models pull whisper-base-int8\` (\`npx tolk models list\` shows the others), into ${dir}`);
  const rank = (m: InstalledModel) => [m.languages.length > 1 ? 1 : 0, SIZES.indexOf(String(m.settings?.size ?? '')), m.settings?.int8 ? 1 : 0];
  return [...all].sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return y[i]! - x[i]!;
    return a.name.localeCompare(b.name);
  })[0]!;
}

export const whisper: EngineDescriptor = {
  name: 'whisper',
  covers: '99 languages (Whisper: tiny to small, multilingual or English-only), embedded, offline: its model pulled into TOLK_MODELS_DIR (MIT)',
  settings: ['TOLK_MODELS_DIR', 'TOLK_WHISPER_MODEL'],
  recognize: { url: 'none', create: (_spec, s) => new WhisperRecognizer(whisperModel(s.modelsDir, s.speechKeys.whisperModel)) },
};
