import type { EngineDescriptor } from '../descriptor.ts';
import { OpenAIRecognizer } from './stt.ts';
import { OpenAIEngine } from './translate.ts';
import { OpenAISynthesizer } from './tts.ts';

// Any OpenAI-compatible server at its URL (client.ts), for each kind of work.
export const openai: EngineDescriptor = {
  name: 'openai',
  covers: 'any language (a model has no list): chat completions translate, /v1/audio/transcriptions hears, /v1/audio/speech speaks',
  settings: ['OPENAI_API_KEY', 'TOLK_OPENAI_TRANSLATE_MODEL', 'TOLK_OPENAI_STT_MODEL', 'TOLK_OPENAI_TTS_MODEL'],
  translate: {
    url: 'required',
    create: (e, s) => new OpenAIEngine({ url: e.url!, model: s.engineKeys.openaiTranslateModel, ...(s.engineKeys.openai ? { apiKey: s.engineKeys.openai } : {}) }),
  },
  recognize: {
    url: 'required',
    create: (e, s) => new OpenAIRecognizer({ url: e.url!, model: s.speechKeys.openaiSttModel, ...(s.speechKeys.openai ? { apiKey: s.speechKeys.openai } : {}) }),
  },
  speak: {
    url: 'required',
    create: (e, s) => new OpenAISynthesizer({ url: e.url!, model: s.speechKeys.openaiTtsModel, ...(s.speechKeys.openai ? { apiKey: s.speechKeys.openai } : {}) }),
  },
};
