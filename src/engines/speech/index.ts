import path from 'node:path';
import type { Config } from '../../config.ts';
import { ElevenLabsSynthesizer } from '../elevenlabs/synthesizer.ts';
import { WithClonedVoices } from '../elevenlabs/voices.ts';
import { createRecognizer, createSynthesizer } from '../registry.ts';
import type { SpeechRecognizer } from './recognizer.ts';
import { RecognizerChain } from './recognizers.ts';
import { CachedSynthesizer, FirstThatSpeaks, type SpeechSynthesizer } from './synthesizer.ts';

// The speech engines of the configuration (operator.md, Engines): the
// recognizers of TOLK_RECOGNIZE as one chain (recognizers.ts), and the
// synthesizers of TOLK_SPEECH_ENGINES as one (a language by the first that
// speaks it), cached. An engine that cannot be made (a key missing, a
// package not installed) stops the start with a sentence saying so.

type Log = { warn: (o: object, m: string) => void; info: (o: object, m: string) => void };

export type SpeechConfig = Pick<Config, 'recognize' | 'recognizeTimeoutMs' | 'speechEngines' | 'speechKeys'> & Partial<Pick<Config, 'modelsDir'>>;

/** Where the offline engines' models are when the configuration does not say (TOLK_MODELS_DIR's default). */
const modelsDirOf = (c: SpeechConfig) => c.modelsDir ?? path.resolve('.data', 'models');

/** One recognizer of TOLK_RECOGNIZE, made by its folder (engines/registry.ts). */
export function makeRecognizer(e: Config['recognize'][number], c: SpeechConfig): SpeechRecognizer {
  return createRecognizer(e, { speechKeys: c.speechKeys, modelsDir: modelsDirOf(c) });
}

/** The recognizers of TOLK_RECOGNIZE as one (none configured: a chain that hears nothing). */
export function startRecognizers(c: SpeechConfig, log?: Log): RecognizerChain {
  return new RecognizerChain(c.recognize.map((e) => makeRecognizer(e, c)), { timeoutMs: c.recognizeTimeoutMs, log });
}

/** One engine of TOLK_SPEECH_ENGINES (`pico`, `espeak`, `elevenlabs[=URL]`, `openai=URL`), made by its folder (engines/registry.ts). */
export function makeSynthesizer(spec: string, c: SpeechConfig): SpeechSynthesizer {
  const [name, url] = spec.split(/=(.*)/s) as [string, string | undefined];
  return createSynthesizer({ name, ...(url ? { url } : {}) }, { speechKeys: c.speechKeys, modelsDir: modelsDirOf(c) });
}

/**
 * The speech engines of TOLK_SPEECH_ENGINES as one, cached (the disclosure and common phrases are synthesized once);
 * a cloned voice (`elevenlabs:<voice_id>`, elevenlabs/voices.ts) is spoken by ElevenLabs whatever engine comes first.
 */
export function startSynthesizers(c: SpeechConfig): CachedSynthesizer {
  const engines = c.speechEngines.map((spec) => makeSynthesizer(spec, c));
  return new CachedSynthesizer(new WithClonedVoices(new FirstThatSpeaks(engines), engines.find((e) => e instanceof ElevenLabsSynthesizer)));
}
