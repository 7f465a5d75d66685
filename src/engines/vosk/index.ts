import type { EngineDescriptor } from '../descriptor.ts';
import { VoskRecognizer } from './recognizer.ts';

export const vosk: EngineDescriptor = {
  name: 'vosk',
  covers: 'the languages of TOLK_VOSK_LANGS (a vosk-server runs one model and cannot say which)',
  settings: ['TOLK_VOSK_LANGS'],
  recognize: { url: 'required', create: (e, s) => new VoskRecognizer({ url: e.url!, langs: s.speechKeys.voskLangs }) },
};
