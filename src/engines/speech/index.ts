import type { Config } from '../../config.ts';
import { DeepgramRecognizer } from './deepgram.ts';
import { ElevenLabsSynthesizer } from './elevenlabs.ts';
import { WithClonedVoices } from './elevenlabs-voices.ts';
import { EspeakSynthesizer } from './espeak.ts';
import { OpenAIRecognizer } from './openai-stt.ts';
import { OpenAISynthesizer } from './openai-tts.ts';
import { PicoSynthesizer } from './pico.ts';
import { PocketsphinxRecognizer } from './pocketsphinx.ts';
import type { SpeechRecognizer } from './recognizer.ts';
import { RecognizerChain } from './recognizers.ts';
import { CachedSynthesizer, FirstThatSpeaks, type SpeechSynthesizer } from './synthesizer.ts';
import { VoskRecognizer } from './vosk.ts';

// The speech engines of the configuration (operator.md, Engines): the
// recognizers of TOLK_RECOGNIZE as one chain (recognizers.ts), and the
// synthesizers of TOLK_SPEECH_ENGINES as one (a language by the first that
// speaks it), cached. An engine that cannot be made (a key missing, a
// package not installed) stops the start with a sentence saying so.

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

export type SpeechConfig = Pick<Config, 'recognize' | 'recognizeTimeoutMs' | 'speechEngines' | 'speechKeys'>;

export function makeRecognizer(e: Config['recognize'][number], c: SpeechConfig): SpeechRecognizer {
  const k = c.speechKeys;
  switch (e.name) {
    case 'pocketsphinx':
      return new PocketsphinxRecognizer();
    case 'openai':
      return new OpenAIRecognizer({ url: e.url!, model: k.openaiSttModel, ...(k.openai ? { apiKey: k.openai } : {}) });
    case 'deepgram':
      if (!k.deepgram) throw new Error('TOLK_RECOGNIZE names deepgram: set DEEPGRAM_API_KEY to its key');
      return new DeepgramRecognizer({ apiKey: k.deepgram, ...(e.url ? { url: e.url } : {}) });
    case 'vosk':
      return new VoskRecognizer({ url: e.url!, langs: k.voskLangs });
  }
}

/** The recognizers of TOLK_RECOGNIZE as one (none configured: a chain that hears nothing). */
export function startRecognizers(c: SpeechConfig, log?: Log): RecognizerChain {
  return new RecognizerChain(c.recognize.map((e) => makeRecognizer(e, c)), { timeoutMs: c.recognizeTimeoutMs, log });
}

/** One engine of TOLK_SPEECH_ENGINES (`pico`, `espeak`, `elevenlabs[=URL]`, `openai=URL`). */
export function makeSynthesizer(spec: string, c: SpeechConfig): SpeechSynthesizer {
  const [name, url] = spec.split(/=(.*)/s) as [string, string | undefined];
  const k = c.speechKeys;
  switch (name) {
    case 'espeak':
      return new EspeakSynthesizer();
    case 'elevenlabs':
      if (!k.elevenlabs) throw new Error('TOLK_SPEECH_ENGINES names elevenlabs: set ELEVENLABS_API_KEY to its key');
      return new ElevenLabsSynthesizer({ apiKey: k.elevenlabs, ...(url ? { url } : {}) });
    case 'openai':
      return new OpenAISynthesizer({ url: url!, model: k.openaiTtsModel, ...(k.openai ? { apiKey: k.openai } : {}) });
    default:
      return new PicoSynthesizer();
  }
}

/**
 * The speech engines of TOLK_SPEECH_ENGINES as one, cached (the disclosure and common phrases are synthesized once);
 * a cloned voice (`elevenlabs:<voice_id>`, elevenlabs-voices.ts) is spoken by ElevenLabs whatever engine comes first.
 */
export function startSynthesizers(c: SpeechConfig): CachedSynthesizer {
  const engines = c.speechEngines.map((spec) => makeSynthesizer(spec, c));
  return new CachedSynthesizer(new WithClonedVoices(new FirstThatSpeaks(engines), engines.find((e) => e instanceof ElevenLabsSynthesizer)));
}
